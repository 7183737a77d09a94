"""What replaced a retired fact that a question matches: the live fact, ranked where the retired one would have been.

A question is often worded as the fact it asks about was first said: "Where does Alice live?" is closer, in words and
in meaning, to the retired "I live in Berlin" than to "I moved to Munich last month!", which replaced it. Recall
searches the retired facts that something replaced beside the live ones (the "replaced" table), and gives each
one's place to the live fact at the end of its chain of replacements, if that fact is in the recall's scope. And,
the other way, what the shown facts replaced, for a question about how things were before.
"""

from __future__ import annotations

from django.db.models import Q

from kbsite.ai.fusion import Fusion
from kbsite.replicas import reads
from memories.models import Memory
from memories.recall.hits import Hit, hit_rows, memory_hit
from memories.recall.neighbours import IN_SCOPE_SQL
from memories.recall.scope import Table

# A fact replaced again and again (edited, restated): how many replacements are followed to the live one.
CHAIN_HOPS = 5
# The retired matches followed, best first.
REPLACED_SEEDS = 20

NEXT_SQL = "SELECT id, superseded_by_id, retired_at IS NULL FROM memories_memory WHERE id = ANY(%s)"


def replacements_fuse(fusion: Fusion, memories: Table) -> None:
    """Each retired match's score and signals given to the live fact that replaced it (``replaces``), then the
    retired match dropped: recall returns what holds now."""
    found = [key for key in fusion.ranked() if key[0] == "replaced"]
    live = _live_successors([pk for _, pk in found[:REPLACED_SEEDS]], memories)
    for key in found:
        score, signals = fusion.scores.pop(key), fusion.signals.pop(key, [])
        successor = live.get(key[1])
        if successor is None:
            continue
        fusion.scores[("memory", successor)] += score
        for signal in [*signals, "replaces"]:
            if signal not in fusion.signals[("memory", successor)]:
                fusion.signals[("memory", successor)].append(signal)


def _live_successors(retired: list[int], memories: Table) -> dict[int, int]:
    """For each retired id, the live fact at the end of its replacements, if that fact is in scope."""
    if not retired:
        return {}
    at = {pk: pk for pk in retired}  # retired id -> the fact its chain has reached
    live: dict[int, int] = {}
    with reads.cursor() as cursor:
        for _ in range(CHAIN_HOPS):
            if not at:
                break
            cursor.execute(NEXT_SQL, [list(set(at.values()))])
            rows = {pk: (successor, is_live) for pk, successor, is_live in cursor.fetchall()}
            moved = {}
            for start, pk in at.items():
                successor, is_live = rows.get(pk, (None, False))
                if is_live and pk != start:
                    live[start] = pk
                elif successor is not None:
                    moved[start] = successor
            at = moved
        if not live:
            return {}
        sql = IN_SCOPE_SQL.format(table=memories.name, where=memories.where)
        cursor.execute(sql, [list(set(live.values())), *memories.params])
        in_scope = {row[0] for row in cursor.fetchall()}
    return {start: pk for start, pk in live.items() if pk in in_scope}


def what_they_replaced(shown: list[Hit], end_user_id: int | None) -> list[Hit]:
    """The facts the shown memories replaced (retired, ``superseded_by`` one of them), and those these replaced, up
    to CHAIN_HOPS back, of the end user or shared, each knowing which it was replaced by (``follows``): asked how
    things were before a change, what held before is the answer, and recall returns only what holds now."""
    by_id = {pk: hit.id for hit in shown if hit.type == "memory" for pk in hit.ids}
    mine = Q(end_user_id=end_user_id) | Q(end_user__isnull=True) if end_user_id else Q(end_user__isnull=True)
    out: list[Hit] = []
    frontier = set(by_id)
    for _ in range(CHAIN_HOPS):
        if not frontier:
            break
        rows = Memory.objects.filter(mine, superseded_by_id__in=frontier, quarantined=False)
        found = []
        for row in hit_rows(rows, "superseded_by_id"):
            hit = memory_hit(row, {})
            hit.follows, hit.signals = by_id.get(row["superseded_by_id"], row["superseded_by_id"]), ["replaced"]
            found.append(hit)
        frontier = {hit.id for hit in found} - set(by_id) - {hit.id for hit in out}
        out += [hit for hit in found if hit.id in frontier]
    return sorted(out, key=lambda hit: hit.id)
