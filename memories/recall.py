"""Hybrid recall: what a bot gets back for a query.

Direct relevance comes from two ranked lists over the KB's live, non-quarantined
memories (and insights): PostgreSQL full text (``websearch_to_tsquery``, with the
seed's memory stopwords removed) and pgvector cosine KNN. They are fused with
weighted Reciprocal Rank Fusion (k = ``RECALL_RRF_K``, see settings) and lightly
kind-weighted. 1-hop graph neighbours and recent memories are tail supplements:
scored below every direct match, they only fill what the budget leaves. Results
are packed in rank order under a character budget, each with the signals that
found it and its sources.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction

from kbsite.ai import embeddings
from kbsite.ai.fulltext import FTS_CONFIG
from kbsite.ai.vectors import as_vectors, vector_literal
from kbsite.models import KnowledgeBase
from memories.models import Edge, Insight, Memory

FTS_WEIGHT = 3.0
VECTOR_WEIGHT = 3.0
# The neighbouring turns of strong matches (see _add_conversation_context); with SUBJECT_WEIGHT,
# LoCoMo R@10 0.637 -> 0.657 going from 1.5 to 2.5 (flat to 3.0, worse past it).
CONTEXT_WEIGHT = 2.5
CONTEXT_SEEDS = 20
KIND_WEIGHT = {"user_profile": 1.3, "preference": 1.2, "env": 1.1, "insight": 1.1}
# A memory whose subject (its first entity: the speaker of a turn, the person a fact is about) is named in
# the query is more likely what the question is about (LoCoMo: R@10 0.612 -> 0.640, budget 0.667 -> 0.696).
SUBJECT_WEIGHT = 1.5
# A memory dated inside the day, month or year the query names (see query_period).
DATE_WEIGHT = 2.0
CANDIDATES = 60
VECTOR_MIN_SIMILARITY = 0.2
# The filtered HNSW scan visits about VECTOR_SCAN_MARGIN times the tuples it should need (see _scan_tuples).
VECTOR_SCAN_MARGIN = 2
VECTOR_SCAN_MIN = 1000
HNSW_MAX_SCAN_TUPLES = 20000
# Document frequencies are counted up to this many rows (enough to tell rare words from common ones).
DF_CAP = 1000
# Rows the full-text ranking looks at, at most (see _fts_ranked).
FTS_ROWS = 500
# Counts of words in at least DF_CACHE_MIN memories are reused for DF_CACHE_SECONDS (per process).
DF_CACHE_MIN = 50
DF_CACHE_SECONDS = 600
DF_CACHE_SIZE = 20000
BM25_K1 = 1.2
BM25_B = 0.75
# Seed 001: words in almost every fact, or carrying no retrieval signal, never go into the text query.
STOPWORDS = frozenset(
    """the a an of to in on at for and or is are was were be been being do does did how what where when which who
    whom whose why this that these those it its use uses used user users project projects right now
    i me my you your he she his her we our they them their""".split()
)
# What ranking and packing need of a memory (its sources are loaded for the packed hits only).
HIT_FIELDS = ("id", "kb_id", "text", "kind", "created_at", "valid_from", "entities")
WORD = re.compile(r"[\w][\w'\-]*", re.UNICODE)
_df_cache: dict = {}
_size_cache: dict = {}


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


def text_query(query: str) -> str:
    """The query's informative words joined with OR, for websearch_to_tsquery (any word may match)."""
    words = [w.lower().strip("'-") for w in WORD.findall(query)]
    kept = [w for w in words if w and w not in STOPWORDS and len(w) > 1]
    seen: list[str] = []
    for w in kept:
        if w not in seen:
            seen.append(w)
    return " or ".join(seen[:32])


