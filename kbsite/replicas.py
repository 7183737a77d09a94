"""Reads on streaming replicas (DATABASE_REPLICA_URLS): which server a read uses, the bots' write marks, the lag.

A request that only reads (the API's GETs, recall and ask: :class:`kbsite.api.replica_reads.ReplicaReadsMixin`)
is served by a replica through :data:`reads` (the recall modules' raw SQL) and :class:`ReplicaRouter` (the ORM's
reads); every write, and every other request, goes to the primary (``default``).

- **Read-your-writes.** After each successful write of a bot, :func:`written` keeps where the primary's WAL stood
  (:class:`~kbsite.models.WriteMark`). A read of that bot goes to a replica only once the replica has replayed
  past the mark, and only while its replay is at most REPLICA_MAX_LAG_SECONDS behind; else to the primary.
- **A replica that fails** (refuses connections, drops one mid-query, does not answer within
  REPLICA_CONNECT_SECONDS) is left alone for REPLICA_DOWN_SECONDS in this process, and the read is served again
  by the primary: the caller sees an answer, not a 5xx.
- **Lag** (:func:`replica_states`) shows in ``/api/health/`` and on the dashboard.

With no replica configured nothing here runs a statement.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, OperationalError, connection, connections
from django.utils.connection import ConnectionProxy

T = TypeVar("T")

_reading: contextvars.ContextVar[str] = contextvars.ContextVar("kbsite_reading", default=DEFAULT_DB_ALIAS)
_down_until: dict[str, float] = {}
_down_lock = threading.Lock()
_turns = itertools.count()

# Whether a replica may serve a read of a bot whose last write is at %(mark)s (NULL: none known): it has replayed
# past the mark, and its replay is not stale. A server that is not in recovery is a primary: always current.
_SERVES_SQL = """SELECT NOT pg_is_in_recovery() OR (
    (%(mark)s::pg_lsn IS NULL OR pg_last_wal_replay_lsn() >= %(mark)s::pg_lsn)
    AND (pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn()
         OR now() - pg_last_xact_replay_timestamp() <= make_interval(secs => %(lag)s)))"""
_MARK_SQL = """INSERT INTO kbsite_writemark AS w (bot_id, lsn) VALUES (%s, pg_current_wal_insert_lsn()::text)
    ON CONFLICT (bot_id) DO UPDATE SET lsn = GREATEST(w.lsn::pg_lsn, EXCLUDED.lsn::pg_lsn)::text"""


def configured() -> bool:
    return bool(settings.DATABASE_REPLICAS)


class _Reads(ConnectionProxy):
    """``django.db.connection`` for the current read: a replica's while this request reads from one, else the
    primary's. The recall modules run their raw SQL on it."""

    def __init__(self):
        super().__init__(connections, DEFAULT_DB_ALIAS)

    def __getattr__(self, item):
        return getattr(connections[_reading.get()], item)


reads = _Reads()


class ReplicaRouter:
    """The ORM's reads go where :data:`reads` goes; every write, and every migration, to the primary."""

    def db_for_read(self, model, **hints):
        return _reading.get()

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS  # also for a row read from a replica: saved on the primary

    def allow_relation(self, obj1, obj2, **hints):
        return True  # every alias holds the same rows

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


def reading_start(bot_id: int) -> contextvars.Token:
    """Serve this context's reads from a replica that may serve ``bot_id`` (the primary if none may); give the
    token to :func:`reading_end`."""
    alias = _chosen(bot_id)
    if alias != DEFAULT_DB_ALIAS:
        _failed.set("")
        wrappers = connections[alias].execute_wrappers
        if _watched not in wrappers:
            wrappers.append(_watched)
    return _reading.set(alias)


# The replica a statement of this context failed on. Django's own mark of a failed connection (errors_occurred)
# does not last: a transaction ended after the failure reconnects, and connecting clears it.
_failed: contextvars.ContextVar[str] = contextvars.ContextVar("kbsite_replica_failed", default="")


def _watched(execute, sql, params, many, context):
    """Runs each statement on a replica's connection, keeping which replica failed at the connection's level."""
    try:
        return execute(sql, params, many, context)
    except (OperationalError, InterfaceError):
        _failed.set(context["connection"].alias)
        raise


