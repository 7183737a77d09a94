"""Review items settled: an operator's accept, revert or keep both."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memories.models import ReviewItem
from memories.services import memory_restore, memory_retire

ACCEPTED_CONFLICT = "superseded by a newer fact (accepted in review)"
REVERTED = "reverted in review: the older fact stands"


class ReviewClosed(Exception):
    """The review item was settled already."""


def _close(item: ReviewItem, status: str, by: str) -> ReviewItem:
    """Lock the item and mark it settled; raises ReviewClosed when it was settled already."""
    row = ReviewItem.objects.select_for_update().get(pk=item.pk)
    if row.status != ReviewItem.Status.OPEN:
        raise ReviewClosed(f"review item {row.pk} is {row.get_status_display()} already")
    row.status, row.resolved_at, row.resolved_by = status, timezone.now(), by[:200]
    row.save(update_fields=["status", "resolved_at", "resolved_by"])
    return row


def review_accept(*, item: ReviewItem, by: str) -> ReviewItem:
    """Accept: a supersession stays as it is; of a conflict, the newer fact stands and the older is retired by
    it."""
    with transaction.atomic():
        row = _close(item, ReviewItem.Status.ACCEPTED, by)
        if row.kind == ReviewItem.Kind.CONFLICT:
            memory_retire(memory=row.older, reason=ACCEPTED_CONFLICT, superseded_by=row.newer)
    return row


def review_revert(*, item: ReviewItem, by: str) -> ReviewItem:
    """Revert: the older fact is live again and the newer is retired (by it)."""
    with transaction.atomic():
        row = _close(item, ReviewItem.Status.REVERTED, by)
        if not row.older.is_live:
            memory_restore(memory=row.older)  # retires its replacement, if that is the newer and still live
        row.newer.refresh_from_db()
        if row.newer.is_live:
            memory_retire(memory=row.newer, reason=REVERTED, superseded_by=row.older)
    return row


def review_keep_both(*, item: ReviewItem, by: str) -> ReviewItem:
    """Keep both: both facts are live (a superseded one is restored, its replacement left live)."""
    with transaction.atomic():
        row = _close(item, ReviewItem.Status.KEPT_BOTH, by)
        if not row.older.is_live:
            memory_restore(memory=row.older, replacement_stays=True)
    return row