def _scope_sql(
    *,
    table: str,
    kb_ids: list[int],
    as_of: datetime | None,
    kinds: list[str] | None,
    exclude_session: str | None,
    params: list,
) -> str:
    """WHERE clause shared by both lists: KB, life span, quarantine, kinds, excluded session."""
    clauses = [f"{table}.kb_id = ANY(%s)"]
    params.append(kb_ids)
    if table == "memories_memory":
        clauses.append("NOT memories_memory.quarantined")
        if as_of is not None:
            clauses.append(
                "memories_memory.created_at <= %s AND (memories_memory.valid_to IS NULL OR "
                "memories_memory.valid_to > %s)"
            )
            params += [as_of, as_of]
        else:
            clauses.append("memories_memory.valid_to IS NULL")
        if kinds:
            clauses.append("memories_memory.kind = ANY(%s)")
            params.append(kinds)
        if exclude_session:
            # Memories drawn only from the excluded session's own turns are left out.
            clauses.append(
                """NOT EXISTS (SELECT 1 FROM memories_memory_source_messages l
                   JOIN memories_message msg ON msg.id = l.message_id
                   JOIN memories_session s ON s.id = msg.session_id
                   WHERE l.memory_id = memories_memory.id AND s.external_id = %s)"""
            )
            params.append(exclude_session)
    else:
        if as_of is not None:
            clauses.append(
                "memories_insight.created_at <= %s AND (memories_insight.valid_to IS NULL "
                "OR memories_insight.valid_to > %s)"
            )
            params += [as_of, as_of]
        else:
            clauses.append("memories_insight.valid_to IS NULL")
    return " AND ".join(clauses)


def _fts_ranked(
    table: str, tsquery: str, scope: str, params: list, limit: int, stats_kb_ids: list[int] | None = None
) -> list[int]:
    """Rows matching any informative query word, ranked BM25-style: each matched word counts by its rarity
    in the KB (IDF), so a name that is in half the conversation weighs less than the word that matters.

    Every row touched costs a heap read, so at most FTS_ROWS rows are looked at: the rarest words bring
    all their rows, a common word only as many as are left. A row that matches a rare word is scored on
    every word it has, so only rows matching nothing but common words are sampled.
    """
    terms = [t for t in tsquery.split(" or ") if t]
    if not terms:
        return []
    stats = [(q, df) for q, df in _term_frequencies(table, scope, params, terms, stats_kb_ids) if df]
    if not stats:
        return []
    # A word in at least DF_CAP memories has an IDF of about zero: it cannot rank, and would make every
    # one of those rows a candidate. A query made only of such words has no full-text list.
    stats = sorted((row for row in stats if row[1] < DF_CAP), key=lambda row: row[1])
    if not stats:
        return []
    total, avg_length = _scope_size(table, scope, params)
    weighted = [(q, math.log(1 + (total - df + 0.5) / (df + 0.5))) for q, df in stats]
    quotas, left = [], FTS_ROWS
    for _, df in stats:
        quotas.append(max(min(df, left), 1))
        left = max(left - df, 0)
    # BM25 with tf = 1 per matched word: IDF, saturated and normalised by the memory's length.
    score = " + ".join("(CASE WHEN c.search_vector @@ %s::tsquery THEN %s ELSE 0 END)" for _ in weighted)
    score_params = [v for q, w in weighted for v in (q, w * (BM25_K1 + 1))]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT id FROM (
                    SELECT DISTINCT ON (c.id) c.id,
                           ({score}) / (1 + %s * (1 - %s + %s * length(c.search_vector) / %s)) AS score
                    FROM unnest(%s::tsquery[], %s::int[]) AS t(q, quota)
                    CROSS JOIN LATERAL (
                        SELECT {table}.id, {table}.search_vector FROM {table}
                        WHERE {table}.search_vector @@ t.q AND {scope} LIMIT t.quota
                    ) c
                ) scored
                ORDER BY score DESC, id DESC
                LIMIT %s""",
            [*score_params, BM25_K1, BM25_B, BM25_B, avg_length, [q for q, _ in weighted], quotas, *params, limit],
        )
        return [row[0] for row in cursor.fetchall()]


def _term_frequencies(
    table: str, scope: str, params: list, terms: list[str], stats_kb_ids: list[int] | None = None
) -> list[tuple[str, int]]:
    """(tsquery, document frequency in scope, counted up to DF_CAP) of each word.

    Counting a common word reads up to DF_CAP rows. Large KBs keep their word counts in TermStat
    (``stats_kb_ids``: every KB in scope has them), which are read instead; elsewhere counts of common
    words are kept for a while in this process (an IDF that is minutes old ranks the same). A word the
    statistics do not know yet, and any rare word, is counted: cheap, and always fresh, so a word that
    has just appeared in the KB is never missed.
    """
    key = (table, scope, repr(params))
    now = time.monotonic()
    known = {term: _df_cache[(key, term)] for term in terms if _df_cache.get((key, term), (0, 0, 0))[2] > now}
    if stats_kb_ids:
        known.update(_term_stats(stats_kb_ids, [term for term in terms if term not in known], now))
    missing = [term for term in terms if term not in known]
    if missing:
        with connection.cursor() as cursor:
            cursor.execute(
                f"""SELECT t.term, t.q::text, (SELECT count(*) FROM (SELECT 1 FROM {table}
                           WHERE {table}.search_vector @@ t.q AND {scope} LIMIT %s) capped)
                    FROM (SELECT term, websearch_to_tsquery(%s, term) AS q FROM unnest(%s::text[]) AS term) t""",
                [*params, DF_CAP, FTS_CONFIG, missing],
            )
            for term, q, df in cursor.fetchall():
                known[term] = (q, df, now + DF_CACHE_SECONDS)
                if df >= DF_CACHE_MIN:
                    _df_cache[(key, term)] = known[term]
    if len(_df_cache) > DF_CACHE_SIZE:
        _df_cache.clear()
    return [(known[term][0], known[term][1]) for term in terms if known[term][0]]


def _term_stats(kb_ids: list[int], terms: list[str], now: float) -> dict[str, tuple[str, int, float]]:
    """Document frequencies of the single-word ``terms`` found in the KBs' TermStat rows."""
    if not terms:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT t.term, t.q::text, s.n FROM (
                   SELECT term, websearch_to_tsquery(%s, term) AS q FROM unnest(%s::text[]) AS term) t
               CROSS JOIN LATERAL (
                   SELECT sum(ndoc) AS n FROM memories_termstat
                   WHERE kb_id = ANY(%s) AND numnode(t.q) = 1 AND term = btrim(t.q::text, chr(39))) s
               WHERE s.n IS NOT NULL""",
            [FTS_CONFIG, terms, kb_ids],
        )
        return {term: (q, min(int(n), DF_CAP), now) for term, q, n in cursor.fetchall()}


def _scope_size(table: str, scope: str, params: list) -> tuple[int, float]:
    """Rows in scope (up to DF_CAP) and their mean length in words, kept for a while once the scope is large."""
    key = (table, scope, repr(params))
    cached = _size_cache.get(key)
    if cached and cached[2] > time.monotonic():
        return cached[0], cached[1]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT count(*), avg(length(s)) FROM (SELECT {table}.search_vector s FROM {table} WHERE {scope}
                LIMIT %s) n""",
            [*params, DF_CAP],
        )
        total, avg_length = cursor.fetchone()
    total, avg_length = max(total, 1), float(avg_length or 1.0)
    if total >= DF_CAP:
        if len(_size_cache) > DF_CACHE_SIZE:
            _size_cache.clear()
        _size_cache[key] = (total, avg_length, time.monotonic() + DF_CACHE_SECONDS)
    return total, avg_length


