"""Admin of the bots' end users: what is held about each (counts, with links to their rows), and their data rights
for operators: export as JSON Lines, and erasure after a confirmation page listing what will go."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from kbsite.admin import JobRunAdmin
from kbsite.keys import key_issue
from kbsite.models import EndUser, Erasure, KnowledgeBase
from kbsite.operators import OperatedAdmin, operated
from memories import rights
from memories.recall.context import profile_facts

# The changelists of an end user's rows, by what erasure calls them, and the lookup that lists the user's own.
ROW_PAGES = {
    "turns": ("admin:memories_message_changelist", "session__end_user__id__exact"),
    "sessions": ("admin:memories_session_changelist", "end_user__id__exact"),
    "memories": ("admin:memories_memory_changelist", "end_user__id__exact"),
    "insights": ("admin:memories_insight_changelist", "end_user__id__exact"),
    "documents": ("admin:knowledge_document_changelist", "end_user__id__exact"),
    "ingest_items": ("admin:memories_ingestitem_changelist", "end_user__id__exact"),
    "job_runs": ("admin:kbsite_jobrun_changelist", "end_user"),
}


# One of each kind of row held ("1 session", not "1 sessions").
SINGULAR = {"memories": "memory", "entities": "entity"}


def _counted(n: int, kind: str) -> str:
    """``n`` rows of ``kind`` (erasure's name, "ingest_items"), as a person writes it: "1 ingest item", "2 turns"."""
    plural = kind.replace("_", " ")
    return f"{n} {plural if n != 1 else SINGULAR.get(kind, plural.removesuffix('s'))}"


class EndUserRunsFilter(admin.SimpleListFilter):
    """The job runs that worked on one end user's data (the link "N job runs" on their page), shown while it is set:
    of an end user of the bots the operator may see only."""

    title = "end user"
    parameter_name = "end_user"

    def lookups(self, request, model_admin):
        value = str(self.value() or "")
        user = operated(EndUser.objects.filter(pk=value), request.user).first() if value.isdigit() else None
        self.end_user = user
        return [(str(user.pk), user.external_id)] if user else []

    def queryset(self, request, queryset):
        if not self.lookup_choices:
            return queryset
        return queryset.filter(pk__in=rights.runs_about(self.end_user).values("pk"))


# The job runs' list (kbsite's) filters by end user too: the runs that worked on their data are found from here.
JobRunAdmin.list_filter = [*JobRunAdmin.list_filter, EndUserRunsFilter]


@admin.register(EndUser)
class EndUserAdmin(OperatedAdmin):
    """The bots' end users, as the bots name them (``user_id``), with what is held about each."""

    list_display = ["external_id", "bot", "sessions", "turns", "memories", "documents", "last_seen_at"]
    list_filter = ["bot"]
    list_select_related = ["bot"]
    search_fields = ["external_id"]
    readonly_fields = ["bot", "external_id", "created_at", "last_seen_at", "profile", "held", "keys", "rights"]
    fields = readonly_fields
    actions = ["issue_key"]

    def get_queryset(self, request):
        return rights.users_annotated(super().get_queryset(request))

    def has_add_permission(self, request):
        return False  # a bot names its users; they are not made up here

    def has_delete_permission(self, request, obj=None):
        return False  # erasure (below) removes their rows and files and keeps an audit record; a delete would not

    @admin.display(description="sessions", ordering="n_sessions")
    def sessions(self, obj):
        return obj.n_sessions

    @admin.display(description="turns", ordering="n_turns")
    def turns(self, obj):
        return obj.n_turns

    @admin.display(description="memories", ordering="n_memories")
    def memories(self, obj):
        return obj.n_memories

    @admin.display(description="documents", ordering="n_documents")
    def documents(self, obj):
        return obj.n_documents

    @admin.display(description="profile")
    def profile(self, obj):
        """What the context block puts at its top for this user (each fact links to its page, where an edit, a
        change of kind or a retirement changes the profile)."""
        kbs = KnowledgeBase.objects.filter(bot_id=obj.bot_id, always_on=True, is_active=True)
        facts = profile_facts(list(kbs), obj.pk, settings.PROFILE_CHARS, {kb.pk: kb.name for kb in kbs})
        if not facts:
            return "- (no live fact of kind user profile or preference)"
        return format_html_join(
            "",
            '<div><a href="{}">#{}</a> {} <span class="quiet">({})</span></div>',
            ((reverse("admin:memories_memory_change", args=[h.id]), h.id, h.text, h.kind) for h in facts),
        )

    @admin.display(description="held about them")
    def held(self, obj):
        holdings = rights.Holdings.of(obj)
        # The runs that worked on their data, shared ones too (erasure removes those naming them only).
        counts = {**holdings.counts(), "job_runs": rights.runs_about(obj).count()}
        rows = [
            format_html(
                '<a href="{}?{}={}{}">{}</a>',
                reverse(ROW_PAGES[kind][0]),
                ROW_PAGES[kind][1],
                obj.pk,
                "&status=all" if kind == "memories" else "",  # the count holds the retired ones too
                _counted(n, kind),
            )
            if kind in ROW_PAGES
            else _counted(n, kind)
            for kind, n in counts.items()
        ]
        return format_html_join(", ", "{}", ((row,) for row in rows))

    @admin.display(description="API keys")
    def keys(self, obj):
        """The user's own keys (each acts as this user only), with links to revoke them."""
        keys = obj.api_keys.order_by("-created_at")
        if not keys:
            return "- (none: the bot's keys act for this user; issue one with the list's action)"
        return format_html_join(
            "",
            '<div><a href="{}">{}…</a> {} <span class="quiet">(created {}{})</span></div>',
            (
                (
                    reverse("admin:kbsite_apikey_change", args=[key.pk]),
                    key.prefix,
                    key.name,
                    f"{key.created_at:%Y-%m-%d}",
                    f", revoked {key.revoked_at:%Y-%m-%d}" if key.revoked_at else "",
                )
                for key in keys
            ),
        )

    @admin.action(description="Issue an API key of each selected user (shown once)")
    def issue_key(self, request, queryset):
        """A key that acts as the user and only as them, for a client of their own (an app, an MCP client)."""
        for user in queryset.select_related("bot"):
            _, plain = key_issue(user.bot, name="issued in admin", end_user=user)
            self.message_user(
                request, f"New API key of end user {user.external_id} (shown once): {plain}", level=messages.WARNING
            )

    @admin.display(description="data rights")
    def rights(self, obj):
        return format_html(
            '<a class="button" href="{}?end_user={}">Dashboard</a> &nbsp; '
            '<a class="button" href="{}">Export (JSON Lines)</a> &nbsp; <a class="button" href="{}">Erase…</a>',
            reverse("admin:index"),
            obj.pk,
            reverse("admin:kbsite_enduser_export", args=[obj.pk]),
            reverse("admin:kbsite_enduser_erase", args=[obj.pk]),
        )

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<int:pk>/export/", view(self.export_view), name="kbsite_enduser_export"),
            path("<int:pk>/erase/", view(self.erase_view), name="kbsite_enduser_erase"),
            *super().get_urls(),
        ]

    def export_view(self, request, pk: int):
        """Everything held about the user, as JSON Lines (the API's export)."""
        user = get_object_or_404(self.get_queryset(request), pk=pk)
        kbs = list(KnowledgeBase.objects.filter(bot=user.bot).order_by("name"))
        response = StreamingHttpResponse(
            rights.json_lines(rights.records(kbs=kbs, end_user=user)), content_type="application/x-ndjson"
        )
        response["Content-Disposition"] = f'attachment; filename="{user.bot.name}-user-{user.pk}.jsonl"'
        return response

    def erase_view(self, request, pk: int):
        """A page listing what erasure will remove; erasing on its confirmation."""
        user = get_object_or_404(self.get_queryset(request), pk=pk)
        if not self.has_change_permission(request, user):
            return redirect("admin:kbsite_enduser_change", pk)
        if request.method == "POST" and request.POST.get("confirm") == "yes":
            counts = rights.user_erase(end_user=user, erased_by=f"operator {request.user.get_username()!r}")
            removed = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in counts.items() if n)
            self.message_user(request, f"End user {user.external_id} erased: {removed or 'nothing was held'}.")
            return redirect("admin:kbsite_enduser_changelist")
        holdings = rights.Holdings.of(user)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Erase end user {user.external_id}?",
            "opts": self.model._meta,
            "end_user": user,
            "counts": {kind.replace("_", " "): n for kind, n in holdings.counts().items()},
            "folders": holdings.folders,
        }
        return TemplateResponse(request, "admin/kbsite/enduser/erase_confirmation.html", context)


@admin.register(Erasure)
class ErasureAdmin(OperatedAdmin):
    """Audit records of erased end users: who asked, when, how many rows; the user's id only as its SHA-256."""

    list_display = ["erased_at", "bot", "user_id_sha256", "erased_by", "counts"]
    list_filter = ["bot"]
    search_fields = ["user_id_sha256"]
    readonly_fields = ["bot", "user_id_sha256", "erased_by", "counts", "erased_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
