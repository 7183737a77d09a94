"""The local embedding model runs offline from the wheel's own files."""

from __future__ import annotations

import math

from memories import embeddings


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