def _vector_ranked(
    table: str, vector: str, scope: str, params: list, limit: int, kb_ids: list[int], indexed: bool = True
) -> list[tuple[int, float]]:
    """The ``limit`` rows nearest ``vector``. Memories of KBs outside the vector index (small KBs, and those
    not yet moved in) are compared exactly; the index is searched only when ``indexed``, i.e. when a KB in
    scope has outgrown exact search. Insights are always searched through their index."""
    with connection.cursor() as cursor:
        if table == "memories_memory":
            cursor.execute(
                _nearest_sql(table, f"NOT memories_memory.in_vector_index AND {scope}"),
                [vector, *params, vector, limit],
            )
            rows = cursor.fetchall()
            if indexed:
                index_scope = f"memories_memory.in_vector_index AND {scope}"  # the rows the partial index holds
                rows += _index_ranked(cursor, table, vector, index_scope, params, limit, kb_ids)
        else:
            rows = _index_ranked(cursor, table, vector, scope, params, limit, kb_ids)
    rows = sorted(rows, key=lambda row: -row[1])[:limit]
    # A distant vector neighbour is not a match: it only shows the KB has nothing closer.
    return [(row[0], float(row[1])) for row in rows if row[1] >= VECTOR_MIN_SIMILARITY]


def _nearest_sql(table: str, where: str) -> str:
    """Rows of ``table`` matching ``where``, nearest first, with their similarity (params: vector, where's
    params, vector, limit)."""
    return f"""
        SELECT {table}.id, 1 - ({table}.embedding <=> %s::vector) AS similarity FROM {table}
        WHERE {table}.embedding IS NOT NULL AND {where}
        ORDER BY {table}.embedding <=> %s::vector
        LIMIT %s"""


