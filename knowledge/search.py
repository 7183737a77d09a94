"""Hybrid search over document chunks: full text + vector (and the multilingual vector, where a language other
than English is held or asked in), fused with RRF, with highlighted snippets."""

from __future__ import annotations

import json

from django.db import transaction

from kbsite import languages
from kbsite.ai import embeddings
from kbsite.ai.fulltext import text_query
from kbsite.ai.fusion import Fusion, pack
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.languages.detection import query_language
from kbsite.languages.fulltext import held, term_params, term_sql
from kbsite.models import KnowledgeBase
from kbsite.models.embeddings import stale_clause
from kbsite.replicas import reads

CANDIDATES = 50
# all-MiniLM-L6-v2 reads English only: its list of chunks counts this much, against the words' and the multilingual
# vector's 1, for a question in another language. On the Spanish development notes (54 questions, read while tuning),
# the right note first: 35 at 1, 38 at 0.5, 40 at 0.25, 39 without the list (stop 62).
FIRST_WEIGHT_ELSEWHERE = 0.25
SNIPPET = "StartSel=**, StopSel=**, MaxFragments=2, MaxWords=30, MinWords=10"


def chunks_search(
    *,
    kbs: list[KnowledgeBase],
    query: str,
    limit: int = 5,
    doc_types: list[str] | None = None,
    namespaces: list[str] | None = None,
    exclude_session: str | None = None,
    query_vector=None,
    budget_chars: int | None = None,
    include_quarantined: bool = False,
    end_user_id: int | None = None,
) -> list[dict]:
    """Best chunks of the KBs' present documents for ``query``, best first, at most ``limit`` and
    ``budget_chars`` characters of chunk text: the shared documents, and with ``end_user_id`` that end user's own.

    Quarantined documents are left out unless an operator asks for them: what this returns may be put into a
    bot's prompt. ``exclude_session`` leaves out that session's own archived conversations.

    A query in a language other than English is searched by its words and its multilingual vector first, where the
    first embedder reads English only (all-MiniLM-L6-v2): that embedder's list counts little for such a query
    (``FIRST_WEIGHT_ELSEWHERE``), and the chunks' closeness (what the context block keeps a chunk by) is the
    multilingual vector's: the first puts any two Spanish sentences close.
    """
    if not kbs:
        return []
    if query_vector is None:
        query_vector = as_vectors([embeddings.embed_query(query)])[0]
    where, params = _scope(kbs, doc_types, namespaces, exclude_session, include_quarantined, end_user_id)
    tsquery = text_query(query)
    codes = held(kbs)
    asked_in = query_language(query, kbs)
    second = _multilingual_vector(query, kbs, codes, asked_in)
    by_first = second is None or asked_in in languages.ENGLISH or not embeddings.get_embedder().english_only
    weight = 1.0 if by_first else FIRST_WEIGHT_ELSEWHERE
    with transaction.atomic(using=reads.alias), vector_cursor(reads) as cursor:
        fusion, similarity = _ranked(cursor, where, params, tsquery, query_vector, codes, weight)
        if second is not None:
            closeness = _multilingual_ranked(cursor, fusion, where, params, second)
            similarity = similarity if by_first else closeness
        ranked = fusion.ranked()[: max(limit * 3, limit)]
        if not ranked:
            return []
        rows = _rows(cursor, ranked, tsquery or query)
    results = [_result(rows[pk], fusion, similarity) for pk in ranked]
    return pack(results, k=limit, budget_chars=budget_chars, size=lambda result: len(result["text"]))


def _scope(kbs, doc_types, namespaces, exclude_session, include_quarantined, end_user_id) -> tuple[str, list]:
    """The WHERE clause over chunk ``c`` and its document ``d``, and its parameters."""
    clauses = ["c.kb_id = ANY(%s)", "d.deleted_at IS NULL", "d.status = 'done'"]
    params: list = [[kb.pk for kb in kbs]]
    if end_user_id:
        clauses.append("(d.end_user_id IS NULL OR d.end_user_id = %s)")
        params.append(end_user_id)
    else:
        clauses.append("d.end_user_id IS NULL")
    if not include_quarantined:
        clauses.append("d.quarantine_reason = ''")
    if doc_types:
        clauses.append("d.doc_type = ANY(%s)")
        params.append(doc_types)
    if namespaces:
        clauses.append("d.namespace = ANY(%s)")
        params.append(namespaces)
    if exclude_session:
        # Archived conversations of the caller's own session are not "past conversations".
        clauses.append("COALESCE(d.metadata->>'session_id', '') <> %s")
        params.append(exclude_session)
    return " AND ".join(clauses), params


