"""Splitting text into pieces of bounded size at the largest semantic unit that fits.

One splitter for the whole product (semantic-text-splitter): sections and
paragraphs first, then sentences, then words, so a piece rarely cuts a
sentence. Used for extraction segments and for document chunks.
"""

from __future__ import annotations

from functools import lru_cache

from semantic_text_splitter import MarkdownSplitter, TextSplitter


@lru_cache(maxsize=16)
def _splitter(max_chars: int, overlap: int, markdown: bool):
    capacity = (max(1, max_chars - overlap), max_chars) if overlap else max_chars
    return (MarkdownSplitter if markdown else TextSplitter)(capacity, overlap=overlap)


def pieces_with_offsets(
    text: str, max_chars: int, *, overlap: int = 0, markdown: bool = False
) -> list[tuple[int, str]]:
    """``(character offset, piece)`` for each non-blank piece of at most ``max_chars`` characters."""
    return [
        (start, piece) for start, piece in _splitter(max_chars, overlap, markdown).chunk_indices(text) if piece.strip()
    ]


def pieces(text: str, max_chars: int, *, overlap: int = 0, markdown: bool = False) -> list[str]:
    return [piece for _, piece in pieces_with_offsets(text, max_chars, overlap=overlap, markdown=markdown)]
