"""Admin of memories and their provenance, insights, and the entity graph: where operators curate."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from kbsite.admin_filters import LanguageListFilter
from kbsite.operators import OperatedAdmin
from memories.admin import memory_page
from memories.models import Edge, Entity, Insight, Memory, Message, ReviewItem
from memories.services import (
    QUARANTINED,
    insight_update,
    memory_add,
    memory_delete,
    memory_forget,
    memory_restore,
    memory_update,
)


class RetiredFilter(admin.SimpleListFilter):
    """Live memories (not retired, not quarantined) by default: what a bot may be given. One click for the
    quarantined, the retired, or all."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("live", "Live"), ("quarantined", "Quarantined"), ("retired", "Retired"), ("all", "All")]

    def choices(self, changelist):
        for value, title in self.lookup_choices:
            yield {
                "selected": (self.value() or "live") == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": title,
            }

    def queryset(self, request, queryset):
        value = self.value() or "live"
        if value == "live":
            return queryset.live().filter(quarantined=False)
        if value == "quarantined":
            return queryset.live().filter(quarantined=True)
        if value == "retired":
            return queryset.retired()
        return queryset


NEW_VERSION_HELP = "A new wording is saved as a new version: this one is kept in the versions, retired (edited)."

# What an operator may change on a memory's page (the rest is the product's record of it).
EDITABLE = {"text", "kind", "entities", "topics", "importance", "metadata", "valid_from", "valid_to", "end_user"}