def _index_ranked(cursor, table: str, vector: str, scope: str, params: list, limit: int, kb_ids: list[int]):
    """The HNSW index's nearest rows in scope."""
    sql = _nearest_sql(table, scope)
    bound = _scan_tuples(table, kb_ids, limit)
    # Iterative index scans keep filtered KNN correct: the HNSW scan continues until
    # enough rows pass the KB filter (pgvector 0.8). One round trip for the three settings.
    cursor.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
        " set_config('hnsw.ef_search', %s, true), set_config('hnsw.max_scan_tuples', %s, true)",
        [str(int(max(limit, 40))), str(bound)],
    )
    cursor.execute(sql, [vector, *params, vector, limit])
    rows = cursor.fetchall()
    if len(rows) < limit and bound < HNSW_MAX_SCAN_TUPLES:
        # Fewer rows than the KB's size promised: the scope is narrower (kinds, retired rows, a KB
        # cleared since its size was cached). Scan again as far as pgvector would by default.
        _size_cache.pop((table, tuple(kb_ids)), None)
        cursor.execute(f"SET LOCAL hnsw.max_scan_tuples = {HNSW_MAX_SCAN_TUPLES}")
        cursor.execute(sql, [vector, *params, vector, limit])
        rows = cursor.fetchall()
    return rows


def _scan_tuples(table: str, kb_ids: list[int], limit: int) -> int:
    """How far the iterative HNSW scan may go: enough to find ``limit`` rows of these KBs, with a margin.

    Left unbounded (pgvector's default: 20,000 tuples), a scan for a KB that holds a tenth of the table
    explores the graph far past the rows it needs, several times slower for the same answer.
    """
    key = (table, tuple(kb_ids))
    cached = _size_cache.get(key)
    if not cached or cached[2] <= time.monotonic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"""SELECT (SELECT reltuples FROM pg_class WHERE oid = %s::regclass),
                           (SELECT count(*) FROM {table} WHERE kb_id = ANY(%s))""",
                [table, kb_ids],
            )
            table_rows, kb_rows = cursor.fetchone()
        cached = _size_cache[key] = (table_rows, kb_rows, time.monotonic() + DF_CACHE_SECONDS)
    table_rows, kb_rows = cached[0], cached[1]
    if table_rows <= 0 or kb_rows < limit:
        return HNSW_MAX_SCAN_TUPLES
    wanted = VECTOR_SCAN_MARGIN * limit * table_rows / kb_rows
    return int(min(max(wanted, VECTOR_SCAN_MIN), HNSW_MAX_SCAN_TUPLES))


# --- Dates named in the query ---------------------------------------------------------------

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
DATE_PATTERNS = [
    ("day", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I)),  # 16 June, 2023
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)),  # June 16, 2023
    ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")),  # 2023-06-16
    ("month", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)),  # May 2022
    ("year", re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b", re.I)),  # in 2024
]


def query_period(query: str) -> tuple[datetime, datetime] | None:
    """The span of time a query names, if any: a day ("on 16 June, 2023"), a month ("in May 2022") or a
    year ("in 2024"); the first such date wins. A memory dated inside it (``valid_from``: when the turn
    was said, or when the fact became true) is more likely what the question is about."""
    for precision, pattern in DATE_PATTERNS:
        match = pattern.search(query)
        if not match:
            continue
        parts = match.groupdict()
        month = parts.get("month")
        try:
            year = int(parts["year"])
            month = int(month) if month and month.isdigit() else MONTHS.get((month or "").lower().rstrip("."), 1)
            if precision == "day":
                start = datetime(year, month, int(parts["day"]), tzinfo=UTC)
                # A day said in one time zone is stored in UTC: a day either side.
                return start - timedelta(days=1), start + timedelta(days=2)
            if precision == "month":
                start = datetime(year, month, 1, tzinfo=UTC)
                end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
                return start, end
            return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
        except ValueError:  # "31 February": not a date
            continue
    return None


