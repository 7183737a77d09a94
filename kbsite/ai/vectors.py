"""pgvector on Django's connection: binary cursors for writing and reading vectors, and the query literal."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import psycopg
from django.db import connection
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo

_vector_info: dict[int, TypeInfo] = {}


def vector_cursor(db=connection, *, binary_results: bool = False):
    """A psycopg cursor on Django's connection ``db`` (same transaction) that speaks pgvector in binary.

    With ``binary_results``, a server-side-binding cursor that can fetch results in binary
    (``execute(..., binary=True)``): vectors arrive as packed floats instead of text to parse.
    """
    db.ensure_connection()
    raw = db.connection
    info = _vector_info.get(id(raw))
    if info is None:
        info = _vector_info[id(raw)] = TypeInfo.fetch(raw, "vector")
    cursor = psycopg.Cursor(raw) if binary_results else raw.cursor()
    register_vector_info(cursor, info)
    return cursor


def as_vectors(vectors: Sequence) -> list[np.ndarray]:
    return [np.asarray(v, dtype=np.float32) for v in vectors]


def vector_literal(vector) -> str:
    """pgvector's text form, made once per query (the driver would format the 384 floats at every use)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"