@admin.register(Memory)
class MemoryAdmin(OperatedAdmin):
    # Eight columns, the text the widest, so that the list reads at 1,400 pixels with the side bar open; the
    # rest (importance, consolidated) is on each memory's page and in the filters.
    list_display = ["short_text", "kb", "end_user", "kind", "state", "mode", "came_from", "created_at"]
    list_filter = [
        RetiredFilter,
        "kind",
        LanguageListFilter,
        "mode",
        "quarantined",
        "consolidated",
        ("end_user", admin.EmptyFieldListFilter),
        "kb__bot",
        "kb",
        "created_at",
    ]
    list_select_related = ["kb__bot", "end_user", "source_chunk__document"]
    search_fields = ["text", "entities", "source", "end_user__external_id"]
    autocomplete_fields = ["kb", "end_user"]
    raw_id_fields = ["superseded_by", "source_chunk"]
    # A million memories: newest first by id (the primary key's index; ids grow with time), the live ones counted
    # through their own index (memory_kb_live), the whole table not counted again, and dates filtered by a range
    # rather than a date hierarchy (which reads every row's date to draw its links).
    ordering = ["-id"]
    show_full_result_count = False
    readonly_fields = [
        "content_hash",
        "language",
        "mode",
        "job_run",
        "source",
        "source_file",
        "provenance",
        "fed_insights",
        "retired_at",
        "superseded_by",
        "retired_reason",
        "quarantine_reason",
        "consolidated",
        "created_at",
        "updated_at",
    ]
    fieldsets = [
        (None, {"fields": ["kb", "end_user", "text", "kind", "entities", "topics", "importance", "metadata"]}),
        ("Valid time: when it was true in the world", {"fields": ["valid_from", "valid_to"]}),
        (
            "System time: when kbsite learned it and retired it",
            {"fields": ["created_at", "retired_at", "retired_reason", "superseded_by"]},
        ),
        ("Screening", {"fields": ["quarantined", "quarantine_reason"]}),
        (
            "Provenance",
            {
                "fields": [
                    "source",
                    "source_file",
                    "provenance",
                    "fed_insights",
                    "language",
                    "mode",
                    "job_run",
                    "consolidated",
                ]
            },
        ),
        ("Record", {"fields": ["content_hash", "updated_at"]}),
    ]
    actions = ["retire_memories", "restore_memories", "release_quarantine"]
    # The page tells the memory's story on top (status, what replaced it, Retire / Restore, its versions); its
    # history page lists the versions and who changed what; deleting says what it loses.
    change_form_template = "admin/memories/memory/change_form.html"
    object_history_template = "admin/memories/memory/object_history.html"
    delete_confirmation_template = "admin/memories/memory/delete_confirmation.html"

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]

    @admin.display(description="status")
    def state(self, obj):
        if obj.retired_at is not None:
            return f"retired ({obj.retired_reason})" if obj.retired_reason else "retired"
        return "quarantined" if obj.quarantined else "live"

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related(
                Prefetch("source_messages", queryset=Message.objects.select_related("session").order_by("pk"))
            )
        )

    @admin.display(description="came from")
    def came_from(self, obj):
        """The list's short provenance: its first source turn (session / turn) or document chunk, linked to its page;
        else how it was added (an operator, the API, an import)."""
        turns = list(obj.source_messages.all())
        if turns:
            more = f" +{len(turns) - 1}" if len(turns) > 1 else ""
            first = turns[0]
            url = reverse("admin:memories_message_change", args=[first.pk])
            return format_html('<a href="{}">{} / {}</a>{}', url, first.session.external_id, first.external_id, more)
        if obj.source_chunk_id:
            chunk = obj.source_chunk
            url = reverse("admin:knowledge_chunk_change", args=[chunk.pk])
            return format_html('<a href="{}">{}#{}</a>', url, chunk.document.slug, chunk.ordinal)
        return obj.source_file or obj.source or "-"

    @admin.display(description="came from")
    def provenance(self, obj):
        """The turns (each a link to its page), the document chunk and the file the memory came from."""
        rows = [
            format_html(
                '<div>turn <a href="{}">{} / {}</a>: {}</div>',
                reverse("admin:memories_message_change", args=[m.pk]),
                m.session.external_id,
                m.external_id,
                m.content[:200],
            )
            for m in obj.source_messages.select_related("session")
        ]
        if obj.source_chunk_id:
            chunk = obj.source_chunk
            rows.append(
                format_html(
                    '<div>document <a href="{}">{}#{}</a>: {}</div>',
                    reverse("admin:knowledge_chunk_change", args=[chunk.pk]),
                    chunk.document.slug,
                    chunk.ordinal,
                    chunk.text[:200],
                )
            )
        if obj.source_file:
            rows.append(format_html("<div>file {}</div>", obj.source_file))
        return format_html_join("", "{}", ((r,) for r in rows)) or "-"

    @admin.display(description="feeds insights")
    def fed_insights(self, obj):
        return format_html_join("", "<div>#{}: {}</div>", ((i.pk, i.text[:200]) for i in obj.insights.all())) or "-"

    def get_readonly_fields(self, request, obj=None):
        # A new memory's quarantine is decided by the screening (operators release it with the action).
        return self.readonly_fields if obj else [*self.readonly_fields, "quarantined"]

    def has_change_permission(self, request, obj=None):
        # A retired memory is kept as it was: its page is read-only and a post to it is refused; Restore (a button
        # of its page, or the list's action) makes it live again, and editable.
        if obj is not None and not obj.is_live:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        # Never deleted, retired: a delete loses the memory, its place among its versions and the review items
        # about it, with no audit record. Operators retire (or erase an end user, which keeps one); a superuser
        # may still delete, behind a confirmation saying what is lost.
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # many at once would skip the page saying what each one loses
        return actions

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if obj is not None and "text" in form.base_fields:
            form.base_fields["text"].help_text = NEW_VERSION_HELP
        return form

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and obj.pk:
            context["story"] = memory_page.story(obj)
            context["show_delete"] = obj.is_live  # a retired memory's page is read-only: Restore, not Delete
            context["can_act"] = self.has_change_permission(request)  # Retire / Restore: the model's permission
        return super().render_change_form(request, context, add, change, form_url, obj)

    def history_view(self, request, object_id, extra_context=None):
        """The memory's versions, and what people did to any of them in the admin, with who."""
        memory = self.get_object(request, unquote(object_id))
        extra = {}
        if memory is not None:
            rows = memory_page.version_rows(memory)
            extra = {"versions": rows, "changes": memory_page.admin_changes([row["memory"] for row in rows])}
        return super().history_view(request, object_id, {**extra, **(extra_context or {})})

    def delete_view(self, request, object_id, extra_context=None):
        memory = self.get_object(request, unquote(object_id))
        extra = {}
        if memory is not None and self.has_delete_permission(request, memory):
            extra = {"losses": memory_page.deletion_losses(memory)}
        return super().delete_view(request, object_id, {**extra, **(extra_context or {})})

    def delete_model(self, request, obj):
        memory_delete(memory=obj)

    def get_deleted_objects(self, objs, request):
        # The review items about a memory go with it (their older or newer fact is gone): the confirmation says so.
        # No one may delete them on their own, so Django would otherwise refuse the deletion to a superuser too.
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed.discard(ReviewItem._meta.verbose_name)
        return deleted, counts, perms_needed, protected

    def get_urls(self):
        own = [
            path("<int:pk>/retire/", self.admin_site.admin_view(self.retire_view), name="memories_memory_retire"),
            path("<int:pk>/restore/", self.admin_site.admin_view(self.restore_view), name="memories_memory_restore"),
        ]
        return own + super().get_urls()

    @method_decorator(require_POST)
    def retire_view(self, request, pk: int):
        """The page's Retire button: retired with who and why, kept in its versions."""
        memory = self._to_act_on(request, pk)
        if self._retire(request, memory, request.POST.get("reason", "")):
            self.message_user(request, f"Memory #{pk} retired: kept in its versions, and it can be restored.")
        else:
            self.message_user(request, f"Memory #{pk} was retired already.", messages.WARNING)
        return redirect(reverse("admin:memories_memory_change", args=[pk]))

    @method_decorator(require_POST)
    def restore_view(self, request, pk: int):
        """The page's Restore button: live again; a live replacement is retired in its place."""
        memory = self._to_act_on(request, pk)
        restored, replacement = self._restore(request, memory)
        if not restored:
            self.message_user(request, f"Memory #{pk} is live already.", messages.WARNING)
        elif replacement is not None:
            self.message_user(request, f"Memory #{pk} restored; #{replacement.pk}, which had replaced it, is retired.")
        else:
            self.message_user(request, f"Memory #{pk} restored.")
        return redirect(reverse("admin:memories_memory_change", args=[pk]))

    def _to_act_on(self, request, pk: int) -> Memory:
        if not self.has_change_permission(request):
            raise PermissionDenied
        return get_object_or_404(self.get_queryset(request), pk=pk)

    def _retire(self, request, memory: Memory, why: str = "") -> bool:
        """Retire ``memory`` for the request's user (``why`` added to the reason), logged on its history."""
        reason = f"retired by {request.user}" + (f": {why.strip()}" if why.strip() else "")
        if not memory_forget(memory=memory, reason=reason[:200]):
            return False
        self.log_change(request, memory, f"Retired ({reason[:200]}).")
        return True

    def _restore(self, request, memory: Memory) -> tuple[bool, Memory | None]:
        """Restore ``memory``, logged on its history and on its replacement's if that was retired in its place.
        Returns whether it was restored (False: it was live) and that replacement, if any."""
        replacement = memory.superseded_by if memory.superseded_by_id else None
        if not memory_restore(memory=memory):
            return False, None
        self.log_change(request, memory, "Restored.")
        if replacement is not None:
            replacement.refresh_from_db()
            if not replacement.is_live and replacement.superseded_by_id == memory.pk:
                self.log_change(request, replacement, f"Retired ({replacement.retired_reason}).")
                return True, replacement
        return True, None

    def save_model(self, request, obj, form, change):
        """A new memory goes through memory_add, like a bot's: screened (a secret or an injection is stored
        quarantined) and never stored twice; an edited text is embedded again by a job."""
        if change:
            if "text" in form.changed_data:
                # A new wording is a new version: the edited memory is retired, "edited", in its history.
                data = {name: getattr(obj, name) for name in form.changed_data if name in EDITABLE}
                obj.version = memory_update(memory=Memory.objects.get(pk=obj.pk), data=data)
                self.log_addition(request, obj.version, f"New version of #{obj.pk} (its text edited).")
            else:
                super().save_model(request, obj, form, change)
            return
        memory, created = memory_add(
            kb=obj.kb,
            text=obj.text,
            kind=obj.kind,
            entities=obj.entities,
            topics=obj.topics,
            importance=obj.importance,
            valid_from=obj.valid_from,
            source=f"admin:{request.user}",
            end_user=obj.end_user,
        )
        obj.pk = memory.pk
        obj.refresh_from_db()
        obj.repeated = not created
        if obj.repeated:
            self.message_user(
                request,
                f"A live memory with this text exists already (#{memory.pk}): nothing was added.",
                messages.WARNING,
            )
        elif memory.quarantined:
            self.message_user(request, f"Stored quarantined: {memory.quarantine_reason}.", messages.WARNING)

    def response_change(self, request, obj):
        version = getattr(obj, "version", None)
        if version is not None and version.pk != obj.pk:
            self.message_user(request, f"Saved as a new version, #{version.pk}; #{obj.pk} is kept in its history.")
            return redirect(reverse("admin:memories_memory_change", args=[version.pk]))
        return super().response_change(request, obj)

    def response_add(self, request, obj, post_url_continue=None):
        if getattr(obj, "repeated", False):  # nothing was added: show the memory it repeats, without "added"
            return redirect(reverse("admin:memories_memory_change", args=[obj.pk]))
        return super().response_add(request, obj, post_url_continue)

    @admin.action(description="Retire selected memories (kept in history)")
    def retire_memories(self, request, queryset):
        count = sum(1 for memory in queryset.live() if self._retire(request, memory))
        self.message_user(request, f"{count} memories retired.")

    @admin.action(description="Restore selected memories (un-retire; a live replacement is retired instead)")
    def restore_memories(self, request, queryset):
        count = sum(1 for memory in queryset.retired() if self._restore(request, memory)[0])
        self.message_user(request, f"{count} memories restored.")

    @admin.action(description="Release from quarantine (operator reviewed)")
    def release_quarantine(self, request, queryset):
        count = queryset.filter(quarantined=True).update(quarantined=False)
        self.message_user(request, f"{count} memories released from quarantine.")


