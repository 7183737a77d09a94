"""The product's limits and knobs: input sizes, ingestion, rate limits, recall and context, knowledge documents,
archiving."""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from kbsite.env import env_bool, env_float, env_int, env_str, var_dir

# Per-KB folders (inbox/, processed/, failed/, knowledge/) live under KBSITE_DATA_DIR.
KBSITE_DATA_DIR = Path(env_str("KBSITE_DATA_DIR", str(var_dir() / "data")))

# --- Ingestion -------------------------------------------------------------------
# Turns per extraction call, live facts shown to the model, and inbox polling.
EXTRACT_BATCH_TURNS = env_int("EXTRACT_BATCH_TURNS", 40, minimum=1)
# A job claims sessions holding about this many new turns at a time; offline they are embedded together.
EXTRACT_CHUNK_TURNS = env_int("EXTRACT_CHUNK_TURNS", 512, minimum=1)
EXTRACT_LIVE_FACTS = env_int("EXTRACT_LIVE_FACTS", 60, minimum=0)
MAX_MESSAGES_PER_REQUEST = env_int("MAX_MESSAGES_PER_REQUEST", 1000, minimum=1)
MAX_MESSAGE_CHARS = env_int("MAX_MESSAGE_CHARS", 32000, minimum=100)
MAX_INGEST_TEXT_CHARS = env_int("MAX_INGEST_TEXT_CHARS", 1_000_000, minimum=100)
# A file counts as complete once it has not changed for this long.
INBOX_SETTLE_SECONDS = env_float("INBOX_SETTLE_SECONDS", 2.0)
INBOX_SCAN_MINUTES = env_int("INBOX_SCAN_MINUTES", 1, minimum=1)
# Cosine similarity above which a new fact is a near-duplicate of a live one.
NEAR_DUPLICATE_SIMILARITY = env_float("NEAR_DUPLICATE_SIMILARITY", 0.97)
# A KB's memories enter the approximate vector index (HNSW) once it holds this many; below it, vector
# recall scans the KB exactly: exact, about 6 ms for 2,000 memories in a 1M-memory table, and storing a
# memory skips the graph insert, the largest CPU cost of storing it (1.6 of 2.4 CPU-s in the LoCoMo ingest).
VECTOR_INDEX_MIN_MEMORIES = env_int("VECTOR_INDEX_MIN_MEMORIES", 2000, minimum=1)

# --- Rate limits ---------------------------------------------------------------------
# A new bot's requests per minute for each of its keys (the bot's page and PATCH /api/v1/bot/ change it; 0: none),
# and the burst on top: this many seconds' worth of requests at once (10 s: a sixth of the minute's).
BOT_REQUESTS_PER_MINUTE = env_int("BOT_REQUESTS_PER_MINUTE", 600, minimum=0)
RATE_LIMIT_BURST_SECONDS = env_int("RATE_LIMIT_BURST_SECONDS", 10, minimum=1)

# --- Recall, context, consolidation ------------------------------------------------
# Consolidation: unconsolidated memories reviewed per run (oldest first).
CONSOLIDATE_BATCH = env_int("CONSOLIDATE_BATCH", 50, minimum=2)
# Reciprocal Rank Fusion constant: score = weight / (RECALL_RRF_K + rank). The seed's 60 suits lists of
# about a thousand results; ours hold 60 candidates, where 60 flattens rank 1 and rank 20 to within 1.3x.
# LoCoMo evidence recall@10 / within 2,000 chars: k=60 0.657 / 0.704, k=30 0.688 / 0.730, k=10 0.718 / 0.756.
RECALL_RRF_K = env_int("RECALL_RRF_K", 10, minimum=1)
# Context block: its size when a request names none (the chat proxy's is PROXY_CONTEXT_CHARS), and the end user's
# profile at its top (identity, preferences, constraints), within at most this many of those characters.
CONTEXT_CHARS = env_int("CONTEXT_CHARS", 4000, minimum=200)
PROFILE_CHARS = env_int("PROFILE_CHARS", 800, minimum=0)
# Context block: a memory found only by vector search must be at least this similar to the query.
CONTEXT_RELEVANCE_THRESHOLD = env_float("CONTEXT_RELEVANCE_THRESHOLD", 0.3)

# --- Knowledge documents -------------------------------------------------------
# Chunks of about KNOWLEDGE_CHUNK_CHARS characters, overlapping by KNOWLEDGE_CHUNK_OVERLAP.
KNOWLEDGE_CHUNK_CHARS = env_int("KNOWLEDGE_CHUNK_CHARS", 800, minimum=100)
KNOWLEDGE_CHUNK_OVERLAP = env_int("KNOWLEDGE_CHUNK_OVERLAP", 100, minimum=0)
if KNOWLEDGE_CHUNK_OVERLAP >= KNOWLEDGE_CHUNK_CHARS:
    raise ImproperlyConfigured("KNOWLEDGE_CHUNK_OVERLAP must be smaller than KNOWLEDGE_CHUNK_CHARS")
# Markdown written by bots (API, tools) is capped (seed 002: 64 KB).
KNOWLEDGE_MAX_MARKDOWN_BYTES = env_int("KNOWLEDGE_MAX_MARKDOWN_BYTES", 64 * 1024, minimum=1024)
# The knowledge/ folders are re-read into the index this often (and when the workers start).
KNOWLEDGE_SYNC_MINUTES = env_int("KNOWLEDGE_SYNC_MINUTES", 5, minimum=1)
# A session with more than ARCHIVE_AFTER_TURNS unarchived turns has all but its newest
# ARCHIVE_KEEP_TURNS summarised into a conversation document.
ARCHIVE_AFTER_TURNS = env_int("ARCHIVE_AFTER_TURNS", 200, minimum=2)
ARCHIVE_KEEP_TURNS = env_int("ARCHIVE_KEEP_TURNS", 50, minimum=0)
if ARCHIVE_KEEP_TURNS >= ARCHIVE_AFTER_TURNS:
    raise ImproperlyConfigured("ARCHIVE_KEEP_TURNS must be smaller than ARCHIVE_AFTER_TURNS")
# The dashboard's counts of memories, waiting turns and jobs are kept this many seconds in each web process's
# cache (counting a million memories takes a tenth of a second or more); its daily figures are always current.
DASHBOARD_CACHE_SECONDS = env_int("DASHBOARD_CACHE_SECONDS", 30, minimum=0)
# A job queued longer than this is shown as waiting on workers that may not be running.
DASHBOARD_STUCK_MINUTES = env_int("DASHBOARD_STUCK_MINUTES", 5, minimum=1)
# Recall, context, ask and tool calls answer with what they spent (``usage``: LLM calls, tokens, texts embedded,
# server time), the chat proxies say it in Kbsite-Usage-* headers, and each bot's daily usage is kept
# (GET /api/v1/usage/).
USAGE_ACCOUNTING = env_bool("USAGE_ACCOUNTING", True)
