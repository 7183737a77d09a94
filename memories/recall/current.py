"""What is current among the facts a block or an answer holds.

Two live facts of one scope may state different values of a one-valued attribute of one person (where they live,
where they work, their diet…) when nothing settled which holds: an open conflict, in the review queue until an
operator decides. Until then the newer is presented as current, and the older as what held earlier, until the
newer began.
"""

from __future__ import annotations

from datetime import datetime

from kbsite import languages
from kbsite.languages.reading import changes_of
from memories.ingest.changes import changes, mentions
from memories.ingest.statements import statement_read, values_agree
from memories.models import ReviewItem
from memories.recall.hits import Hit


def _when(hit: Hit) -> tuple:
    return (hit.valid_from or hit.created_at, hit.created_at, hit.id)


def earlier_values(hits: list[Hit]) -> dict[tuple[str, int], datetime | None]:
    """The hits (by type and id) that a newer one of them makes a thing of the past, each with when that newer one
    began: a newer statement of the same attribute with another value ("I live in Berlin now"), with the statements of
    its turn naming the old value; or a newer saying that a thing they mention has changed ("we sold the Clio", "I
    don't drink coffee anymore", "we pushed the trip to September")."""
    ordered = sorted(hits, key=_when)
    latest: dict[tuple[str, str], tuple[Hit, str]] = {}
    stated: list[tuple[Hit, str, str, str]] = []
    for hit in ordered:
        if hit.type != "memory":
            continue
        said = statement_read(hit.text, hit.language, hit.reading)
        for slot, value in said.slots.items():
            stated.append((hit, said.speaker, slot, value))
            latest[(said.speaker, slot)] = (hit, value)
    earlier: dict[tuple[str, int], datetime | None] = {}
    for hit, speaker, slot, value in stated:
        newest, newest_value = latest[(speaker, slot)]
        if newest.id != hit.id and not values_agree(newest_value, value):
            earlier[("memory", hit.id)] = until = newest.valid_from or newest.created_at
            for sibling in _naming_in_turn(ordered, hit, value):
                earlier.setdefault(("memory", sibling.id), until)
    for n, hit in enumerate(ordered):
        if hit.type != "memory":
            continue
        with languages.override(hit.language):  # a change is read, and compared, in its own language
            for change in changes_of(hit.reading) if hit.reading else changes(hit.text):
                for older in ordered[:n]:
                    if change.replaces(older.text):
                        earlier.setdefault((older.type, older.id), hit.valid_from or hit.created_at)
    return earlier


def _naming_in_turn(hits: list[Hit], replaced: Hit, value: str) -> list[Hit]:
    """The other statements of the turn ``replaced`` was cut from that name its replaced value ("Finished The Bear
    season 3." beside "my favourite show is still The Bear"): said with it, of it, they go with it, as the whole turn
    did when a memory was a turn."""
    value = value.removeprefix("not ")
    turn = _turn_of(replaced)
    if not turn or value in ("yes", "no"):
        return []
    return [
        h
        for h in hits
        if h.type == "memory"
        and h.id != replaced.id
        and _turn_of(h) == turn
        and mentions(h.text, frozenset(value.split()))
    ]


def _turn_of(hit: Hit) -> frozenset:
    """The turns a memory was drawn from (its sources), else the turn its hit was merged by; none: empty."""
    turns = frozenset((s.get("session_id"), s.get("external_id")) for s in hit.sources if s.get("type") == "message")
    return turns or (frozenset([hit.turn]) if hit.turn is not None else frozenset())


def conflicts_open(memory_ids: set[int]) -> dict[tuple[str, int], datetime | None]:
    """The memories among ``memory_ids`` that are the older side of an open conflict (found when the newer came in:
    a value stated otherwise, or a thing said to have ended), each with when the newer began, whether or not the
    newer is among them."""
    if not memory_ids:
        return {}
    rows = ReviewItem.objects.filter(
        older_id__in=memory_ids,
        kind=ReviewItem.Kind.CONFLICT,
        status=ReviewItem.Status.OPEN,
        newer__retired_at__isnull=True,
    ).values_list("older_id", "newer__valid_from", "newer__created_at")
    return {("memory", older): valid or created for older, valid, created in rows}


def held_earlier(hits: list[Hit]) -> dict[tuple[str, int], datetime | None]:
    """The hits (by type and id) shown as held earlier, with until when: the older side of an open conflict, or
    one a newer hit restates otherwise or says has changed; and an insight quoting one of those, or the older side of
    an open conflict that is not among the hits (an insight written after the conflict was found would put the old
    value back as current)."""
    quoted = {
        hit.id: [("memory", s["memory_id"]) for s in hit.sources if s.get("type") == "memory"]
        for hit in hits
        if hit.type == "insight"
    }
    shown = {pk for h in hits if h.type == "memory" for pk in h.ids}
    # One query for both: the memories among the hits, and those the insights quote.
    conflicts = conflicts_open(shown | {pk for keys in quoted.values() for _, pk in keys})
    earlier = {**{key: until for key, until in conflicts.items() if key[1] in shown}, **earlier_values(hits)}
    for pk, keys in quoted.items():
        if past := [key for key in keys if key in earlier or key in conflicts]:
            earlier.setdefault(("insight", pk), earlier.get(past[0]) or conflicts.get(past[0]))
    return earlier
