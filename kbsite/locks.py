"""Every PostgreSQL advisory lock of the product: its namespace, what it guards, and the one way to take it.

A lock is a (namespace, key) pair; the key is a row id, or a text's hash for keys that are names.
Transaction locks are released at commit or rollback; the session lock of a consolidation run is held
across its LLM call, outside any transaction, and released explicitly.
"""

from __future__ import annotations

import zlib
from enum import IntEnum

from django.db import connection


class Lock(IntEnum):
    # Writing the memories of KB n: posts of turns (exact duplicate check), ingest applies, moves into the
    # vector index. Applies of one KB take turns; their extraction and embedding run beside each other.
    KB_WRITE = 7_001
    # A consolidation run of KB n: runs of one KB never overlap (a second one is skipped).
    CONSOLIDATE = 7_002
    # Document "<kb id>/<slug>": a write-through and the folder sync never interleave on one file.
    DOCUMENT = 7_003
    # The folder sync of KB n: one sync of a KB at a time (another one skips it).
    SYNC = 7_004
    # Archiving session n: two runs never archive the same turns.
    ARCHIVE = 7_005
    # Healing the jobs (key 0): one sweep at a time, though every worker sweeps as it starts.
    HEAL = 7_006


def text_key(text: str) -> int:
    """A lock key for a name (a signed 32-bit hash)."""
    return zlib.crc32(text.encode()) - 2**31


def hold(lock: Lock, key: int) -> None:
    """Wait for the lock and hold it until the transaction ends."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [int(lock), key])


def try_hold(lock: Lock, key: int) -> bool:
    """Hold the lock until the transaction ends, if no one else holds it; False (without waiting) otherwise."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [int(lock), key])
        return cursor.fetchone()[0]


def try_acquire(lock: Lock, key: int) -> bool:
    """Take the lock for this database session, if free; hand it back with :func:`release`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [int(lock), key])
        return cursor.fetchone()[0]


def release(lock: Lock, key: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [int(lock), key])
