"""The full-text ranked list: rows matching any informative query word, ranked BM25-style by each word's rarity.

Rarity is counted per KB: up to DF_CAP rows a word, kept a while per process for common words, or read from
the word statistics large KBs keep (TermStat, refreshed by their ingest jobs), since counting a common word in
100,000 memories costs more than the rest of a recall. A small scope's words are counted in one reading of it;
an end user's scope with many shared rows is counted and read in its two parts (:func:`_split`).
"""

from __future__ import annotations

import math
import time

from kbsite.languages.fulltext import term_params, term_sql
from kbsite.replicas import reads
from memories.recall.scope import Table

DF_CAP = 1000
FTS_ROWS = 500
DF_CACHE_MIN = 50
DF_CACHE_SECONDS = 600
DF_CACHE_SIZE = 20000
SMALL_SCOPE_SECONDS = 30
BM25_K1 = 1.2
BM25_B = 0.75
# A word in more than this share of the scope's rows tells none of them apart: "Where does Rosa work?" asked of
# Rosa's own memories, each of which opens on her name. Its weight is about nothing, but every row holding it
# would join the ranked list, the newest first, above the rows that hold no word of the question at all. Scopes
# under COMMON_FROM rows are too few to tell.
COMMON_SHARE = 0.5
COMMON_FROM = 20
_df_cache: dict = {}
_size_cache: dict = {}


def fts_ranked(
    tables: list[Table],
    tsquery: str,
    limit: int,
    stats_kb_ids: tuple[int, ...] | None = None,
    codes: tuple[str, ...] = ("",),
) -> dict[str, list[int]]:
    """For each table (by its type), the rows matching any informative query word, ranked BM25-style: each matched
    word counts by its rarity in the KB (IDF), so a name that is in half the conversation weighs less than the word
    that matters. ``stats_kb_ids``: the KBs whose word statistics the memory table may read; ``codes``: the languages
    the rows are in, each word searched under each one's configuration.

    Every row touched costs a heap read, so at most FTS_ROWS rows are looked at: the rarest words bring
    all their rows, a common word only as many as are left. A row that matches a rare word is scored on
    every word it has, so only rows matching nothing but common words are sampled.

    The tables are asked together: one round trip for the words' counts, one for the ranked lists.
    """
    terms = [t for t in tsquery.split(" or ") if t]
    if not terms:
        return {}
    frequencies = _term_frequencies(tables, terms, stats_kb_ids, list(codes))
    branches, branch_params = [], []
    for index, (table, found) in enumerate(zip(tables, frequencies, strict=True)):
        # A word in at least DF_CAP memories has an IDF of about zero: it cannot rank, and would make every
        # one of those rows a candidate. A query made only of such words has no full-text list.
        stats = sorted(((q, df) for q, df in found if 0 < df < DF_CAP), key=lambda row: row[1])
        if stats and (ranked_sql := _ranked_sql(table, stats, limit)):
            sql, params = ranked_sql
            branches.append(f"(SELECT {index} AS t, id, score FROM ({sql}) ranked_{index})")
            branch_params += params
    if not branches:
        return {}
    with reads.cursor() as cursor:
        cursor.execute(
            f"SELECT t, id FROM ({' UNION ALL '.join(branches)}) ranked ORDER BY t, score DESC, id DESC", branch_params
        )
        rows = cursor.fetchall()
    ranked: dict[str, list[int]] = {}
    for index, pk in rows:
        ranked.setdefault(tables[index].type, []).append(pk)
    return ranked


def _ranked_sql(searched: Table, stats: list[tuple[str, int]], limit: int) -> tuple[str, list] | None:
    """The ranked list of one table as SQL: ``stats`` are its informative words' tsqueries and counts, rarest
    first; None when every word is in most of the scope's rows (COMMON_SHARE)."""
    total, avg_length = _size(searched)
    stats = [(q, df) for q, df in stats if total < COMMON_FROM or df <= COMMON_SHARE * total]
    if not stats:
        return None
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
    rows_sql, rows_params = _word_rows(searched)
    rows = " UNION ALL ".join(f"({rows_sql})" for _ in weighted)
    row_params = [v for (q, _), quota in zip(weighted, quotas, strict=True) for v in rows_params(q, quota)]
    sql = f"""SELECT id, score FROM (
                  SELECT DISTINCT ON (c.id) c.id,
                         ({score}) / (1 + %s * (1 - %s + %s * length(c.search_vector) / %s)) AS score
                  FROM ({rows}) c
              ) scored
              ORDER BY score DESC, id DESC
              LIMIT %s"""
    return sql, [*score_params, BM25_K1, BM25_B, BM25_B, avg_length, *row_params, limit]


