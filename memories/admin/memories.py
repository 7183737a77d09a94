"""Admin of memories and their provenance, insights, and the entity graph: where operators curate."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from kbsite.operators import OperatedAdmin
from memories.models import Edge, Entity, Insight, Memory
from memories.services import QUARANTINED, insight_update, memory_add, memory_restore, memory_update


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


# What an operator may change on a memory's page (the rest is the product's record of it).
EDITABLE = {"text", "kind", "entities", "topics", "importance", "metadata", "valid_from", "valid_to", "end_user"}


@admin.register(Memory)
class MemoryAdmin(OperatedAdmin):
    # Seven columns, the text the widest, so that the list reads at 1,400 pixels with the side bar open; the
    # rest (importance, consolidated) is on each memory's page and in the filters.
    list_display = ["short_text", "kb", "end_user", "kind", "state", "mode", "created_at"]
    list_filter = [
        RetiredFilter,
        "kind",
        "mode",
        "quarantined",
        "consolidated",
        ("end_user", admin.EmptyFieldListFilter),
        "kb__bot",
        "kb",
        "created_at",
    ]
    list_select_related = ["kb__bot", "end_user"]
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
        "mode",
        "job_run",
        "source",
        "source_file",
        "provenance",
        "fed_insights",
        "history",
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
            {"fields": ["created_at", "retired_at", "retired_reason", "superseded_by", "history"]},
        ),
        ("Screening", {"fields": ["quarantined", "quarantine_reason"]}),
        (
            "Provenance",
            {"fields": ["source", "source_file", "provenance", "fed_insights", "mode", "job_run", "consolidated"]},
        ),
        ("Record", {"fields": ["content_hash", "updated_at"]}),
    ]
    actions = ["retire_memories", "restore_memories", "release_quarantine"]

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]

    @admin.display(description="status")
    def state(self, obj):
        if obj.retired_at is not None:
            return f"retired ({obj.retired_reason})" if obj.retired_reason else "retired"
        return "quarantined" if obj.quarantined else "live"

    @admin.display(description="came from")
    def provenance(self, obj):
        rows = [
            format_html("<div>message {} / {}: {}</div>", m.session.external_id, m.external_id, m.content[:200])
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

    @admin.display(description="supersedes")
    def history(self, obj):
        """Every version (edits, newer facts, restores), oldest first, this one in bold."""
        versions = obj.versions() if obj.pk else []
        if len(versions) < 2:
            return "-"
        return format_html_join(
            "",
            '<div{}><a href="../../{}/change/">#{}</a> {} · {}: {}</div>',
            (
                (
                    mark_safe(' style="font-weight:bold"') if m.pk == obj.pk else "",
                    m.pk,
                    m.pk,
                    f"{m.created_at:%Y-%m-%d %H:%M}",
                    f"retired {m.retired_at:%Y-%m-%d %H:%M} ({m.retired_reason})" if m.retired_at else "live",
                    m.text[:200],
                )
                for m in versions
            ),
        )

    def get_readonly_fields(self, request, obj=None):
        # A new memory's quarantine is decided by the screening (operators release it with the action).
        return self.readonly_fields if obj else [*self.readonly_fields, "quarantined"]

    def save_model(self, request, obj, form, change):
        """A new memory goes through memory_add, like a bot's: screened (a secret or an injection is stored
        quarantined) and never stored twice; an edited text is embedded again by a job."""
        if change:
            if "text" in form.changed_data:
                # A new wording is a new version: the edited memory is retired, "edited", in its history.
                data = {name: getattr(obj, name) for name in form.changed_data if name in EDITABLE}
                obj.version = memory_update(memory=Memory.objects.get(pk=obj.pk), data=data)
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
        count = sum(1 for memory in queryset.live() if memory.retire(reason=f"retired by {request.user}"))
        self.message_user(request, f"{count} memories retired.")

    @admin.action(description="Restore selected memories (un-retire; a live replacement is retired instead)")
    def restore_memories(self, request, queryset):
        count = sum(1 for memory in queryset.retired() if memory_restore(memory=memory))
        self.message_user(request, f"{count} memories restored.")

    @admin.action(description="Release from quarantine (operator reviewed)")
    def release_quarantine(self, request, queryset):
        count = queryset.filter(quarantined=True).update(quarantined=False)
        self.message_user(request, f"{count} memories released from quarantine.")


@admin.register(Insight)
class InsightAdmin(OperatedAdmin):
    list_display = ["short_text", "kb", "end_user", "mode", "linked_count", "created_at"]
    list_filter = ["mode", ("end_user", admin.EmptyFieldListFilter), "kb__bot", "kb"]
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
