"""What is current among the facts a block or an answer holds.

Two live facts of one scope may state different values of a one-valued attribute of one person (where they live,
where they work, their diet…) when nothing settled which holds: an open conflict, in the review queue until an
operator decides. Until then the newer is presented as current, and the older as what held earlier, until the
newer began.
"""

from __future__ import annotations

import re
from datetime import datetime

from memories.ingest.statements import ended, statement, values_agree
from memories.models import ReviewItem
from memories.recall.hits import Hit


def _when(hit: Hit) -> tuple:
    return (hit.valid_from or hit.created_at, hit.created_at, hit.id)


def earlier_values(hits: list[Hit]) -> dict[tuple[str, int], datetime | None]:
    """The hits (by type and id) that a newer one of them makes a thing of the past, each with when that newer one
    began: a newer statement of the same attribute with another value ("I live in Berlin now"), or a newer saying
    that a thing they mention has ended ("we sold the Clio", "I don't drink coffee anymore")."""
    ordered = sorted(hits, key=_when)
    latest: dict[tuple[str, str], tuple[Hit, str]] = {}
    stated: list[tuple[Hit, str, str, str]] = []
    for hit in ordered:
        if hit.type != "memory":
            continue
        said = statement(hit.text)
        for slot, value in said.slots.items():
            stated.append((hit, said.speaker, slot, value))
            latest[(said.speaker, slot)] = (hit, value)
    earlier: dict[tuple[str, int], datetime | None] = {}
    for hit, speaker, slot, value in stated:
        newest, newest_value = latest[(speaker, slot)]
        if newest.id != hit.id and not values_agree(newest_value, value):
            earlier[("memory", hit.id)] = newest.valid_from or newest.created_at
    for n, hit in enumerate(ordered):
        for thing in ended(hit.text) if hit.type == "memory" else ():
            for older in ordered[:n]:
                if _mentions(older.text, thing) and not ended(older.text):
                    earlier.setdefault((older.type, older.id), hit.valid_from or hit.created_at)
    return earlier


def conflicts_open(hits: list[Hit]) -> dict[tuple[str, int], datetime | None]:
    """The memories among ``hits`` that are the older side of an open conflict (found when the newer came in: a
    value stated otherwise, or a thing said to have ended), each with when the newer began, whether or not the
    newer is among them."""
    ids = {pk for h in hits if h.type == "memory" for pk in h.ids}
    if not ids:
        return {}
    rows = ReviewItem.objects.filter(
        older_id__in=ids, kind=ReviewItem.Kind.CONFLICT, status=ReviewItem.Status.OPEN, newer__retired_at__isnull=True
    ).values_list("older_id", "newer__valid_from", "newer__created_at")
    return {("memory", older): valid or created for older, valid, created in rows}


def _mentions(text: str, thing: frozenset[str]) -> bool:
    """Whether ``text`` names every word of ``thing``, or a longer word it begins ("fuji": "Fujifilm")."""
    words = _words(text)
    return all(w in words or (len(w) >= 4 and any(o.startswith(w) for o in words)) for w in thing)


def held_earlier(hits: list[Hit]) -> dict[tuple[str, int], datetime | None]:
    """The hits (by type and id) shown as held earlier, with until when: the older side of an open conflict, or
    one a newer hit restates otherwise or says has ended."""
    return {**conflicts_open(hits), **earlier_values(hits)}


def _words(text: str) -> frozenset[str]:
    return frozenset(re.sub(r"'s$", "", w) for w in re.findall(r"[\w']+", text.lower().replace("’", "'")))
