"""What recall adds around its direct matches: neighbouring turns, graph and recency.

The neighbouring turns of the best ones (fused in as a third, lighter ranked list), and, when the budget has room
left, 1-hop graph neighbours and recent memories.
"""

from __future__ import annotations

from kbsite.ai.fusion import Fusion
from kbsite.replicas import reads
from memories.models import Edge, visible_to
from memories.recall.hits import Hit, hit_rows, memory_hit
from memories.recall.scope import Scope, Table
from memories.recall.weights import CONTEXT_SEEDS, CONTEXT_WEIGHT

# Driven from the ranked ids only, in two statements: the memories of the turns next to each match's turns, then
# which of those are in scope, by id. Joined in one statement with the scope's KB condition, the plan depended on
# the statistics: for a KB newer than the last ANALYZE, estimated at one row, the planner crossed the KB's every
# memory with the matches' turns (45 ms where it takes 1; benchmarks/fresh.py).
ADJACENT_TURNS_SQL = """
    WITH src AS MATERIALIZED (
        SELECT l.memory_id AS hit, msg.session_id, msg.id AS mid
        FROM memories_memory_source_messages l JOIN memories_message msg ON msg.id = l.message_id
        WHERE l.memory_id = ANY(%s)
    )
    SELECT DISTINCT src.hit, l2.memory_id
    FROM src
    CROSS JOIN LATERAL (
        (SELECT m.id FROM memories_message m WHERE m.session_id = src.session_id AND m.id < src.mid
         ORDER BY m.id DESC LIMIT 1)
        UNION ALL
        (SELECT m.id FROM memories_message m WHERE m.session_id = src.session_id AND m.id > src.mid
         ORDER BY m.id ASC LIMIT 1)
    ) adj
    JOIN memories_memory_source_messages l2 ON l2.message_id = adj.id
    WHERE l2.memory_id <> src.hit"""
# Which of the neighbours found are in the searched table's scope, by id.
IN_SCOPE_SQL = "SELECT {table}.id FROM {table} WHERE {table}.id = ANY(%s) AND {where}"


def conversation_context(fusion: Fusion, memories: Table) -> None:
    """The turns right before and after a strongly matching turn of the same conversation.

    An answer is often split across a question and its reply; the memories of the neighbours of the best
    direct matches are fused in, each at the rank of the match it neighbours ("context").
    """
    _context_fuse(fusion, memories, ADJACENT_TURNS_SQL)


# The searched turns next to each seed turn; their scope is checked by id afterwards, as the memories' is: joined
# to the scope, the planner read every turn of the user's and the shared sessions (100,000 shared turns: 253 ms)
# to keep 39.
ADJACENT_SEARCHED_TURNS_SQL = """
    WITH seed AS (
        SELECT s.mid, msg.session_id
        FROM unnest(%s::bigint[]) AS s(mid) JOIN memories_message msg ON msg.id = s.mid
    )
    SELECT DISTINCT seed.mid, adj.id
    FROM seed
    CROSS JOIN LATERAL (
        (SELECT m.id FROM memories_message m WHERE m.session_id = seed.session_id AND m.id < seed.mid
         ORDER BY m.id DESC LIMIT 1)
        UNION ALL
        (SELECT m.id FROM memories_message m WHERE m.session_id = seed.session_id AND m.id > seed.mid
         ORDER BY m.id ASC LIMIT 1)
    ) adj
    WHERE adj.id <> seed.mid"""


def turn_context(fusion: Fusion, turns: Table) -> None:
    """With searched turns (recall.turns): the searched turns right before and after the best turns found, fused
    in at the rank of the turn they neighbour, as :func:`conversation_context` does for memories."""
    _context_fuse(fusion, turns, ADJACENT_SEARCHED_TURNS_SQL)


def _context_fuse(fusion: Fusion, table: Table, adjacent_sql: str) -> None:
    """The neighbours ``adjacent_sql`` finds (rows of (seed, neighbour), from the seeds' ids) of the best hits of
    ``table``, those in its scope fused in at the rank of the seed they neighbour."""
    ranked = [key for key in fusion.ranked() if key[0] == table.type][:CONTEXT_SEEDS]
    if not ranked:
        return
    rank_of = {key[1]: rank for rank, key in enumerate(ranked, start=1)}
    with reads.cursor() as cursor:
        cursor.execute(adjacent_sql, [[pk for _, pk in ranked]])
        pairs = cursor.fetchall()
        if not pairs:
            return
        in_scope_sql = IN_SCOPE_SQL.format(table=table.name, where=table.where)
        cursor.execute(in_scope_sql, [list({n for _, n in pairs}), *table.params])
        in_scope = {row[0] for row in cursor.fetchall()}
    for seed, neighbour in pairs:
        if neighbour in in_scope:
            fusion.add_at((table.type, neighbour), rank=rank_of[seed], weight=CONTEXT_WEIGHT, signal="context")


def supplements_find(direct: list[Hit], scope: Scope, kb_names: dict[int, str], *, limit: int) -> list[Hit]:
    """1-hop graph neighbours of the top direct matches, then the most recent memories.

    Scored strictly below the weakest direct match so they can never outrank one.
    """
    floor = min(h.score for h in direct)
    seen = {pk for h in direct if h.type == "memory" for pk in h.ids}
    top_entities = {e for h in direct[:5] if h.type == "memory" for e in h.entities}
    candidates = scope.memories()
    extra: list[tuple[dict, str]] = []
    neighbours = _graph_neighbours(scope.kb_ids, scope.end_user_id, top_entities)
    if neighbours:
        for row in hit_rows(
            candidates.filter(entities__overlap=list(neighbours))
            .exclude(pk__in=seen)
            .order_by("-importance", "-created_at")
        )[:limit]:
            extra.append((row, "graph"))
            seen.add(row["id"])
    for row in hit_rows(candidates.exclude(pk__in=seen).order_by("-created_at"))[: max(0, limit - len(extra))]:
        extra.append((row, "recency"))
        seen.add(row["id"])
    out = []
    for position, (row, signal) in enumerate(extra):
        hit = memory_hit(row, kb_names)
        hit.signals = [signal]
        hit.score = floor * 0.5 / (position + 1)
        out.append(hit)
    return out


def _graph_neighbours(kb_ids: tuple[int, ...], end_user_id: int | None, entities: set[str]) -> set[str]:
    """Entities one live edge away from ``entities`` (in either direction), themselves excluded, in the graphs the
    end user may see (their own and the shared one)."""
    if not entities:
        return set()
    live = Edge.objects.filter(visible_to(end_user_id, "src__"), kb_id__in=kb_ids, retired_at__isnull=True)
    out = live.filter(src__name__in=entities).values_list("dst__name", flat=True)
    back = live.filter(dst__name__in=entities).values_list("src__name", flat=True)
    return (set(out[:50]) | set(back[:50])) - entities
