"""Admin for operators: memories and their provenance, and the knowledge bases' pages.

Curate memories and see what produced them; knowledge bases with their counts and the recall console (registered
here: their page counts memories and documents). Bots, keys and job runs are in kbsite/admin.py.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Count
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from kbsite.models import KnowledgeBase
from memories import selectors
from memories.consolidation import enqueue_consolidation
from memories.forms import RecallConsoleForm
from memories.models import Edge, Entity, IngestItem, Insight, Memory, Message, Session
from memories.recall import recall
from memories.services import memory_add, memory_update


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "bot",
        "always_on",
        "is_active",
        "consolidate_interval_minutes",
        "memory_count",
        "mode_split",
        "insight_count",
        "document_count",
        "pending_messages",
        "failed_jobs",
    ]
    list_filter = ["always_on", "is_active", "bot"]
    search_fields = ["name", "bot__name", "description"]
    actions = ["consolidate_now"]

    @admin.action(description="Consolidate now (queue a consolidation run)")
    def consolidate_now(self, request, queryset):
        jobs = [enqueue_consolidation(kb=kb) for kb in queryset]
        self.message_user(request, f"{len(jobs)} consolidation runs queued; see Job runs for what they did.")

    readonly_fields = ["created_at", "updated_at", "folder_path", "vector_search"]

    def get_queryset(self, request):
        return selectors.kb_list_with_counts()

    @admin.display(description="vector search")
    def vector_search(self, obj):
        if obj.vector_index:
            return "approximate (HNSW index): the KB has outgrown exact search"
        return f"exact scan of the KB (until it holds {settings.VECTOR_INDEX_MIN_MEMORIES:,} memories)"

    def get_urls(self):
        return [
            path("recall/", self.admin_site.admin_view(self.recall_console), name="kbsite_knowledgebase_recall"),
            *super().get_urls(),
        ]

    def recall_console(self, request):
        """Type a query for a KB and see exactly what a bot would get, with scores, signals and sources."""
        form = RecallConsoleForm(request.GET or None)
        results, used = None, 0
        if form.is_valid():
            data = form.cleaned_data
            results = recall(
                kbs=[data["kb"]],
                query=data["query"],
                k=data["k"],
                budget_chars=data.get("budget_chars"),
                as_of=data.get("as_of"),
            )
            used = sum(len(h.text) for h in results)
        context = {
            **self.admin_site.each_context(request),
            "title": "Recall console",
            "form": form,
            "results": results,
            "used_chars": used,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/memories/recall_console.html", context)

    @admin.display(description="folder on disk")
    def folder_path(self, obj):
        return str(obj.folder) if obj.pk else "-"

    @admin.display(description="Live memories", ordering="memory_count")
    def memory_count(self, obj):
        return obj.memory_count

    @admin.display(description="LLM / heuristic")
    def mode_split(self, obj):
        return f"{obj.llm_memory_count} / {obj.heuristic_memory_count}"

    @admin.display(description="Insights", ordering="insight_count")
    def insight_count(self, obj):
        return obj.insight_count

    @admin.display(description="Documents", ordering="document_count")
    def document_count(self, obj):
        return obj.document_count

    @admin.display(description="Unprocessed turns", ordering="pending_messages")
    def pending_messages(self, obj):
        return obj.pending_messages

    @admin.display(description="Failed jobs", ordering="failed_jobs")
    def failed_jobs(self, obj):
        return obj.failed_jobs


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["external_id", "end_user", "kb", "message_count", "extracted_through", "updated_at"]
    list_filter = [("end_user", admin.EmptyFieldListFilter), "kb__bot", "kb"]
    list_select_related = ["kb__bot", "end_user"]
    search_fields = ["external_id", "end_user__external_id"]
    # claimed_by / claimed_until: the extraction job working on the session's new turns, if any.
    readonly_fields = [
        "kb",
        "end_user",
        "external_id",
        "extracted_through",
        "claimed_by",
        "claimed_until",
        "created_at",
        "updated_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_messages=Count("messages"))

    @admin.display(description="Messages", ordering="_messages")
    def message_count(self, obj):
        return obj._messages


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["external_id", "session", "kb", "role", "speaker", "short_content", "created_at"]
    list_filter = ["role", "kb__bot", "kb"]
    list_select_related = ["session", "kb__bot"]
    search_fields = ["external_id", "speaker", "content", "session__external_id"]
    readonly_fields = ["kb", "session", "external_id", "role", "speaker", "content", "created_at", "received_at"]
    date_hierarchy = "created_at"

    @admin.display(description="content")
    def short_content(self, obj):
        return obj.content[:100]


class RetiredFilter(admin.SimpleListFilter):
    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return [("live", "Live"), ("retired", "Retired")]

    def queryset(self, request, queryset):
        if self.value() == "live":
            return queryset.live()
        if self.value() == "retired":
            return queryset.retired()
        return queryset


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = [
        "short_text",
        "kb",
        "end_user",
        "kind",
        "is_live",
        "quarantined",
        "mode",
        "consolidated",
        "importance",
        "created_at",
    ]
    list_filter = [
        RetiredFilter,
        "kind",
        "mode",
        "quarantined",
        "consolidated",
        ("end_user", admin.EmptyFieldListFilter),
        "kb__bot",
        "kb",
    ]
    list_select_related = ["kb__bot", "end_user"]
    search_fields = ["text", "entities", "source", "end_user__external_id"]
    raw_id_fields = ["kb", "end_user", "superseded_by", "source_chunk"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "content_hash",
        "mode",
        "job_run",
        "source",
        "source_file",
        "provenance",
        "fed_insights",
        "history",
        "valid_to",
        "superseded_by",
        "retired_reason",
        "quarantine_reason",
        "consolidated",
        "created_at",
        "updated_at",
    ]
    fields = [
        "kb",
        "end_user",
        "text",
        "kind",
        "entities",
        "topics",
        "importance",
        "valid_from",
        "quarantined",
        "quarantine_reason",
        "valid_to",
        "superseded_by",
        "retired_reason",
        "history",
        "source",
        "source_file",
        "provenance",
        "fed_insights",
        "mode",
        "job_run",
        "consolidated",
        "content_hash",
        "created_at",
        "updated_at",
    ]
    actions = ["retire_memories", "release_quarantine"]

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]

    @admin.display(description="live", boolean=True)
    def is_live(self, obj):
        return obj.valid_to is None

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
        return (
            format_html_join(
                "", "<div>#{} (retired {}): {}</div>", ((m.pk, m.valid_to, m.text[:200]) for m in obj.supersedes.all())
            )
            or "-"
        )

    def get_readonly_fields(self, request, obj=None):
        # A new memory's quarantine is decided by the screening (operators release it with the action).
        return self.readonly_fields if obj else [*self.readonly_fields, "quarantined"]

    def save_model(self, request, obj, form, change):
        """A new memory goes through memory_add, like a bot's: screened (a secret or an injection is stored
        quarantined) and never stored twice; an edited text is embedded again by a job."""
        if change:
            if "text" in form.changed_data:
                memory_update(memory=obj, data={"text": obj.text})
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

    def response_add(self, request, obj, post_url_continue=None):
        if getattr(obj, "repeated", False):  # nothing was added: show the memory it repeats, without "added"
            return redirect(reverse("admin:memories_memory_change", args=[obj.pk]))
        return super().response_add(request, obj, post_url_continue)

    @admin.action(description="Retire selected memories (kept in history)")
    def retire_memories(self, request, queryset):
        count = sum(1 for memory in queryset.live() if memory.retire(reason=f"retired by {request.user}"))
        self.message_user(request, f"{count} memories retired.")

    @admin.action(description="Release from quarantine (operator reviewed)")
    def release_quarantine(self, request, queryset):
        count = queryset.filter(quarantined=True).update(quarantined=False)
        self.message_user(request, f"{count} memories released from quarantine.")


@admin.register(Insight)
class InsightAdmin(admin.ModelAdmin):
    list_display = ["short_text", "kb", "end_user", "mode", "linked_count", "created_at"]
    list_filter = ["mode", ("end_user", admin.EmptyFieldListFilter), "kb__bot", "kb"]
    list_select_related = ["kb__bot"]
    search_fields = ["text"]
    readonly_fields = ["kb", "end_user", "mode", "job_run", "linked_memories", "created_at", "valid_to"]
    fields = ["kb", "text", "linked_memories", "mode", "job_run", "created_at", "valid_to"]

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


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):
    list_display = ["name", "display_name", "kb", "created_at"]
    list_filter = ["kb__bot", "kb"]
    list_select_related = ["kb__bot"]
    search_fields = ["name", "display_name"]
    readonly_fields = ["created_at"]
    raw_id_fields = ["kb"]


@admin.register(Edge)
class EdgeAdmin(admin.ModelAdmin):
    list_display = ["src", "relation", "dst", "kb", "valid_to", "created_at"]
    list_filter = ["relation", "kb__bot", "kb"]
    list_select_related = ["src", "dst", "kb__bot"]
    search_fields = ["src__name", "dst__name", "relation"]
    raw_id_fields = ["kb", "src", "dst", "memory"]
    readonly_fields = ["created_at"]


@admin.register(IngestItem)
class IngestItemAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "kb", "source", "file_name", "status", "progress", "created_at", "processed_at"]
    list_filter = ["status", "kind", "kb__bot"]
    list_select_related = ["kb__bot"]
    search_fields = ["source", "file_name", "text"]
    readonly_fields = [
        "kb",
        "kind",
        "source",
        "file_name",
        "text",
        "progress",
        "status",
        "error",
        "created_at",
        "processed_at",
    ]

    def has_add_permission(self, request):
        return False
