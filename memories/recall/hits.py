"""What recall returns: a hit per memory or insight.

A hit per memory or insight, loaded with what ranking and packing need, its sources added once it is packed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memories.models import Insight, Memory

# What ranking and packing need of a memory (its sources are loaded for the packed hits only).
HIT_FIELDS = ("id", "kb_id", "text", "kind", "created_at", "valid_from", "entities")


@dataclass
class Hit:
    """One recalled memory or insight."""

    id: int
    type: str  # "memory" | "insight"
    text: str
    kind: str
    score: float = 0.0
    signals: list[str] = field(default_factory=list)
    sources: list[dict] = field(default_factory=list)
    created_at: datetime | None = None
    valid_from: datetime | None = None
    similarity: float | None = None
    kb: str = ""
    entities: list[str] = field(default_factory=list)  # a memory's; the first is who it is about

    @property
    def subject(self) -> str:
        return self.entities[0] if self.entities else ""

    @property
    def ref(self) -> str:
        return f"{'m' if self.type == 'memory' else 'i'}{self.id}"


def hits_load(keys, kb_names: dict[int, str]) -> dict[tuple[str, int], Hit]:
    """The candidates' text and kind, enough to rank and pack them; sources come after packing."""
    memory_ids = [pk for t, pk in keys if t == "memory"]
    insight_ids = [pk for t, pk in keys if t == "insight"]
    hits: dict[tuple[str, int], Hit] = {}
    for row in Memory.objects.filter(pk__in=memory_ids).values(*HIT_FIELDS):
        hits[("memory", row["id"])] = memory_hit(row, kb_names)
    for pk, kb_id, text, created_at in Insight.objects.filter(pk__in=insight_ids).values_list(
        "id", "kb_id", "text", "created_at"
    ):
        hits[("insight", pk)] = Hit(
            id=pk, type="insight", text=text, kind="insight", created_at=created_at, kb=kb_names.get(kb_id, "")
        )
    return hits


def memory_hit(row: dict, kb_names: dict[int, str]) -> Hit:
    """A Hit from a row of HIT_FIELDS (plain values: building model instances costs more than the query)."""
    return Hit(
        entities=row["entities"] or [],
        id=row["id"],
        type="memory",
        text=row["text"],
        kind=row["kind"],
        created_at=row["created_at"],
        valid_from=row["valid_from"],
        kb=kb_names.get(row["kb_id"], ""),
    )


def sources_attach(hits: list[Hit]) -> None:
    """Provenance of the packed hits only: a memory's messages or document chunk, an insight's memories."""
    memory_hits = {h.id: h for h in hits if h.type == "memory"}
    insight_hits = {h.id: h for h in hits if h.type == "insight"}
    if memory_hits:
        for pk, sources in Memory.objects.filter(pk__in=list(memory_hits)).sources_by_id().items():
            memory_hits[pk].sources = sources
    if insight_hits:
        links = Insight.memories.through.objects.filter(insight_id__in=list(insight_hits)).order_by("id")
        for insight_id, memory_id in links.values_list("insight_id", "memory_id"):
            insight_hits[insight_id].sources.append({"type": "memory", "memory_id": memory_id})
