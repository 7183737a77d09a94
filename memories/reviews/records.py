"""Review items recorded: a supersession as it happens, an open conflict as it is found."""

from __future__ import annotations

from memories import webhooks
from memories.models import Memory, ReviewItem


def supersession_reviews(pairs: list[tuple[int, int]], *, reason: str, attribute: str = "") -> int:
    """Record supersessions for review: each (older id, newer id) pair, the older retired by the newer (restating
    ``attribute``, where known). A pair recorded before is not recorded again. Returns how many were recorded."""
    if not pairs:
        return 0
    olders = Memory.objects.in_bulk([old for old, _ in pairs])
    items = [
        ReviewItem(
            kb_id=olders[old].kb_id,
            end_user_id=olders[old].end_user_id,
            kind=ReviewItem.Kind.SUPERSESSION,
            older_id=old,
            newer_id=new,
            reason=reason[:200],
            attribute=attribute[:100],
        )
        for old, new in pairs
        if old in olders
    ]
    recorded = ReviewItem.objects.bulk_create(items, ignore_conflicts=True)
    webhooks.reviews_opened(recorded)
    return len(recorded)


def conflict_open(*, older: Memory, newer: Memory, attribute: str) -> bool:
    """Open a conflict between two live facts of one scope stating different values of ``attribute``, unless one
    is open or was settled for that pair. Returns whether one was opened."""
    item, created = ReviewItem.objects.get_or_create(
        older=older,
        newer=newer,
        kind=ReviewItem.Kind.CONFLICT,
        defaults={"kb_id": newer.kb_id, "end_user_id": newer.end_user_id, "attribute": attribute[:100]},
    )
    webhooks.reviews_opened([item] if created else [])
    return created
