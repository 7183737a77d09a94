"""The vector ranked list: the rows nearest the query's embedding.

The rows nearest the query's embedding, compared exactly in KBs outside the HNSW index and through the index in KBs
that have outgrown exact search.
"""

from __future__ import annotations

import time

from pgvector.django import CosineDistance

from kbsite.ai import embeddings
from kbsite.models.embeddings import stale_clause
from kbsite.replicas import reads
from memories.models import Memory
from memories.recall.scope import Table
from memories.recall.weights import VECTOR_MIN_SIMILARITY

VECTOR_SCAN_MARGIN = 2
VECTOR_SCAN_MIN = 1000
HNSW_MAX_SCAN_TUPLES = 20000
# How many rows each KB holds, kept a while (per process).
_size_cache: dict = {}
SIZE_CACHE_SECONDS = 600


def vector_ranked(
    table: Table, vector: str, limit: int, kb_ids: tuple[int, ...], indexed: bool = True
) -> list[tuple[int, float]]:
    """The ``limit`` rows nearest ``vector`` (pgvector's text form), with their similarity. Rows outside the HNSW
    index (memories and searched turns of small KBs and those not yet moved in, and end users' memories, turns and
    insights) are compared exactly; the index is searched for memories and turns only when ``indexed``, i.e. when
    a KB in scope has outgrown exact search, and always for shared insights. Rows whose vectors are still another
    model's (while they are re-embedded, memories.reembedding) are left out."""
    fresh, fresh_params = stale_clause(table.name)
    where, params = f"{table.where} AND {fresh}", (*table.params, *fresh_params)
    with reads.cursor() as cursor:
        rows = []
        if table.exact:
            exact = _nearest_sql(table.name, f"NOT {table.in_index} AND {where}")
            cursor.execute(exact, [vector, *params, vector, limit])
            rows = cursor.fetchall()
        if (indexed and table.type in ("memory", "turn")) or table.type == "insight":
            in_index = f"{table.in_index} AND {where}"  # the rows the partial index holds
            rows += _index_ranked(cursor, table.name, vector, in_index, params, limit, kb_ids)
    rows = sorted(rows, key=lambda row: -row[1])[:limit]
    scaled = [(row[0], embeddings.scaled(float(row[1]))) for row in rows]
    return [(pk, similarity) for pk, similarity in scaled if similarity >= VECTOR_MIN_SIMILARITY]


# The index's nearest rows, in one round trip (local to the recall's transaction):
# - iterative index scans keep filtered KNN correct: the HNSW scan continues until enough rows pass the scope's
#   filter (pgvector 0.8), as far as ``hnsw.max_scan_tuples``;
# - no sort: the rows come from the HNSW walk, never from another index whose rows are then sorted by distance.
#   A user's turns are scoped by their sessions (the shared ones and theirs, an array the planner cannot count):
#   the planner guessed 49 rows where 100,000 shared turns matched, read them all through the session index and
#   sorted them (379 ms with 1,000,000 turns; 0.6-6 ms through the index).
ANN_SETTINGS = (
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true),"
    " set_config('hnsw.max_scan_tuples', %s, true), set_config('enable_sort', 'off', true)"
)


def _nearest_sql(table: str, where: str, column: str = "embedding") -> str:
    """Rows of ``table`` matching ``where``, nearest first by ``column``, with their similarity (params: vector,
    where's params, vector, limit)."""
    return f"""
        SELECT {table}.id, 1 - ({table}.{column} <=> %s::vector) AS similarity FROM {table}
        WHERE {table}.{column} IS NOT NULL AND {where}
        ORDER BY {table}.{column} <=> %s::vector
        LIMIT %s"""


def _index_ranked(
    cursor,
    table: str,
    vector: str,
    where: str,
    params: tuple,
    limit: int,
    kb_ids: tuple[int, ...],
    column: str = "embedding",
):
    """The HNSW index's nearest rows in scope (by ``column``'s index)."""
    sql = _nearest_sql(table, where, column)
    bound = _scan_tuples(table, kb_ids, limit)
    cursor.execute(ANN_SETTINGS, [str(int(max(limit, 40))), str(bound)])
    cursor.execute(sql, [vector, *params, vector, limit])
    rows = cursor.fetchall()
    if len(rows) < limit and bound < HNSW_MAX_SCAN_TUPLES:
        # Fewer rows than the KB's size promised: the scope is narrower (kinds, retired rows, an end user's scope
        # whose shared rows are few, a KB cleared since its size was cached). Scan again as far as pgvector would
        # by default. The size is kept: counted again, it was a statement of every such recall (3 ms in a KB of
        # 100,000 memories), and it expires on its own.
        cursor.execute(f"SET LOCAL hnsw.max_scan_tuples = {HNSW_MAX_SCAN_TUPLES}")
        cursor.execute(sql, [vector, *params, vector, limit])
        rows = cursor.fetchall()
    cursor.execute("SELECT set_config('enable_sort', 'on', true)")  # the recall's other statements sort as they may
    return rows


