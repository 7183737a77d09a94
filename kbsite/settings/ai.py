"""The LLM (any OpenAI-compatible endpoint; none = offline mode) and the embedding model."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from kbsite.env import env_bool, env_float, env_int, env_list, env_str
from kbsite.settings.jobs import WORKERS

LLM_BASE_URL = env_str("LLM_BASE_URL")
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 3, minimum=0)
LLM_RETRY_BACKOFF_SECONDS = env_float("LLM_RETRY_BACKOFF_SECONDS", 2.0)
# The most a reply may hold: a model that runs on is cut there (and the reply refused), not waited for until the
# time-out.
LLM_MAX_TOKENS = env_int("LLM_MAX_TOKENS", 4096, minimum=64)
# Optional multimodal models for inbox images and audio (else those files fail with a clear reason).
LLM_VISION_MODEL = env_str("LLM_VISION_MODEL")
LLM_AUDIO_MODEL = env_str("LLM_AUDIO_MODEL")

EMBEDDING_BACKEND = env_str("EMBEDDING_BACKEND", "local")
if EMBEDDING_BACKEND not in {"local", "openai"}:
    raise ImproperlyConfigured(f"EMBEDDING_BACKEND must be 'local' or 'openai', got {EMBEDDING_BACKEND!r}")
EMBEDDING_BASE_URL = env_str("EMBEDDING_BASE_URL") or LLM_BASE_URL
EMBEDDING_API_KEY = env_str("EMBEDDING_API_KEY") or LLM_API_KEY
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
# The models the local backend runs (each shipped inside a wheel, loaded offline).
LOCAL_EMBEDDING_MODELS = ("all-MiniLM-L6-v2", "multilingual-e5-small")
if EMBEDDING_BACKEND == "local" and EMBEDDING_MODEL not in LOCAL_EMBEDDING_MODELS:
    raise ImproperlyConfigured(
        f"EMBEDDING_MODEL must be one of {', '.join(LOCAL_EMBEDDING_MODELS)} with the local backend, "
        f"got {EMBEDDING_MODEL!r}"
    )
# The vector columns are created with this many dimensions; an OpenAI-compatible
# model must be asked for (or natively produce) the same number.
EMBEDDING_DIMENSIONS = 384
# Queries (recall) embedded by the local model on ONNX Runtime (the same vectors in half the time); off: PyTorch.
EMBEDDING_ONNX = env_bool("EMBEDDING_ONNX", True)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 32, minimum=1)
# CPU threads for the local model in each process; by default the cores are shared among the job workers.
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", max(1, (os.cpu_count() or 1) // WORKERS), minimum=1)
# Document chunks, and memories in a language other than English, get a second vector from multilingual-e5-small
# (local, from its wheel), searched beside the first where a KB holds a language other than English (a Spanish
# question finds a Spanish note or fact worded otherwise, an English question a Spanish one; memories.multilingual).
# Off, or when EMBEDDING_MODEL is multilingual-e5-small already: one vector.
MULTILINGUAL_VECTORS = env_bool("MULTILINGUAL_VECTORS", True)
# CPU threads for one query's embedding by multilingual-e5-small in a web process (it is short and alone).
EMBEDDING_QUERY_THREADS = env_int("EMBEDDING_QUERY_THREADS", min(2, os.cpu_count() or 1), minimum=1)

# The chat proxy (/openai/v1/): the upstream is LLM_BASE_URL with LLM_API_KEY. A request's model is sent as it is,
# or renamed by PROXY_MODELS ("gpt-4o=llama3.1:70b,gpt-4o-mini=llama3.1:8b"); the memory context block it adds is
# at most PROXY_CONTEXT_CHARS; PROXY_TIMEOUT_SECONDS bounds the wait for the upstream's answer (each chunk of a
# stream).
PROXY_MODELS = dict(pair.split("=", 1) for pair in env_list("PROXY_MODELS") if "=" in pair)
if len(PROXY_MODELS) != len(env_list("PROXY_MODELS")):
    raise ImproperlyConfigured("PROXY_MODELS must be comma-separated pairs asked=sent, e.g. gpt-4o=llama3.1:70b")
PROXY_CONTEXT_CHARS = env_int("PROXY_CONTEXT_CHARS", 4000, minimum=0)
PROXY_TIMEOUT_SECONDS = env_float("PROXY_TIMEOUT_SECONDS", 120.0)
# The Anthropic relay (/anthropic/v1/messages): its upstream speaks Anthropic's Messages API (Anthropic's own,
# https://api.anthropic.com, or a local server that does); empty: the relay answers 503.
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL")
ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
