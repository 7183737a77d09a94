"""Admin of the review queue: each supersession and open conflict with both facts, their dates and source turns, and
accept, revert or keep both in one click."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from kbsite.operators import OperatedAdmin
from memories.models import Memory, Message, ReviewItem
from memories.reviews import services

SETTLE = {
    "accept": (services.review_accept, "Accept"),
    "revert": (services.review_revert, "Revert"),
    "keep-both": (services.review_keep_both, "Keep both"),
}


class OpenFilter(admin.SimpleListFilter):
    """The open items by default: what waits for a decision."""

    title = "status"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("open", "Open"), *[(v, t.capitalize()) for v, t in ReviewItem.Status.choices[1:]], ("all", "All")]

    def choices(self, changelist):
        for value, title in self.lookup_choices:
            yield {
                "selected": (self.value() or "open") == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": title,
            }

    def queryset(self, request, queryset):
        value = self.value() or "open"
        return queryset if value == "all" else queryset.filter(status=value)


@admin.register(ReviewItem)
class ReviewItemAdmin(OperatedAdmin):
    list_display = ["kind", "older_fact", "newer_fact", "end_user", "kb", "created_at", "decide"]
    list_filter = [OpenFilter, "kind", "kb__bot", "kb"]
    list_select_related = ["kb__bot", "end_user", "older", "newer"]
    search_fields = ["older__text", "newer__text", "end_user__external_id", "attribute"]
    ordering = ["-created_at", "-id"]
    fields = [
        "kind", "status", "kb", "end_user", "attribute", "reason", "older_fact", "newer_fact", "created_at", "decide",
    ]  # fmt: skip
    readonly_fields = fields + ["resolved_at", "resolved_by"]
    actions = ["accept_selected", "revert_selected"]

    def get_queryset(self, request):
        turns = Message.objects.select_related("session")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(
                Prefetch("older__source_messages", queryset=turns), Prefetch("newer__source_messages", queryset=turns)
            )
        )

    def has_add_permission(self, request):
        return False  # the product records them

    def has_delete_permission(self, request, obj=None):
        return False  # settled, never removed: they are the history of what was decided

    @admin.display(description="older fact")
    def older_fact(self, item):
        return _fact(item.older)

    @admin.display(description="newer fact")
    def newer_fact(self, item):
        return _fact(item.newer)

    @admin.display(description="decide")
    def decide(self, item):
        """One button per decision. Each posts the page's own form (the list's, or the item's page's: a form may not
        hold another, and the browser drops one nested in it) to its decision's URL, with the form's CSRF token."""
        if item.status != ReviewItem.Status.OPEN:
            return format_html("{} by {}", item.get_status_display(), item.resolved_by or "?")
        return format_html_join(
            " ",
            '<button type="submit" class="button" formaction="{}" formmethod="post" formnovalidate>{}</button>',
            (
                (reverse(f"admin:memories_reviewitem_{name}", args=[item.pk]), label)
                for name, (_, label) in SETTLE.items()
            ),
        )

    @admin.action(description="Accept the selected review items")
    def accept_selected(self, request, queryset):
        self._settle_many(request, queryset, "accept")

    @admin.action(description="Revert the selected review items")
    def revert_selected(self, request, queryset):
        self._settle_many(request, queryset, "revert")

    def _settle_many(self, request, queryset, name: str) -> None:
        settle, label = SETTLE[name]
        done = skipped = 0
        for item in queryset.filter(status=ReviewItem.Status.OPEN):
            try:
                settle(item=item, by=f"operator {request.user.get_username()}")
                done += 1
            except services.ReviewClosed:
                skipped += 1
        self.message_user(request, f"{label}: {done} review items settled; {skipped} were settled already.")

    def get_urls(self):
        own = [
            path(
                f"<int:pk>/{name}/", self.admin_site.admin_view(self._settle(name)), name=f"memories_reviewitem_{name}"
            )
            for name in SETTLE
        ]
        return own + super().get_urls()

    def _settle(self, name: str):
        settle, label = SETTLE[name]

        @require_POST
        def view(request, pk: int):
            if not self.has_change_permission(request):
                raise PermissionDenied
            item = get_object_or_404(self.get_queryset(request), pk=pk)
            try:
                settle(item=item, by=f"operator {request.user.get_username()}")
            except services.ReviewClosed as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, f"{label}: review item {pk} settled.", messages.SUCCESS)
            return redirect(_back(request))

        return view


def _fact(memory: Memory):
    """The fact, whether it is live, when it held, and the turns it came from (linked)."""
    turns = format_html_join(
        ", ",
        '<a href="{}">{}</a>',
        (
            (reverse("admin:memories_message_change", args=[m.pk]), f"{m.session.external_id}/{m.external_id}")
            for m in memory.source_messages.all()
        ),
    )
    held = f"{memory.valid_from:%Y-%m-%d}" if memory.valid_from else f"{memory.created_at:%Y-%m-%d}"
    until = f" until {memory.valid_to:%Y-%m-%d}" if memory.valid_to else ""
    return format_html(
        '<a href="{}">{}</a><br><small>{} · from {}{}{}</small>',
        reverse("admin:memories_memory_change", args=[memory.pk]),
        memory.text[:300],
        "live" if memory.is_live else "retired",
        held,
        until,
        format_html(" · turns: {}", turns) if turns else "",
    )


def _back(request) -> str:
    """Where a settled review returns: the admin page it was settled from, never another site (the Referer is the
    client's to say)."""
    back = request.META.get("HTTP_REFERER", "")
    if back and url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        return back
    return reverse("admin:memories_reviewitem_changelist")