def _ranked(
    cursor, where: str, params: list, tsquery: str, query_vector, codes: list[str], weight: float = 1.0
) -> tuple[Fusion, dict[int, float]]:
    """The full-text and vector lists of chunks, fused; and the similarity of what the vector list found. The words
    are searched under the configuration of each language the KBs hold (``codes``); the vector list counts
    ``weight``."""
    fusion = Fusion()
    if tsquery:
        cursor.execute(
            f"""SELECT c.id FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id,
                (SELECT {term_sql(codes)} AS q) t
                WHERE c.search_vector @@ t.q AND {where}
                ORDER BY ts_rank_cd(c.search_vector, t.q, 1) DESC, c.id LIMIT %s""",
            [*term_params(codes, tsquery), *params, CANDIDATES],
        )
        fusion.add([pk for (pk,) in cursor.fetchall()], weight=1.0, signal="fts")
    cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    fresh, fresh_params = stale_clause("knowledge_chunk", "c")  # none of another model's vectors (re-embedding)
    cursor.execute(
        f"""SELECT c.id, 1 - (c.embedding <=> %s) FROM knowledge_chunk c
            JOIN knowledge_document d ON d.id = c.document_id
            WHERE c.embedding IS NOT NULL AND {where} AND {fresh}
            ORDER BY c.embedding <=> %s LIMIT %s""",
        [query_vector, *params, *fresh_params, query_vector, CANDIDATES],
    )
    found = cursor.fetchall()
    fusion.add([pk for pk, _ in found], weight=weight, signal="vector")
    return fusion, {pk: embeddings.scaled(float(sim)) for pk, sim in found}


def _multilingual_vector(query: str, kbs: list[KnowledgeBase], codes: list[str], asked_in: str):
    """The query's multilingual vector (embeddings.get_multilingual), where the KBs hold a language other than
    English or the query is in one (``asked_in``); else None (an English-only KB pays nothing for it)."""
    if embeddings.get_multilingual() is None:
        return None
    if all(code in languages.ENGLISH for code in codes) and asked_in == "en":
        return None
    return as_vectors([embeddings.embed_multilingual_query(query)])[0]


def _multilingual_ranked(cursor, fusion: Fusion, where: str, params: list, vector) -> dict[int, float]:
    """Add to ``fusion`` the chunks closest to the query in their multilingual vectors; their similarity, on the
    product's scale."""
    cursor.execute(
        f"""SELECT c.id, 1 - (c.multilingual_embedding <=> %s) FROM knowledge_chunk c
            JOIN knowledge_document d ON d.id = c.document_id
            WHERE c.multilingual_embedding IS NOT NULL AND {where}
            ORDER BY c.multilingual_embedding <=> %s LIMIT %s""",
        [vector, *params, vector, CANDIDATES],
    )
    found = cursor.fetchall()
    fusion.add([pk for pk, _ in found], weight=1.0, signal="multilingual")
    return {pk: embeddings.scaled_multilingual(float(sim)) for pk, sim in found}


def _rows(cursor, ids: list[int], query: str) -> dict[int, tuple]:
    """The chunks ``ids`` with their document's fields and a highlighted snippet, by id."""
    cursor.execute(
        f"""SELECT c.id, c.ordinal, c.text, d.slug, d.title, d.doc_type, d.namespace, d.metadata, d.kb_id,
                  ts_headline(kbsite_fts_config(c.language), c.text,
                              websearch_to_tsquery(kbsite_fts_config(c.language), %s), '{SNIPPET}')
           FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id WHERE c.id = ANY(%s)""",
        [query, ids],
    )
    return {row[0]: row for row in cursor.fetchall()}


def _result(row: tuple, fusion: Fusion, similarity: dict[int, float]) -> dict:
    pk = row[0]
    return {
        "chunk_id": pk,
        "chunk": row[1],
        "text": row[2],
        "document": row[3],
        "title": row[4],
        "doc_type": row[5],
        "namespace": row[6],
        # Django's connection hands jsonb over as text.
        "metadata": json.loads(row[7]) if isinstance(row[7], str) else row[7],
        "kb_id": row[8],
        "snippet": row[9],
        "score": fusion.scores[pk],
        "signals": fusion.signals[pk],
        "similarity": similarity.get(pk, 0.0),
    }