def reading_end(token: contextvars.Token) -> None:
    _reading.reset(token)


def read(bot_id: int, call: Callable[[], T]) -> T:
    """``call()`` with its reads served by a replica that may serve ``bot_id`` (the primary when none may, and
    without replicas); if that replica fails mid-call, ``call()`` again on the primary. For reads outside the API's
    views (MCP's tools, the chat proxies' context block), which ReplicaReadsMixin serves the same way."""
    if not configured():
        return call()
    token = reading_start(bot_id)
    try:
        try:
            return call()
        except Exception as exc:
            if not lost(exc):
                raise
            return call()  # again, on the primary
    finally:
        reading_end(token)


def reading_from() -> str:
    """The alias this context reads from."""
    return _reading.get()


def lost(exc: BaseException) -> bool:
    """Whether ``exc`` is the current replica failing (a connection-level error on its connection); if so the
    replica is left alone for REPLICA_DOWN_SECONDS and this context reads from the primary from now on."""
    alias = _reading.get()
    if alias == DEFAULT_DB_ALIAS or not isinstance(exc, (OperationalError, InterfaceError)):
        return False
    if not connections[alias].errors_occurred and _failed.get() != alias:
        return False  # the primary's error, raised while reading from the replica
    _down(alias)
    _reading.set(DEFAULT_DB_ALIAS)
    return True


def written(bot_id: int) -> None:
    """Keep where the primary's WAL stands after a write of ``bot_id`` (its transaction committed): its next reads
    wait for a replica that has replayed this far. Nothing without replicas."""
    if not configured():
        return
    with connection.cursor() as cursor:
        cursor.execute(_MARK_SQL, [bot_id])


def _down(alias: str) -> None:
    with _down_lock:
        _down_until[alias] = time.monotonic() + settings.REPLICA_DOWN_SECONDS


def _chosen(bot_id: int) -> str:
    now = time.monotonic()
    live = [alias for alias in settings.DATABASE_REPLICAS if _down_until.get(alias, 0) <= now]
    if not live:
        return DEFAULT_DB_ALIAS
    with connection.cursor() as cursor:
        cursor.execute("SELECT lsn FROM kbsite_writemark WHERE bot_id = %s", [bot_id])
        row = cursor.fetchone()
    params = {"mark": row[0] if row else None, "lag": settings.REPLICA_MAX_LAG_SECONDS}
    first = next(_turns)
    for n in range(len(live)):
        alias = live[(first + n) % len(live)]
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute(_SERVES_SQL, params)
                if cursor.fetchone()[0]:
                    return alias
        except DatabaseError:
            _down(alias)
    return DEFAULT_DB_ALIAS


@dataclass(frozen=True)
class ReplicaState:
    """One replica as the health check and the dashboard show it."""

    name: str
    status: str  # "ok", "down" (it does not answer), "not a replica" (not in recovery)
    lag_bytes: int | None = None  # WAL the primary has written that it has not replayed
    lag_seconds: float | None = None  # 0 when caught up; else the age of the last transaction it replayed


def replica_states() -> list[ReplicaState]:
    """Each configured replica's state, measured now (a statement on the primary and one on each replica)."""
    if not configured():
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        primary_lsn = cursor.fetchone()[0]
    states = []
    for alias in settings.DATABASE_REPLICAS:
        try:
            with connections[alias].cursor() as cursor:
                cursor.execute(
                    """SELECT pg_is_in_recovery(), pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())::bigint,
                              CASE WHEN pg_last_wal_replay_lsn() >= %s::pg_lsn THEN 0
                                   ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END""",
                    [primary_lsn, primary_lsn],
                )
                recovering, lag_bytes, lag_seconds = cursor.fetchone()
        except DatabaseError:
            states.append(ReplicaState(alias, "down"))
            continue
        if not recovering:
            states.append(ReplicaState(alias, "not a replica"))
            continue
        seconds = None if lag_seconds is None else round(float(lag_seconds), 3)
        states.append(ReplicaState(alias, "ok", max(int(lag_bytes or 0), 0), seconds))
    return states