def _scan_tuples(table: str, kb_ids: tuple[int, ...], limit: int) -> int:
    """How far the iterative HNSW scan may go: enough to find ``limit`` rows of these KBs, with a margin.

    Left unbounded (pgvector's default: 20,000 tuples), a scan for a KB that holds a tenth of the table
    explores the graph far past the rows it needs, several times slower for the same answer.
    """
    key = (table, kb_ids)
    cached = _size_cache.get(key)
    if not cached or cached[2] <= time.monotonic():
        with reads.cursor() as cursor:
            cursor.execute(
                f"""SELECT (SELECT reltuples FROM pg_class WHERE oid = %s::regclass),
                           (SELECT count(*) FROM {table} WHERE kb_id = ANY(%s))""",
                [table, list(kb_ids)],
            )
            table_rows, kb_rows = cursor.fetchone()
        cached = _size_cache[key] = (table_rows, kb_rows, time.monotonic() + SIZE_CACHE_SECONDS)
    table_rows, kb_rows = cached[0], cached[1]
    if table_rows <= 0 or kb_rows < limit:
        return HNSW_MAX_SCAN_TUPLES
    wanted = VECTOR_SCAN_MARGIN * limit * table_rows / kb_rows
    return int(min(max(wanted, VECTOR_SCAN_MIN), HNSW_MAX_SCAN_TUPLES))


def similarities(vector, memory_ids: list[int]) -> dict[int, float]:
    """The cosine similarity of each memory among ``memory_ids`` (those embedded) to ``vector`` (none: empty)."""
    if vector is None or not memory_ids:
        return {}
    fresh, params = stale_clause("memories_memory")
    rows = (
        Memory.objects.filter(pk__in=memory_ids, embedding__isnull=False)
        .extra(where=[fresh], params=params)  # noqa: S610 - a clause of our own, its values as params
        .annotate(distance=CosineDistance("embedding", list(map(float, vector))))
        .values_list("pk", "distance")
    )
    return {pk: embeddings.scaled(1.0 - distance) for pk, distance in rows}


def multilingual_similarities(vector, memory_ids: list[int]) -> dict[int, float]:
    """The similarity of each memory among ``memory_ids`` that has a second, multilingual vector (memories.multilingual)
    to the question's multilingual ``vector``, on the product's scale."""
    if vector is None or not memory_ids:
        return {}
    rows = (
        Memory.objects.filter(pk__in=memory_ids, multilingual_embedding__isnull=False)
        .annotate(distance=CosineDistance("multilingual_embedding", list(map(float, vector))))
        .values_list("pk", "distance")
    )
    return {pk: embeddings.scaled_multilingual(1.0 - distance) for pk, distance in rows}


def multilingual_ranked(
    table: Table, vector: str, limit: int, kb_ids: tuple[int, ...], indexed: bool = False
) -> list[tuple[int, float]]:
    """The ``limit`` memories of ``table``'s scope nearest ``vector`` (the question's multilingual embedding) by
    their second, multilingual vectors (memories.multilingual), with their similarity on the product's scale:
    compared exactly, and through their HNSW index when ``indexed`` (as :func:`vector_ranked`)."""
    column = "multilingual_embedding"
    with reads.cursor() as cursor:
        rows = []
        if table.exact:
            cursor.execute(
                _nearest_sql(table.name, f"NOT {table.in_index} AND {table.where}", column),
                [vector, *table.params, vector, limit],
            )
            rows = cursor.fetchall()
        if indexed:
            where = f"{table.in_index} AND {table.where}"
            rows += _index_ranked(cursor, table.name, vector, where, table.params, limit, kb_ids, column)
    rows = sorted(rows, key=lambda row: -row[1])[:limit]
    scaled = [(pk, embeddings.scaled_multilingual(float(sim))) for pk, sim in rows]
    return [(pk, similarity) for pk, similarity in scaled if similarity >= VECTOR_MIN_SIMILARITY]
