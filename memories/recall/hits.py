"""What recall returns: a hit per memory or insight.

A hit per memory or insight, loaded with what ranking and packing need, its sources added once it is packed.

Rows are read as plain values, their times as integer microseconds since the epoch: psycopg's timestamp loader,
as Django registers it, parses each time in Python, and the two times of a recall's hundred-odd candidates cost a
tenth of its time in a small KB.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.db.models.expressions import RawSQL

from kbsite.replicas import reads
from memories.selectors import sources_of

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# What ranking and packing need of a memory (its sources are loaded for the packed hits only).
HIT_FIELDS = (
    "id", "kb_id", "text", "kind", "entities", "created_us", "valid_us", "language", "reading", "end_user_id"
)  # fmt: skip


def _micros(column: str) -> str:
    return f"(extract(epoch from {column}) * 1000000)::bigint"


MEMORY_HITS_SQL = f"""
    SELECT id, kb_id, text, kind, entities, {_micros("created_at")}, {_micros("valid_from")}, language, reading,
        end_user_id, CASE WHEN mode = 'heuristic' THEN
            (SELECT min(l.message_id) FROM memories_memory_source_messages l WHERE l.memory_id = memories_memory.id)
        END
    FROM memories_memory WHERE id = ANY(%s)"""
# An insight with the span of what its memories were said (see Hit.span).
INSIGHT_HITS_SQL = f"""
    SELECT i.id, i.kb_id, i.text, {_micros("i.created_at")}, i.language,
        {_micros("min(coalesce(m.valid_from, m.created_at))")}, {_micros("max(coalesce(m.valid_from, m.created_at))")}
    FROM memories_insight i
    LEFT JOIN memories_insight_memories l ON l.insight_id = i.id LEFT JOIN memories_memory m ON m.id = l.memory_id
    WHERE i.id = ANY(%s) GROUP BY i.id"""


def at(micros: int | None) -> datetime | None:
    """A time read as microseconds since the epoch."""
    return None if micros is None else EPOCH + timedelta(microseconds=micros)


@dataclass
class Hit:
    """One recalled memory or insight."""

    id: int
    type: str  # "memory" | "insight" | "turn" (memories.recall.turns)
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
    # Offline statements of one turn (see merged_by_turn): the turn's message id, and the statements joined in.
    turn: int | None = None
    parts: list[tuple[int, str]] = field(default_factory=list)
    language: str = ""  # the code of the language it is in, as told when it came in
    # A memory's reading (what it states and says has changed, read once at ingest) as stored: parsed when first
    # read (memories.recall.current, answer_ranking), since recall's ranking does not read it (1.5 ms a recall).
    stored_reading: dict | str | None = field(default=None, repr=False)
    end_user: int | None = None  # a memory's end user (None: shared, about anyone)
    follows: int | None = None  # a later statement about the same thing: the id of the hit it came with
    # An insight's: when the first and the last of its memories were said (it may quote what has changed since).
    span: tuple[datetime, datetime] | None = None

    @property
    def reading(self) -> dict:
        if not isinstance(self.stored_reading, dict):
            self.stored_reading = _json(self.stored_reading)
        return self.stored_reading

    @property
    def ids(self) -> list[int]:
        """Every memory the hit holds: itself, and the statements of its turn joined in (a turn: none)."""
        if self.type == "turn":
            return []
        return list(dict.fromkeys([self.id, *(pk for pk, _ in self.parts)]))

    @property
    def subject(self) -> str:
        return self.entities[0] if self.entities else ""

    @property
    def ref(self) -> str:
        return f"{self.type[0]}{self.id}"


def hit_rows(queryset, *extra: str):
    """``queryset``'s memories as rows for :func:`memory_hit` (values of HIT_FIELDS, and of the ``extra`` fields)."""
    return queryset.annotate(
        created_us=RawSQL(_micros("memories_memory.created_at"), ()),
        valid_us=RawSQL(_micros("memories_memory.valid_from"), ()),
    ).values(*HIT_FIELDS, *extra)