def recall(
    *,
    kbs: list[KnowledgeBase],
    query: str,
    k: int = 10,
    budget_chars: int | None = None,
    exclude_session: str | None = None,
    kinds: list[str] | None = None,
    as_of: datetime | None = None,
    include_insights: bool = True,
    supplements: bool = True,
    query_vector=None,
) -> list[Hit]:
    """Ranked, budget-packed memories (and insights) of ``kbs`` for ``query``."""
    kb_ids = [kb.pk for kb in kbs]
    kb_names = {kb.pk: kb.name for kb in kbs}
    # The query is embedded on another thread while the database does the full-text part.
    embedding = _embedder().submit(embeddings.embed_query, query) if query_vector is None else None
    tsquery = text_query(query)
    memory_kinds = [x for x in kinds or [] if x != "insight"] or None
    want_memories = not kinds or bool(memory_kinds)
    want_insights = include_insights and (not kinds or "insight" in kinds) and not exclude_session

    scores: dict[tuple[str, int], float] = defaultdict(float)
    signals: dict[tuple[str, int], list[str]] = defaultdict(list)
    similarity: dict[tuple[str, int], float] = {}

    scopes = []
    for table, type_, wanted in (
        ("memories_memory", "memory", want_memories),
        ("memories_insight", "insight", want_insights),
    ):
        if wanted:
            params: list = []
            scope = _scope_sql(
                table=table,
                kb_ids=kb_ids,
                as_of=as_of,
                kinds=memory_kinds,
                exclude_session=exclude_session,
                params=params,
            )
            scopes.append((table, type_, scope, params))

    with transaction.atomic():
        for table, type_, scope, params in scopes:
            # Every KB in scope keeps word statistics: read them instead of counting.
            stats_kb_ids = kb_ids if table == "memories_memory" and all(kb.term_stats_memories for kb in kbs) else None
            for rank, pk in enumerate(_fts_ranked(table, tsquery, scope, params, CANDIDATES, stats_kb_ids)):
                scores[(type_, pk)] += FTS_WEIGHT / (settings.RECALL_RRF_K + rank + 1)
                signals[(type_, pk)].append("fts")
        if embedding is not None:
            query_vector = as_vectors([embedding.result()])[0]
        vector_text = vector_literal(query_vector)
        for table, type_, scope, params in scopes:
            vector_hits = _vector_ranked(
                table, vector_text, scope, params, CANDIDATES, kb_ids, indexed=any(kb.vector_index for kb in kbs)
            )
            for rank, (pk, sim) in enumerate(vector_hits):
                scores[(type_, pk)] += VECTOR_WEIGHT / (settings.RECALL_RRF_K + rank + 1)
                signals[(type_, pk)].append("vector")
                similarity[(type_, pk)] = sim

    if want_memories and CONTEXT_WEIGHT:
        _add_conversation_context(
            scores, signals, kb_ids, as_of=as_of, kinds=memory_kinds, exclude_session=exclude_session
        )

    hits = _load_hits(scores.keys(), kb_names)
    named = _named(query)
    period = query_period(query)
    for key, hit in hits.items():
        hit.score = scores[key] * KIND_WEIGHT.get(hit.kind, 1.0)
        if hit.subject and named(hit.subject):
            hit.score *= SUBJECT_WEIGHT
        if period and hit.valid_from and period[0] <= hit.valid_from < period[1]:
            hit.score *= DATE_WEIGHT
            signals[key].append("date")
        hit.signals = signals[key]
        hit.similarity = similarity.get(key)
    direct = sorted(hits.values(), key=lambda h: (-h.score, -h.id))
    packed = pack(direct, k=k, budget_chars=budget_chars)

    # Supplements rank below every direct match: they are only looked for when room is left.
    if supplements and want_memories and direct and len(packed) < k:
        direct += _supplements(
            direct, kb_ids, kb_names, as_of=as_of, kinds=memory_kinds, exclude_session=exclude_session, limit=k
        )
        packed = pack(direct, k=k, budget_chars=budget_chars)
    _attach_sources(packed)
    return packed


@functools.cache
def _embedder() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="recall-embed")


def _add_conversation_context(scores, signals, kb_ids, *, as_of, kinds, exclude_session) -> None:
    """The turns right before and after a strongly matching turn of the same conversation.

    An answer is often split across a question and its reply; the neighbours of the best
    direct matches are fused in as a third, lighter ranked list ("context").
    """
    ranked = sorted((key for key in scores if key[0] == "memory"), key=lambda key: -scores[key])[:CONTEXT_SEEDS]
    if not ranked:
        return
    params: list = []
    scope = _scope_sql(
        table="memories_memory", kb_ids=kb_ids, as_of=as_of, kinds=kinds, exclude_session=exclude_session, params=params
    )
    sql = f"""
        WITH src AS (
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
        JOIN memories_memory ON memories_memory.id = l2.memory_id
        WHERE l2.memory_id <> src.hit AND {scope}"""
    rank_of = {key[1]: rank for rank, key in enumerate(ranked)}
    with connection.cursor() as cursor:
        cursor.execute(sql, [[pk for _, pk in ranked], *params])
        for hit, neighbour in cursor.fetchall():
            key = ("memory", neighbour)
            scores[key] += CONTEXT_WEIGHT / (settings.RECALL_RRF_K + rank_of[hit] + 1)
            if "context" not in signals[key]:
                signals[key].append("context")


