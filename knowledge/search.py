"""Hybrid search over document chunks: full text + vector, fused with RRF, with highlighted snippets."""

from __future__ import annotations

import json
from collections import defaultdict

from django.conf import settings
from django.db import transaction

from kbsite.ai import embeddings
from kbsite.ai.fulltext import FTS_CONFIG, text_query
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.models import KnowledgeBase

CANDIDATES = 50


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
) -> list[dict]:
    """Best chunks of the KBs' present documents for ``query``, best first.

    Quarantined documents are left out unless an operator asks for them: what
    this returns may be put into a bot's prompt.
    """
    if not kbs:
        return []
    if query_vector is None:
        query_vector = as_vectors([embeddings.embed_query(query)])[0]
    clauses = ["c.kb_id = ANY(%s)", "d.deleted_at IS NULL", "d.status = 'done'"]
    if not include_quarantined:
        clauses.append("d.quarantine_reason = ''")
    params: list = [[kb.pk for kb in kbs]]
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
    scope = " AND ".join(clauses)
    tsquery = text_query(query)
    scores: dict[int, float] = defaultdict(float)
    signals: dict[int, list[str]] = defaultdict(list)
    similarity: dict[int, float] = {}
    with transaction.atomic(), vector_cursor() as cursor:
        if tsquery:
            cursor.execute(
                f"""SELECT c.id FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id,
                    websearch_to_tsquery(%s, %s) q
                    WHERE c.search_vector @@ q AND {scope}
                    ORDER BY ts_rank_cd(c.search_vector, q, 1) DESC, c.id LIMIT %s""",
                [FTS_CONFIG, tsquery, *params, CANDIDATES],
            )
            for rank, (pk,) in enumerate(cursor.fetchall()):
                scores[pk] += 1.0 / (settings.RECALL_RRF_K + rank + 1)
                signals[pk].append("fts")
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute(
            f"""SELECT c.id, 1 - (c.embedding <=> %s) FROM knowledge_chunk c
                JOIN knowledge_document d ON d.id = c.document_id
                WHERE c.embedding IS NOT NULL AND {scope}
                ORDER BY c.embedding <=> %s LIMIT %s""",
            [query_vector, *params, query_vector, CANDIDATES],
        )
        for rank, (pk, sim) in enumerate(cursor.fetchall()):
            scores[pk] += 1.0 / (settings.RECALL_RRF_K + rank + 1)
            signals[pk].append("vector")
            similarity[pk] = float(sim)
        ranked = sorted(scores, key=lambda pk: -scores[pk])[: max(limit * 3, limit)]
        if not ranked:
            return []
        cursor.execute(
            """SELECT c.id, c.ordinal, c.text, d.slug, d.title, d.doc_type, d.namespace, d.metadata, d.kb_id,
                      ts_headline(%s, c.text, websearch_to_tsquery(%s, %s),
                                  'StartSel=**, StopSel=**, MaxFragments=2, MaxWords=30, MinWords=10')
               FROM knowledge_chunk c JOIN knowledge_document d ON d.id = c.document_id WHERE c.id = ANY(%s)""",
            [FTS_CONFIG, FTS_CONFIG, tsquery or query, ranked],
        )
        rows = {row[0]: row for row in cursor.fetchall()}
    results, used = [], 0
    for pk in ranked:
        row = rows[pk]
        if budget_chars is not None and used + len(row[2]) > budget_chars:
            continue
        used += len(row[2])
        results.append(
            {
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
                "score": scores[pk],
                "signals": signals[pk],
                "similarity": similarity.get(pk, 0.0),
            }
        )
        if len(results) >= limit:
            break
    return results
