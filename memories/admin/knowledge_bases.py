"""Admin of knowledge bases (registered here: their page counts memories and documents) and the recall console."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html_join

from kbsite.models import EndUser, KnowledgeBase
from kbsite.operators import OperatedAdmin, operated
from memories import selectors
from memories.consolidation import enqueue_consolidation
from memories.forms import RecallConsoleForm
from memories.recall import recall


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(OperatedAdmin):
    list_display = [
        "name",
        "bot",
        "always_on",
        "records_chat",
        "is_active",
        "consolidate_interval_minutes",
        "memory_count",
        "mode_split",
        "insight_count",
        "document_count",
        "pending_messages",
        "failed_jobs",
    ]
    list_filter = ["always_on", "records_chat", "is_active", "bot"]
    search_fields = ["name", "bot__name", "description"]
    actions = ["consolidate_now"]

    @admin.action(description="Consolidate now (queue a consolidation run)")
    def consolidate_now(self, request, queryset):
        jobs = [enqueue_consolidation(kb=kb) for kb in queryset]
        self.message_user(request, f"{len(jobs)} consolidation runs queued; see Job runs for what they did.")

    readonly_fields = ["at_a_glance", "created_at", "updated_at", "folder_path", "vector_search"]

    @admin.display(description="at a glance")
    def at_a_glance(self, obj):
        """The KB's counts, each linked to its rows, and the recall console for it."""
        if not obj.pk:
            return "-"
        rows = [
            ("admin:memories_memory_changelist", f"kb__id__exact={obj.pk}", f"{obj.memory_count} live memories"),
            ("admin:memories_insight_changelist", f"kb__id__exact={obj.pk}", f"{obj.insight_count} insights"),
            ("admin:knowledge_document_changelist", f"kb__id__exact={obj.pk}", f"{obj.document_count} documents"),
            (
                "admin:memories_session_changelist",
                f"kb__id__exact={obj.pk}",
                f"{obj.pending_messages} unprocessed turns",
            ),
            (
                "admin:kbsite_jobrun_changelist",
                f"kb__id__exact={obj.pk}&status__exact=failed",
                f"{obj.failed_jobs} failed jobs",
            ),
            ("admin:kbsite_knowledgebase_recall", f"kb={obj.pk}", "Recall console"),
        ]
        return format_html_join(
            " · ", '<a href="{}?{}">{}</a>', ((reverse(name), query, label) for name, query, label in rows)
        )

    def get_queryset(self, request):
        return operated(selectors.kb_list_with_counts(), request.user)

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
        """Type a query for a KB (and an end user) and see exactly what a bot would get, with scores, signals and
        sources."""
        form = RecallConsoleForm(request.GET or None, kbs=operated(KnowledgeBase.objects.all(), request.user))
        results, used = None, 0
        if form.is_valid():
            data = form.cleaned_data
            end_user = EndUser.objects.named(data["kb"].bot, data.get("user_id"))
            results = recall(
                end_user_id=end_user.pk if end_user else None,
                kbs=[data["kb"]],
                query=data["query"],
                k=data["k"],
                budget_chars=data.get("budget_chars"),
                as_of=data.get("as_of"),
                known_at=data.get("known_at"),
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
