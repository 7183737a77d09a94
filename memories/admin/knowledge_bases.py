"""Admin of knowledge bases (registered here: their page counts memories and documents) and the recall console."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from kbsite.caller import Caller
from kbsite.models import KnowledgeBase
from kbsite.operators import OperatedAdmin, operated
from kbsite.stats import usage_metered
from knowledge.models import Document
from knowledge.services import enqueue_document
from memories import rights, selectors
from memories.admin.dashboard import COUNTS, kb_counts
from memories.consolidation import enqueue_consolidation
from memories.forms import RecallConsoleForm
from memories.recall import RecallQuery, recall
from memories.recall.answers import kb_ask
from memories.recall.context import context_build


@admin.register(KnowledgeBase)
class KnowledgeBaseAdmin(OperatedAdmin):
    list_display = [
        "name",
        "bot",
        "always_on",
        "records_chat",
        "active",
        "consolidates_every",
        "memory_count",
        "insight_count",
        "document_count",
        "pending_messages",
        "failed_jobs",
    ]
    list_filter = ["always_on", "records_chat", "is_active", "bot"]
    search_fields = ["name", "bot__name", "description"]
    autocomplete_fields = ["bot"]
    actions = ["consolidate_now"]

    @admin.action(description="Consolidate now (queue a consolidation run)")
    def consolidate_now(self, request, queryset):
        jobs = [enqueue_consolidation(kb=kb) for kb in queryset]
        self.message_user(request, f"{len(jobs)} consolidation runs queued; see Job runs for what they did.")

    readonly_fields = [
        "at_a_glance",
        "languages",
        "asked_languages",
        "created_at",
        "updated_at",
        "folder_path",
        "vector_search",
    ]

    def get_readonly_fields(self, request, obj=None):
        # A KB stays with the bot it was made for: its folder is under that bot's id (KnowledgeBase.clean).
        return self.readonly_fields if obj is None else [*self.readonly_fields, "bot"]

    @admin.display(description="at a glance")
    def at_a_glance(self, obj):
        """The KB's counts, each linked to its rows, and the recall console for it."""
        if not obj.pk:
            return "-"
        memories = reverse("admin:memories_memory_changelist")
        rows = [
            (memories, f"kb__id__exact={obj.pk}", f"{self.memory_count(obj)} live memories"),
            (memories, f"kb__id__exact={obj.pk}&mode__exact=llm", "by the LLM"),
            (memories, f"kb__id__exact={obj.pk}&mode__exact=heuristic", "by heuristics"),
            (memories, f"kb__id__exact={obj.pk}&status=retired", f"{self._counts(obj)['retired']} retired"),
            (memories, f"kb__id__exact={obj.pk}&status=quarantined", f"{self._counts(obj)['quarantined']} quarantined"),
            (
                reverse("admin:memories_insight_changelist"),
                f"kb__id__exact={obj.pk}",
                f"{obj.insight_count} insights",
            ),
            (
                reverse("admin:knowledge_document_changelist"),
                f"kb__id__exact={obj.pk}",
                f"{obj.document_count} documents",
            ),
            (
                reverse("admin:memories_session_changelist"),
                f"kb__id__exact={obj.pk}",
                f"{self.pending_messages(obj)} unprocessed turns",
            ),
            (
                reverse("admin:kbsite_jobrun_changelist"),
                f"kb__id__exact={obj.pk}&status__exact=failed",
                f"{self.failed_jobs(obj)} failed jobs",
            ),
            (reverse("admin:kbsite_knowledgebase_recall"), f"kb={obj.pk}", "Recall console"),
        ]
        counted_at = kb_counts()[1]
        return format_html(
            '{} <span class="quiet">(memories, turns and jobs as counted at {})</span>',
            format_html_join(" · ", '<a href="{}?{}">{}</a>', rows),
            timezone.localtime(counted_at).strftime("%H:%M:%S"),
        )

    def get_queryset(self, request):
        # Memories, turns and jobs are counted by the dashboard's cache (a million memories took 1.7 s to count
        # per page); insights and documents, which are few, here.
        return operated(selectors.kb_list_with_small_counts(), request.user)

    @admin.display(description="vector search")
    def vector_search(self, obj):
        if obj.vector_index:
            return "approximate (HNSW index): the KB has outgrown exact search"
        return f"exact scan of the KB (until it holds {settings.VECTOR_INDEX_MIN_MEMORIES:,} memories)"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("recall/", view(self.recall_console), name="kbsite_knowledgebase_recall"),
            path("<int:pk>/consolidate/", view(self.consolidate_view), name="kbsite_knowledgebase_consolidate"),
            path("<int:pk>/reindex/", view(self.reindex_view), name="kbsite_knowledgebase_reindex"),
            path("<int:pk>/export/", view(self.export_view), name="kbsite_knowledgebase_export"),
            *super().get_urls(),
        ]

    def _kb_to_change(self, request, pk: int) -> KnowledgeBase:
        kb = get_object_or_404(self.get_queryset(request), pk=pk)
        if request.method != "POST" or not self.has_change_permission(request, kb):
            raise PermissionDenied
        return kb

    def consolidate_view(self, request, pk: int):
        """The KB's page's "Consolidate now" (POST): a consolidation run queued at once."""
        kb = self._kb_to_change(request, pk)
        job = enqueue_consolidation(kb=kb)
        self.message_user(
            request,
            format_html(
                'Consolidation of {} queued: <a href="{}">job run #{}</a>.',
                kb,
                reverse("admin:kbsite_jobrun_change", args=[job.pk]),
                job.pk,
            ),
        )
        return redirect("admin:kbsite_knowledgebase_change", kb.pk)

    def reindex_view(self, request, pk: int):
        """The KB's page's "Re-index documents" (POST): every present document extracted, chunked and embedded
        again, each by a job."""
        kb = self._kb_to_change(request, pk)
        documents = list(Document.objects.present().filter(kb=kb))
        for document in documents:
            enqueue_document(document=document)
        self.message_user(request, f"{len(documents)} documents of {kb} queued for re-indexing.")
        return redirect("admin:kbsite_knowledgebase_change", kb.pk)

    def export_view(self, request, pk: int):
        """Everything the KB holds, as JSON Lines (the API's export: the format ``import`` reads)."""
        kb = get_object_or_404(self.get_queryset(request), pk=pk)
        response = StreamingHttpResponse(
            rights.json_lines(rights.records(kbs=[kb])), content_type="application/x-ndjson"
        )
        response["Content-Disposition"] = f'attachment; filename="{kb.bot.name}-{kb.name}.jsonl"'
        return response

    def recall_console(self, request):
        """Type a query for a KB (and an end user, a session) and see exactly what a bot would get: the recall with
        scores, signals and sources, the context block of the bot's always-on KBs, and the ask answer with its
        citations."""
        form = RecallConsoleForm(
            request.GET if "query" in request.GET else None,
            initial={"kb": request.GET.get("kb")},  # from a KB's page or the dashboard
            kbs=operated(KnowledgeBase.objects.all(), request.user),
        )
        results, used, context_block, answer = None, 0, None, None
        if form.is_valid():
            data = form.cleaned_data
            kb = data["kb"]
            caller = Caller(bot=kb.bot).acting_for(data.get("user_id"))  # an operator, as the bot would ask
            # An operator's look is not one of the bot's requests (those are its API's and MCP's), but the LLM
            # tokens and texts embedded are real spend: they count in its usage and against its LLM budget.
            with usage_metered(bot_id=kb.bot_id, kb_id=kb.pk, end_user_id=caller.end_user_id, request=False):
                results = recall(
                    RecallQuery(
                        kbs=(kb,),
                        text=data["query"],
                        end_user_id=caller.end_user_id,
                        k=data["k"],
                        budget_chars=data.get("budget_chars"),
                        as_of=data.get("as_of"),
                        known_at=data.get("known_at"),
                    )
                )
                context_block = context_build(
                    caller=caller, query=data["query"], session_id=data.get("session_id") or None
                )
                answer = kb_ask(kb=kb, question=data["query"], caller=caller)
            used = sum(len(h.text) for h in results)
        context = {
            **self.admin_site.each_context(request),
            "title": "Recall console",
            "form": form,
            "results": results,
            "used_chars": used,
            "context_block": context_block,
            "answer": answer,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/memories/recall_console.html", context)

    @admin.display(description="folder on disk")
    def folder_path(self, obj):
        return str(obj.folder) if obj.pk else "-"

    @staticmethod
    def _counts(obj) -> dict[str, int]:
        return kb_counts()[0].get(obj.pk) or dict.fromkeys(COUNTS, 0)

    @admin.display(description="active", boolean=True, ordering="is_active")
    def active(self, obj):
        return obj.is_active

    @admin.display(description="consolidates", ordering="consolidate_interval_minutes")
    def consolidates_every(self, obj):
        return f"every {obj.consolidate_interval_minutes} min" if obj.always_on else "-"

    @admin.display(description="Live memories")
    def memory_count(self, obj):
        return self._counts(obj)["live"]

    @admin.display(description="Insights", ordering="insight_count")
    def insight_count(self, obj):
        return obj.insight_count

    @admin.display(description="Documents", ordering="document_count")
    def document_count(self, obj):
        return obj.document_count

    @admin.display(description="Turns waiting")
    def pending_messages(self, obj):
        return self._counts(obj)["waiting_turns"]

    @admin.display(description="Failed jobs")
    def failed_jobs(self, obj):
        return self._counts(obj)["jobs_failed"]