def pack(hits: list[Hit], *, k: int, budget_chars: int | None) -> list[Hit]:
    """Take hits in rank order while they fit in the budget (a hit too long to fit is skipped)."""
    out: list[Hit] = []
    used = 0
    for hit in hits:
        if len(out) >= k:
            break
        if budget_chars is not None and used + len(hit.text) > budget_chars:
            continue
        out.append(hit)
        used += len(hit.text)
    return out


def _load_hits(keys, kb_names: dict[int, str]) -> dict[tuple[str, int], Hit]:
    """The candidates' text and kind, enough to rank and pack them; sources come after packing."""
    memory_ids = [pk for t, pk in keys if t == "memory"]
    insight_ids = [pk for t, pk in keys if t == "insight"]
    hits: dict[tuple[str, int], Hit] = {}
    for row in Memory.objects.filter(pk__in=memory_ids).values(*HIT_FIELDS):
        hits[("memory", row["id"])] = _memory_hit(row, kb_names)
    for pk, kb_id, text, created_at in Insight.objects.filter(pk__in=insight_ids).values_list(
        "id", "kb_id", "text", "created_at"
    ):
        hits[("insight", pk)] = Hit(
            id=pk, type="insight", text=text, kind="insight", created_at=created_at, kb=kb_names.get(kb_id, "")
        )
    return hits


def _named(query: str):
    """Whether a (lowercase) name occurs in ``query`` as whole words ("Melanie's" names "melanie")."""
    words = []
    for word in WORD.findall(query.lower()):
        words.append(word)
        if word.endswith(("'s", "’s")):
            words.append(word[:-2])
    lowered = f" {' '.join(words)} "
    return lambda name: f" {name} " in lowered


def _memory_hit(row: dict, kb_names: dict[int, str]) -> Hit:
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


def _attach_sources(hits: list[Hit]) -> None:
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


def _supplements(direct: list[Hit], kb_ids, kb_names, *, as_of, kinds, exclude_session, limit) -> list[Hit]:
    """1-hop graph neighbours of the top direct matches, then the most recent memories.

    Scored strictly below the weakest direct match so they can never outrank one.
    """
    floor = min(h.score for h in direct)
    seen = {h.id for h in direct if h.type == "memory"}
    top_entities = {e for h in direct[:5] if h.type == "memory" for e in h.entities}

    base = Memory.objects.filter(kb_id__in=kb_ids, quarantined=False)
    base = base.as_of(as_of) if as_of else base.live()
    if kinds:
        base = base.filter(kind__in=kinds)
    if exclude_session:
        base = base.exclude(source_messages__session__external_id=exclude_session)

    extra: list[tuple[dict, str]] = []
    if top_entities:
        edges = (
            Edge.objects.filter(kb_id__in=kb_ids, valid_to__isnull=True)
            .filter(src__name__in=top_entities)
            .values_list("dst__name", flat=True)
        )
        back = (
            Edge.objects.filter(kb_id__in=kb_ids, valid_to__isnull=True)
            .filter(dst__name__in=top_entities)
            .values_list("src__name", flat=True)
        )
        neighbours = (set(edges[:50]) | set(back[:50])) - top_entities
        if neighbours:
            for row in (
                base.filter(entities__overlap=list(neighbours))
                .exclude(pk__in=seen)
                .order_by("-importance", "-created_at")
                .values(*HIT_FIELDS)[:limit]
            ):
                extra.append((row, "graph"))
                seen.add(row["id"])
    for row in base.exclude(pk__in=seen).order_by("-created_at").values(*HIT_FIELDS)[: max(0, limit - len(extra))]:
        extra.append((row, "recency"))
        seen.add(row["id"])

    out = []
    for position, (row, signal) in enumerate(extra):
        hit = _memory_hit(row, kb_names)
        hit.signals = [signal]
        hit.score = floor * 0.5 / (position + 1)
        out.append(hit)
    return out