def hits_load(keys, kb_names: dict[int, str]) -> dict[tuple[str, int], Hit]:
    """The candidates' text and kind, enough to rank and pack them; sources come after packing."""
    memory_ids = [pk for t, pk in keys if t == "memory"]
    insight_ids = [pk for t, pk in keys if t == "insight"]
    hits: dict[tuple[str, int], Hit] = {}
    with reads.cursor() as cursor:
        if memory_ids:
            cursor.execute(MEMORY_HITS_SQL, [memory_ids])
            for *row, turn in cursor.fetchall():
                hit = memory_hit(dict(zip(HIT_FIELDS, row, strict=True)), kb_names)
                hit.turn = turn
                hits[("memory", hit.id)] = hit
        if insight_ids:
            cursor.execute(INSIGHT_HITS_SQL, [insight_ids])
            for pk, kb_id, text, created_us, language, first_us, last_us in cursor.fetchall():
                hits[("insight", pk)] = Hit(
                    id=pk,
                    type="insight",
                    text=text,
                    language=language,
                    kind="insight",
                    created_at=at(created_us),
                    kb=kb_names.get(kb_id, ""),
                    span=(at(first_us), at(last_us)) if first_us is not None else None,
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
        created_at=at(row["created_us"]),
        valid_from=at(row["valid_us"]),
        kb=kb_names.get(row["kb_id"], ""),
        language=row["language"],
        stored_reading=row["reading"],
        end_user=row["end_user_id"],
    )


def _json(value) -> dict:
    """A jsonb value as read: a dict through the ORM, its text through a raw cursor (Django leaves it unparsed)."""
    return json.loads(value) if isinstance(value, str) else value or {}


def sources_attach(hits: list[Hit]) -> None:
    """Provenance of the packed hits only: a memory's messages or document chunk, an insight's memories."""
    memory_hits = {h.id: h for h in hits if h.type == "memory"}
    insight_hits = {h.id: h for h in hits if h.type == "insight"}
    for pk, sources in sources_of(list(memory_hits)).items():
        memory_hits[pk].sources = sources
    if insight_hits:
        with reads.cursor() as cursor:
            cursor.execute(
                "SELECT insight_id, memory_id FROM memories_insight_memories WHERE insight_id = ANY(%s) ORDER BY id",
                [list(insight_hits)],
            )
            for insight_id, memory_id in cursor.fetchall():
                insight_hits[insight_id].sources.append({"type": "memory", "memory_id": memory_id})


def merged_by_turn(hits: list[Hit]) -> list[Hit]:
    """Ranked hits where the offline statements of one turn found together are one hit, at the best one's rank
    (their scores summed ranked worse on LoCoMo: R@5 0.543 against 0.615): its text the statements in the turn's
    order (the speaker named once), so that one thing said takes one place of ``k`` and the budget holds what the
    turn said of the question, as it did when a memory was a whole turn."""
    first: dict[int, Hit] = {}
    out: list[Hit] = []
    for hit in hits:
        if hit.type != "memory" or hit.turn is None:
            out.append(hit)
            continue
        head = first.get(hit.turn)
        if head is None:
            first[hit.turn] = hit
            hit.parts = [(hit.id, hit.text)]
            out.append(hit)
            continue
        head.parts = sorted([*head.parts, (hit.id, hit.text)])
        head.signals = list(dict.fromkeys(head.signals + hit.signals))
        head.text = joined_text(head.parts)
    return out


def joined_text(parts: list[tuple[int, str]]) -> str:
    """Statements of one turn as one text, its speaker named once."""
    speaker, _, _ = parts[0][1].partition(": ")
    prefix = f"{speaker}: " if speaker and all(text.startswith(f"{speaker}: ") for _, text in parts) else ""
    return prefix + " ".join(text[len(prefix) :] for _, text in parts)
