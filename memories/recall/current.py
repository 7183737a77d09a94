"""What is current among the facts a block or an answer holds.

Two live facts of one scope may state different values of a one-valued attribute of one person (where they live,
where they work, their diet…) when nothing settled which holds: an open conflict, in the review queue until an
operator decides. Until then the newer is presented as current, and the older as what held earlier, until the
newer began.
"""

from __future__ import annotations

from datetime import datetime

from memories.ingest.statements import statement, values_agree
from memories.recall.hits import Hit


def _when(hit: Hit) -> tuple:
    return (hit.valid_from or hit.created_at, hit.created_at, hit.id)


def earlier_values(hits: list[Hit]) -> dict[int, datetime | None]:
    """The memories among ``hits`` that a newer one of them restates otherwise, each with when that newer one
    began (its valid time)."""
    latest: dict[tuple[str, str], tuple[Hit, str]] = {}
    stated: list[tuple[Hit, str, str, str]] = []
    for hit in sorted((h for h in hits if h.type == "memory"), key=_when):
        said = statement(hit.text)
        for slot, value in said.slots.items():
            stated.append((hit, said.speaker, slot, value))
            latest[(said.speaker, slot)] = (hit, value)
    earlier: dict[int, datetime | None] = {}
    for hit, speaker, slot, value in stated:
        newest, newest_value = latest[(speaker, slot)]
        if newest.id != hit.id and not values_agree(newest_value, value):
            earlier[hit.id] = newest.valid_from or newest.created_at
    return earlier
