"""The full-text ranked list: rows matching any informative query word, ranked BM25-style by each word's rarity.

Rarity is counted per KB: up to DF_CAP rows a word, kept a while per process for common words, or read from
the word statistics large KBs keep (TermStat, refreshed by their ingest jobs), since counting a common word in
100,000 memories costs more than the rest of a recall.
"""

from __future__ import annotations

import math
import time

from django.db import connection

from kbsite.ai.fulltext import FTS_CONFIG
from memories.recall.scope import Table

DF_CAP = 1000
FTS_ROWS = 500
DF_CACHE_MIN = 50
DF_CACHE_SECONDS = 600
DF_CACHE_SIZE = 20000
SMALL_SCOPE_SECONDS = 30
BM25_K1 = 1.2
BM25_B = 0.75
_df_cache: dict = {}
_size_cache: dict = {}


def fts_ranked(searched: Table, tsquery: str, limit: int, stats_kb_ids: tuple[int, ...] | None = None) -> list[int]:
    """Rows matching any informative query word, ranked BM25-style: each matched word counts by its rarity
    in the KB (IDF), so a name that is in half the conversation weighs less than the word that matters.

    Every row touched costs a heap read, so at most FTS_ROWS rows are looked at: the rarest words bring
    all their rows, a common word only as many as are left. A row that matches a rare word is scored on
    every word it has, so only rows matching nothing but common words are sampled.
    """
    table, scope, params = searched.name, searched.where, list(searched.params)
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
    # One branch per word, its tsquery a constant: the planner then knows how common the word is and reads a
    # common word's rows through the scope's index (an end user's hundred rows) rather than the word's posting
    # list across the table (a generic plan, as for a tsquery taken from a joined list, read 100,000 of them).
    rows = " UNION ALL ".join(
        f"(SELECT {table}.id, {table}.search_vector FROM {table} WHERE {table}.search_vector @@ %s::tsquery "
        f"AND {scope} LIMIT %s)"
        for _ in weighted
    )
    row_params = [v for (q, _), quota in zip(weighted, quotas, strict=True) for v in (q, *params, quota)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT id FROM (
                    SELECT DISTINCT ON (c.id) c.id,
                           ({score}) / (1 + %s * (1 - %s + %s * length(c.search_vector) / %s)) AS score
                    FROM ({rows}) c
                ) scored
                ORDER BY score DESC, id DESC
                LIMIT %s""",
            [*score_params, BM25_K1, BM25_B, BM25_B, avg_length, *row_params, limit],
        )
        return [row[0] for row in cursor.fetchall()]


def _term_frequencies(
    table: str, scope: str, params: list, terms: list[str], stats_kb_ids: tuple[int, ...] | None = None
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
        # A constant tsquery per word, for the reason fts_ranked gives.
        counts = " UNION ALL ".join(
            f"""SELECT %s, websearch_to_tsquery(%s, %s)::text, (SELECT count(*) FROM (SELECT 1 FROM {table}
                WHERE {table}.search_vector @@ websearch_to_tsquery(%s, %s) AND {scope} LIMIT %s) capped)"""
            for _ in missing
        )
        with connection.cursor() as cursor:
            cursor.execute(
                counts,
                [v for term in missing for v in (term, FTS_CONFIG, term, FTS_CONFIG, term, *params, DF_CAP)],
            )
            for term, q, df in cursor.fetchall():
                known[term] = (q, df, now + DF_CACHE_SECONDS)
                if df >= DF_CACHE_MIN:
                    _df_cache[(key, term)] = known[term]
    if len(_df_cache) > DF_CACHE_SIZE:
        _df_cache.clear()
    return [(known[term][0], known[term][1]) for term in terms if known[term][0]]


def _term_stats(kb_ids: tuple[int, ...], terms: list[str], now: float) -> dict[str, tuple[str, int, float]]:
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
            [FTS_CONFIG, terms, list(kb_ids)],
        )
        return {term: (q, min(int(n), DF_CAP), now) for term, q, n in cursor.fetchall()}


def _scope_size(table: str, scope: str, params: list) -> tuple[int, float]:
    """Rows in scope (up to DF_CAP) and their mean length in words, kept for a while: ten minutes once the scope
    is large, SMALL_SCOPE_SECONDS while it grows (a BM25 normalisation a few seconds old ranks the same, and the
    count was a round trip of every recall in a small KB)."""
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
    if len(_size_cache) > DF_CACHE_SIZE:
        _size_cache.clear()
    kept = DF_CACHE_SECONDS if total >= DF_CAP else SMALL_SCOPE_SECONDS
    _size_cache[key] = (total, avg_length, time.monotonic() + kept)
    return total, avg_length