def _word_rows(searched: Table):
    """SQL of up to a quota of the rows in scope holding one word, and a function of the word's tsquery and the
    quota that gives its parameters.

    An end user's scope with many shared rows (:func:`_split`) is read in its two parts: the user's own rows first,
    read through the user's index and each tested for the word (a common word's posting list, hundreds of
    thousands of rows across every user's turns, is never read for a user's hundred), then the shared rows through
    the index of their words alone."""
    table, scope, params = searched.name, searched.where, list(searched.params)
    indexed = f"SELECT {table}.id, {table}.search_vector FROM {table} WHERE {table}.search_vector @@ %s::tsquery AND "
    if not _split(searched):
        return f"{indexed}{scope} LIMIT %s", lambda q, quota: (q, *params, quota)
    own, shared = searched.own, searched.shared
    sql = f"""SELECT id, search_vector FROM (
                 ({_own_rows(own)} WHERE own.search_vector @@ %s::tsquery LIMIT %s)
                 UNION ALL ({indexed}{shared.where} LIMIT %s)
             ) word LIMIT %s"""
    return sql, lambda q, quota: (*own.params, q, quota, q, *shared.params, quota, quota)


def _own_rows(own: Table) -> str:
    """``SELECT … FROM (the user's own rows) own``: read through the user's index, the word tested on each (the
    subquery's OFFSET keeps the planner from reading the word's posting list instead); a user with many rows of
    their own (DF_CAP or more) is read through the words' index as any scope is."""
    table = own.name
    fence = " OFFSET 0" if _size(own)[0] < DF_CAP else ""
    rows = f"SELECT {table}.id, {table}.search_vector FROM {table} WHERE {own.where}{fence}"
    return f"SELECT own.id, own.search_vector FROM ({rows}) own"


def _split(table: Table) -> bool:
    """Whether ``table`` is an end user's scope whose shared rows are many (DF_CAP or more): its words are then
    counted and read in its two parts, the user's own rows and the shared ones."""
    shared = table.shared
    return table.own is not None and shared is not None and _size(shared)[0] >= DF_CAP


def _size(table: Table) -> tuple[int, float]:
    """:func:`_scope_size` of ``table``; of an end user's scope read in two parts (:func:`_split`), from its
    parts' sizes, each kept as long as its own."""
    if not _split(table):
        return _scope_size(table.name, table.where, list(table.params))
    (shared, shared_length), (own, own_length) = _size(table.shared), _size(table.own)
    return min(shared + own, DF_CAP), (shared * shared_length + own * own_length) / max(shared + own, 1)


def _term_frequencies(
    tables: list[Table], terms: list[str], stats_kb_ids: tuple[int, ...] | None = None, codes: list[str] = ("",)
) -> list[list[tuple[str, int]]]:
    """For each table, (tsquery, document frequency in scope, counted up to DF_CAP) of each word that makes one.

    Counting a common word reads up to DF_CAP rows. Large KBs keep their word counts in TermStat
    (``stats_kb_ids``: every KB in scope has them; memories only), which are read instead; elsewhere counts of
    common words are kept for a while in this process (an IDF that is minutes old ranks the same). A word the
    statistics do not know yet, and any rare word, is counted: cheap, and always fresh, so a word that
    has just appeared in the KB is never missed. What is counted, for every table, is counted in one statement.
    """
    known = _known_counts(tables, terms, stats_kb_ids, list(codes))
    return [[(found[term][0], found[term][1]) for term in terms if found[term][0]] for found in known]


