"""The turns searched beside their facts: with an LLM, a fact keeps the digest and its turn the detail.

An extraction in LLM mode embeds the user turns it read (memories.ingest.apply); recall then ranks them as a third
list beside the memories and insights. A turn and a fact drawn from it are one entry: the fact shown, scored as
both (found twice, it ranks above either alone), the turn cited (it is among the fact's sources); a turn that no
fact found beside it covers is an entry of its own, its text the turn as said. A turn that a retired or
quarantined fact was drawn from is not searched at all (see Scope.turns), so a superseded statement never comes
back as current through its turn. The turns right before and after the best turns found are fused in as the
memories' are (neighbours.turn_context).
Offline, memories are the turns' own statements already: no turn is embedded and nothing here runs.
"""

from __future__ import annotations

import time

from kbsite.replicas import reads
from memories.recall.hits import Hit, at

TURN_HITS_SQL = """
    SELECT m.id, m.kb_id, m.speaker, m.content, (extract(epoch from m.created_at) * 1000000)::bigint,
        s.external_id, m.external_id, m.language
    FROM memories_message m JOIN memories_session s ON s.id = m.session_id
    WHERE m.id = ANY(%s)"""

# Whether KBs have searched turns, per process: once they have, for good; until then, asked again after a while.
_searched: dict[tuple[int, ...], float] = {}
UNSEARCHED_SECONDS = 30


def turns_searched(kb_ids: tuple[int, ...]) -> bool:
    """Whether any of the KBs has searched turns (an LLM extraction embedded some): only then is their list
    searched, so that an offline recall costs nothing more."""
    until = _searched.get(kb_ids)
    if until is not None and (until == float("inf") or until > time.monotonic()):
        return until == float("inf")
    with reads.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM memories_message WHERE kb_id = ANY(%s) AND embedding IS NOT NULL)",
            [list(kb_ids)],
        )
        found = cursor.fetchone()[0]
    _searched[kb_ids] = float("inf") if found else time.monotonic() + UNSEARCHED_SECONDS
    return found


def turn_hits_load(ids: list[int], kb_names: dict[int, str]) -> dict[tuple[str, int], Hit]:
    """The candidate turns as hits: the turn as said (its speaker named), dated when it was said, about its speaker,
    with the turn itself as source."""
    if not ids:
        return {}
    with reads.cursor() as cursor:
        cursor.execute(TURN_HITS_SQL, [ids])
        rows = cursor.fetchall()
    hits = {}
    for pk, kb_id, speaker, content, created_us, session, external_id, language in rows:
        hits[("turn", pk)] = Hit(
            id=pk,
            type="turn",
            text=f"{speaker}: {content}" if speaker else content,
            kind="turn",
            created_at=at(created_us),
            valid_from=at(created_us),
            kb=kb_names.get(kb_id, ""),
            entities=[speaker] if speaker else [],
            turn=pk,
            sources=[{"type": "message", "session_id": session, "external_id": external_id}],
            language=language,
        )
    return hits


def covered_merged(hits: list[Hit]) -> list[Hit]:
    """Ranked hits (best first) where a turn found beside a fact drawn from it is one entry with that fact: the
    fact, its score and the turn's summed, with the turn's signals too. A turn of several facts joins the best
    one. (On LoCoMo's dev half with the replayed facts, summed against the better of the two: R@10 0.745 / 0.732,
    within 2,000 characters 0.800 / 0.810, and every category at least offline's R@10.)"""
    turn_ids = [h.id for h in hits if h.type == "turn"]
    memory_ids = [h.id for h in hits if h.type == "memory"]
    if not turn_ids or not memory_ids:
        return hits
    with reads.cursor() as cursor:
        cursor.execute(
            """SELECT message_id, memory_id FROM memories_memory_source_messages
               WHERE message_id = ANY(%s) AND memory_id = ANY(%s)""",
            [turn_ids, memory_ids],
        )
        facts_of: dict[int, set[int]] = {}
        for message_id, memory_id in cursor.fetchall():
            facts_of.setdefault(message_id, set()).add(memory_id)
    best = {}
    for hit in hits:  # best first: a turn's first fact in the ranking is its best
        if hit.type == "memory":
            for turn, facts in facts_of.items():
                if hit.id in facts:
                    best.setdefault(turn, hit)
    out = []
    for hit in hits:
        fact = best.get(hit.id) if hit.type == "turn" else None
        if fact is None:
            out.append(hit)
            continue
        fact.score += hit.score
        fact.signals = list(dict.fromkeys([*fact.signals, "turn", *hit.signals]))
        fact.similarity = max(fact.similarity or 0.0, hit.similarity or 0.0) or None
    return sorted(out, key=lambda h: -h.score)