@admin.register(Insight)
class InsightAdmin(OperatedAdmin):
    list_display = ["short_text", "kb", "end_user", "mode", "linked_count", "created_at"]
    list_filter = ["mode", LanguageListFilter, ("end_user", admin.EmptyFieldListFilter), "kb__bot", "kb"]
    list_select_related = ["kb__bot", "end_user"]
    search_fields = ["text", "end_user__external_id"]
    readonly_fields = [
        "kb",
        "end_user",
        "mode",
        "job_run",
        "linked_memories",
        "created_at",
        "retired_at",
        "retired_reason",
    ]
    fields = ["kb", "text", "linked_memories", "mode", "job_run", "created_at", "retired_at", "retired_reason"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_linked=Count("memories"))

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]

    @admin.display(description="memories", ordering="_linked")
    def linked_count(self, obj):
        return obj._linked

    @admin.display(description="linked memories")
    def linked_memories(self, obj):
        return (
            format_html_join(
                "",
                '<div><a href="../../../memory/{}/change/">#{}</a> {}</div>',
                ((m.pk, m.pk, m.text[:200]) for m in obj.memories.all()),
            )
            or "-"
        )

    def save_model(self, request, obj, form, change):
        """An edited text goes through insight_update: screened and embedded again; a secret or an injection
        retires the insight, saying why, so that no bot is given it."""
        if not (change and "text" in form.changed_data):
            return super().save_model(request, obj, form, change)
        insight_update(insight=obj, text=form.cleaned_data["text"])
        if obj.retired_reason.startswith(QUARANTINED):
            self.message_user(request, f"Retired, never given to bots: {obj.retired_reason}.", messages.WARNING)


@admin.register(Entity)
class EntityAdmin(OperatedAdmin):
    list_display = ["name", "display_name", "kb", "created_at"]
    list_filter = ["kb__bot", "kb"]
    list_select_related = ["kb__bot"]
    search_fields = ["name", "display_name"]
    readonly_fields = ["created_at"]
    autocomplete_fields = ["kb"]


@admin.register(Edge)
class EdgeAdmin(OperatedAdmin):
    list_display = ["src", "relation", "dst", "kb", "retired_at", "created_at"]
    list_filter = ["relation", "kb__bot", "kb"]
    list_select_related = ["src", "dst", "kb__bot"]
    search_fields = ["src__name", "dst__name", "relation"]
    autocomplete_fields = ["kb", "src", "dst"]
    raw_id_fields = ["memory"]
    readonly_fields = ["created_at"]