def _known_counts(tables: list[Table], terms: list[str], stats_kb_ids, codes: list[str]) -> list[dict]:
    """For each table, each word's (tsquery, count in scope up to DF_CAP, until when it may be kept)."""
    now = time.monotonic()
    keys = [(table.name, table.where, repr(table.params), tuple(codes)) for table in tables]
    known: list[dict] = []
    for table, key in zip(tables, keys, strict=True):
        cached = {term: _df_cache[(key, term)] for term in terms if _df_cache.get((key, term), (0, 0, 0))[2] > now}
        if stats_kb_ids and table.type == "memory" and len(codes) == 1:
            cached.update(_term_stats(stats_kb_ids, [term for term in terms if term not in cached], now, codes[0]))
        known.append(cached)
    for table, found in zip(tables, known, strict=True):
        if _split(table):
            _split_counts(table, [term for term in terms if term not in found], found, stats_kb_ids, codes)
    counts, params = [], []
    for index, (table, found) in enumerate(zip(tables, known, strict=True)):
        missing = [term for term in terms if term not in found]
        if missing and _size(table)[0] < DF_CAP:
            # A small scope (an end user's hundred memories) is read once and every word tested on its rows: a
            # statement of a subquery per word, for a vague question's hundred words, took 60 ms to plan.
            words = ", ".join(f"(%s, {term_sql(codes)})" for _ in missing)
            counts.append(
                f"""(WITH scope AS MATERIALIZED (SELECT {table.name}.search_vector FROM {table.name}
                    WHERE {table.where})
                    SELECT {index}, w.term, w.q::text, (SELECT count(*) FROM scope WHERE scope.search_vector @@ w.q)
                    FROM (VALUES {words}) AS w(term, q))"""
            )
            params += [*table.params, *(v for term in missing for v in (term, *term_params(codes, term)))]
            continue
        for term in missing:
            # A constant tsquery per word, for the reason fts_ranked gives.
            counts.append(
                f"""SELECT {index}, %s, {term_sql(codes)}::text, (SELECT count(*) FROM (
                    SELECT 1 FROM {table.name} WHERE {table.name}.search_vector @@ {term_sql(codes)}
                    AND {table.where} LIMIT %s) capped)"""
            )
            params += [term, *term_params(codes, term), *term_params(codes, term), *table.params, DF_CAP]
    if counts:
        with reads.cursor() as cursor:
            cursor.execute(" UNION ALL ".join(counts), params)
            for index, term, q, df in cursor.fetchall():
                known[index][term] = (q, df, now + DF_CACHE_SECONDS)
                if df >= DF_CACHE_MIN:
                    _df_cache[(keys[index], term)] = known[index][term]
    if len(_df_cache) > DF_CACHE_SIZE:
        _df_cache.clear()
    return known


def _split_counts(table: Table, terms: list[str], found: dict, stats_kb_ids, codes) -> None:
    """The counts of ``terms`` in an end user's scope read in two parts (:func:`_split`): in the shared rows, which
    every user of the KBs shares (a common word's count kept a while per process, as any scope's), plus in the
    user's own rows, tested one by one (one statement for every word). With 100,000 shared turns, counting each
    word over a user's whole scope took up to 160 ms of a recall: it read the word's rows of every user."""
    if not terms:
        return
    shared = _known_counts([table.shared], terms, stats_kb_ids, codes)[0]
    asked = [term for term in terms if shared[term][0]]
    found.update({term: shared[term] for term in terms if term not in asked})  # no tsquery (a stop word): no count
    if not asked:
        return
    own = table.own
    tested = ", ".join("count(*) FILTER (WHERE own.search_vector @@ %s::tsquery)" for _ in asked)
    with reads.cursor() as cursor:
        cursor.execute(
            f"SELECT {tested} FROM ({_own_rows(own)} LIMIT %s) own",
            [*(shared[term][0] for term in asked), *own.params, DF_CAP],
        )
        counted = cursor.fetchone()
    now = time.monotonic()
    for term, mine in zip(asked, counted, strict=True):
        found[term] = (shared[term][0], min(shared[term][1] + mine, DF_CAP), now)


def _term_stats(kb_ids: tuple[int, ...], terms: list[str], now: float, code: str) -> dict[str, tuple[str, int, float]]:
    """Document frequencies of the single-word ``terms`` found in the KBs' TermStat rows."""
    if not terms:
        return {}
    with reads.cursor() as cursor:
        cursor.execute(
            """SELECT t.term, t.q::text, s.n FROM (
                   SELECT term, websearch_to_tsquery(kbsite_fts_config(%s), term) AS q
                   FROM unnest(%s::text[]) AS term) t
               CROSS JOIN LATERAL (
                   SELECT sum(ndoc) AS n FROM memories_termstat
                   WHERE kb_id = ANY(%s) AND numnode(t.q) = 1 AND term = btrim(t.q::text, chr(39))) s
               WHERE s.n IS NOT NULL""",
            [code, terms, list(kb_ids)],
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
    with reads.cursor() as cursor:
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
