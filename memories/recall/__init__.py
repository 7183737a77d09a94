"""Hybrid recall: what a bot gets back for a query.

Direct relevance comes from two ranked lists over the KBs' live, non-quarantined memories and insights
(``scope``): PostgreSQL full text, BM25-weighted (``fulltext``), and pgvector KNN (``vector``). They are fused
with Reciprocal Rank Fusion and weighted by kind, by the subject and the period the query names (``query``,
``weights``) in ``hybrid``; the neighbouring turns of the best matches join as a lighter third list, and graph
neighbours and recent memories only fill what the budget leaves (``neighbours``). Results are packed in rank
order under a character budget, each with the signals that found it and its sources (``hits``).

Built on it: the context block a bot puts in its prompt (``context``) and ask, an answer citing the memories it used
(``answers``).
"""

from memories.recall.hits import Hit
from memories.recall.hybrid import RecallQuery, multilingual_embedding, query_embedding, recall
from memories.recall.query import query_period

__all__ = ["Hit", "RecallQuery", "multilingual_embedding", "query_embedding", "query_period", "recall"]
