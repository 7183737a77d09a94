"""What the memories app tells a bot's webhooks: the data of its events (memory created, superseded, retired; review
opened; user erased), each emitted through :func:`kbsite.webhooks.services.events_emit` in the transaction of the
change, so that a change rolled back tells no one. When no endpoint of the bot listens, one query is all it costs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from kbsite.models import EndUser, KnowledgeBase
from kbsite.webhooks.events import EventType
from kbsite.webhooks.services import event_emit, events_emit, listening
from memories.models import Memory, ReviewItem


def memories_created(memories: list[Memory]) -> None:
    """``memory.created`` for each of ``memories`` (just stored)."""
    _emit(EventType.MEMORY_CREATED, memories, _memories)


def memories_superseded(pairs: list[tuple[int, int]], *, reason: str) -> None:
    """``memory.superseded`` for each (retired id, replacing id) pair of an ingest's supersessions."""
    if not pairs:
        return
    by = dict(pairs)
    olders = list(Memory.objects.filter(pk__in=by).order_by("pk"))
    _emit(EventType.MEMORY_SUPERSEDED, olders, lambda rows: _superseded(rows, by, reason))


def memory_retired(memory: Memory) -> None:
    """``memory.superseded`` for a memory retired by a newer one (an edit, a review settled, a restore), else
    ``memory.retired`` (forgotten, retired by hand)."""
    if memory.superseded_by_id:
        by = {memory.pk: memory.superseded_by_id}
        _emit(EventType.MEMORY_SUPERSEDED, [memory], lambda rows: _superseded(rows, by, memory.retired_reason))
    else:
        _emit(EventType.MEMORY_RETIRED, [memory], _memories)


def memory_deleted(memory: Memory) -> None:
    """``memory.deleted`` for a memory about to be deleted for good: its id and whose it was, not its text (a
    receiver deletes its own copy)."""
    _emit(EventType.MEMORY_DELETED, [memory], _deleted)


def reviews_opened(items: list[ReviewItem]) -> None:
    """``review.opened`` for each review item (a supersession or a conflict) recorded. Items of a bulk insert
    have no id yet: they are read back by their pair (one recorded before, and kept, is told again)."""
    if items and items[0].pk is None:
        pairs = {(item.older_id, item.newer_id) for item in items}
        found = ReviewItem.objects.filter(kind=items[0].kind, older_id__in=[older for older, _ in pairs])
        items = [item for item in found.order_by("pk") if (item.older_id, item.newer_id) in pairs]
    _emit(EventType.REVIEW_OPENED, items, lambda rows: [_review(item) for item in rows])


def user_erased(*, bot_id: int, user_id_sha256: str, counts: dict) -> None:
    """``user.erased``: the SHA-256 of the user's id (the delivery log, like the erasure record, keeps no id of
    theirs) and what was erased."""
    event_emit(bot_id=bot_id, type=EventType.USER_ERASED, data={"user_id_sha256": user_id_sha256, "counts": counts})


def _emit(type: str, rows: list, build: Callable[[list], list[dict]]) -> None:
    """Emit an event of ``type`` per row (a memory, a review item: each of a KB) to its KB's bot, if that bot
    listens; ``build(rows)`` makes their data, the KB named in each."""
    if not rows:
        return
    kbs = {
        pk: (bot_id, name)
        for pk, bot_id, name in KnowledgeBase.objects.filter(pk__in={row.kb_id for row in rows}).values_list(
            "pk", "bot_id", "name"
        )
    }
    heard = listening(bot_ids={bot_id for bot_id, _ in kbs.values()}, type=type)
    by_bot: dict[int, list] = defaultdict(list)
    for row in rows:
        if kbs[row.kb_id][0] in heard:
            by_bot[kbs[row.kb_id][0]].append(row)
    for bot_id, theirs in by_bot.items():
        items = [{"kb": kbs[row.kb_id][1], **data} for row, data in zip(theirs, build(theirs), strict=True)]
        events_emit(bot_id=bot_id, type=type, items=items)


def _memories(memories: list[Memory]) -> list[dict]:
    """The data of each memory: what it says, whose it is (the bot's own id of the end user; None: shared)."""
    ids = {m.end_user_id for m in memories if m.end_user_id}
    user_ids = dict(EndUser.objects.filter(pk__in=ids).values_list("pk", "external_id")) if ids else {}
    return [
        {
            "memory": {
                "id": m.pk,
                "text": m.text,
                "kind": m.kind,
                "user_id": user_ids.get(m.end_user_id),
                "valid_from": m.valid_from,
                "quarantined": m.quarantined,
                "retired_reason": m.retired_reason,
            }
        }
        for m in memories
    ]


def _deleted(memories: list[Memory]) -> list[dict]:
    """The data of each deleted memory: which it was and whose, nothing it said."""
    return [{"memory": {"id": d["memory"]["id"], "user_id": d["memory"]["user_id"]}} for d in _memories(memories)]


def _superseded(memories: list[Memory], by: dict[int, int], reason: str) -> list[dict]:
    """The data of each retired memory, with the one that replaced it and why."""
    return [
        {**data, "superseded_by": by[m.pk], "reason": reason}
        for m, data in zip(memories, _memories(memories), strict=True)
    ]


def _review(item: ReviewItem) -> dict:
    return {
        "review": {"id": item.pk, "kind": item.kind, "older": item.older_id, "newer": item.newer_id},
        "reason": item.reason,
        "attribute": item.attribute,
    }
