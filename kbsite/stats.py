"""Daily statistics per knowledge base (:class:`~kbsite.models.DailyStat`), kept as things happen: one upsert adds
an event's counts to its KB's row of the day. The dashboard reads them instead of counting big tables. Daily usage
per bot, KB and end user (:class:`~kbsite.models.stats.DailyUsage`, :func:`usage_add`) is kept the same way; every
surface that serves a bot meters its work with :func:`usage_metered` / :func:`usage_record` (the API's views, MCP's
tool calls, the chat proxy's context block; the recall console its LLM and embedding spend only).

A statistic is never worth a failed request: an upsert that fails is logged and dropped (inside a transaction, in
a savepoint of its own, so the transaction goes on).

A web process buffers its counts (:func:`stats_buffered`, from its worker's start) and writes them every second
from a thread of its own: a recall then writes no row and waits for no commit, and the recalls of one KB no longer
queue on the lock of its row of the day. What a killed process had not written yet (a second's counts) is lost.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from datetime import date, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from kbsite.ai.usage import Meter, metered
from kbsite.models import Bot, DailyStat, EndUser, KnowledgeBase
from kbsite.models.stats import DailyUsage

logger = logging.getLogger(__name__)

COUNTS = tuple(
    f.name for f in DailyStat._meta.get_fields() if getattr(f, "attname", None) not in ("id", "day", "kb_id")
)


USAGE = ("requests", "jobs", "llm_calls", "tokens_in", "tokens_out", "embeddings", "server_ms")
# What work spends on the providers (the LLM, the embeddings): counted whoever asked for it.
SPEND = ("llm_calls", "tokens_in", "tokens_out", "embeddings")

_buffer: defaultdict[tuple[date, int], Counter] | None = None
_usage_buffer: defaultdict[tuple[date, int, int | None, int | None], Counter] = defaultdict(Counter)
_buffer_lock = threading.Lock()


def stats_add(kb_ids: int | Iterable[int], **counts: int) -> None:
    """Add ``counts`` (names of :class:`DailyStat` counters) to today's row of each KB in ``kb_ids``."""
    unknown = set(counts) - set(COUNTS)
    if unknown:
        raise ValueError(f"not a daily statistic: {', '.join(sorted(unknown))}")
    counts = {name: n for name, n in counts.items() if n}
    ids = [kb_ids] if isinstance(kb_ids, int) else sorted(set(kb_ids))
    if not counts or not ids:
        return
    today = timezone.now().date()
    if _buffer is not None:
        with _buffer_lock:
            for kb_id in ids:
                _buffer[(today, kb_id)].update(counts)
        return
    _write({(today, kb_id): counts for kb_id in ids})


def _write(rows: dict[tuple[date, int], dict[str, int]]) -> None:
    """Add each (day, KB)'s counts to its row, in one statement."""
    table = DailyStat._meta.db_table
    values = ", ".join(["(%s::date, %s::bigint" + ", %s::bigint" * len(COUNTS) + ")"] * len(rows))
    params: list = []
    for (day, kb_id), counts in sorted(rows.items()):  # in order: two processes writing never deadlock
        params += [day, kb_id, *(counts.get(name, 0) for name in COUNTS)]
    written = sorted({name for counts in rows.values() for name in counts})
    # A KB deleted since its counts were buffered is left out, not the whole statement.
    sql = (
        f"INSERT INTO {table} (day, kb_id, {', '.join(COUNTS)}) "
        f"SELECT * FROM (VALUES {values}) AS v (day, kb_id, {', '.join(COUNTS)}) "
        f"WHERE EXISTS (SELECT 1 FROM {KnowledgeBase._meta.db_table} kb WHERE kb.id = v.kb_id) "
        f"ON CONFLICT (day, kb_id) DO UPDATE SET " + ", ".join(f"{n} = {table}.{n} + EXCLUDED.{n}" for n in written)
    )
    _upsert(sql, params, "daily statistics", rows)


def stats_buffered(seconds: float = 1.0) -> None:
    """From now on, this process's counts are kept in memory and written every ``seconds`` (and at exit)."""
    global _buffer
    with _buffer_lock:
        if _buffer is not None:
            return
        _buffer = defaultdict(Counter)

    def write_every():
        while True:
            time.sleep(seconds)
            try:
                stats_flush()
            finally:
                connection.close()  # the thread's connection goes back (to the pool) between writes

    threading.Thread(target=write_every, name="daily-stats", daemon=True).start()
    atexit.register(stats_flush)


def stats_flush() -> None:
    """Write the buffered counts and usage (none without a buffer)."""
    if _buffer is None:
        return
    with _buffer_lock:
        rows = {key: dict(counts) for key, counts in _buffer.items() if counts}
        _buffer.clear()
        usage = {key: dict(counts) for key, counts in _usage_buffer.items() if counts}
        _usage_buffer.clear()
    for write, what, buffered in ((_write, "statistics", rows), (_usage_write, "usage", usage)):
        if not buffered:
            continue
        try:
            write(buffered)
        except Exception:  # the database away for a moment: these counts are lost, the next ones will be written
            logger.warning("daily %s not written: %s", what, buffered, exc_info=True)


def usage_add(*, bot_id: int, kb_id: int | None = None, end_user_id: int | None = None, **counts: int) -> None:
    """Add ``counts`` (names of :class:`DailyUsage` counters) to today's usage of the bot for that KB (None: its
    always-on KBs) and end user (None: none)."""
    unknown = set(counts) - set(USAGE)
    if unknown:
        raise ValueError(f"not a usage counter: {', '.join(sorted(unknown))}")
    counts = {name: n for name, n in counts.items() if n}
    if not counts:
        return
    key = (timezone.now().date(), bot_id, kb_id, end_user_id)
    if _buffer is not None:
        with _buffer_lock:
            _usage_buffer[key].update(counts)
        return
    _usage_write({key: counts})


def usage_record(
    meter: Meter, *, bot_id: int, kb_id: int | None = None, end_user_id: int | None = None, request: bool = True
) -> dict[str, int]:
    """Add what ``meter`` counted to the bot's usage of the day, and return its figures (an answer's ``usage``).
    ``request``: a request the bot was served (the API's, a tool called through MCP, a chat proxy's): one more
    request, and its milliseconds. Else work done for someone else on the bot's behalf (an operator's recall
    console): only what it spent on the LLM and the embeddings, which are real spend and count against its LLM
    budget."""
    figures = meter.usage()
    if request:
        usage_add(bot_id=bot_id, kb_id=kb_id, end_user_id=end_user_id, requests=1, **figures)
    else:
        usage_add(bot_id=bot_id, kb_id=kb_id, end_user_id=end_user_id, **{n: figures[n] for n in SPEND})
    return figures


@contextlib.contextmanager
def usage_metered(
    *, bot_id: int, kb_id: int | None = None, end_user_id: int | None = None, request: bool = True
) -> Iterator[Meter | None]:
    """Meter the block as the bot's work and, once it has ended without an exception, add it to the bot's usage of
    the day (:func:`usage_record`); a block that raises (a refused call) counts nothing, as a refused API request.
    While the block runs, its LLM tokens count against the bot's budget (:func:`kbsite.budgets.llm_state`). With
    USAGE_ACCOUNTING off, nothing is metered (None)."""
    if not settings.USAGE_ACCOUNTING:
        yield None
        return
    with metered() as meter:
        yield meter
    usage_record(meter, bot_id=bot_id, kb_id=kb_id, end_user_id=end_user_id, request=request)


def usage_buffered_tokens(*, bot_id: int, day: date) -> int:
    """The LLM tokens of ``bot_id`` on ``day`` this process holds in its buffer, not written yet (0 unbuffered)."""
    if _buffer is None:
        return 0
    with _buffer_lock:
        return sum(
            counts["tokens_in"] + counts["tokens_out"]
            for key, counts in _usage_buffer.items()
            if key[0] == day and key[1] == bot_id
        )


def _usage_write(rows: dict[tuple, dict[str, int]]) -> None:
    """Add each (day, bot, KB, end user)'s usage to its row, in one statement; a bot, KB or end user deleted since
    its usage was buffered is left out."""
    table = DailyUsage._meta.db_table
    columns = ("day", "bot_id", "kb_id", "end_user_id", *USAGE)
    row = "(%s::date" + ", %s::bigint" * (len(columns) - 1) + ")"
    values = ", ".join([row] * len(rows))
    params: list = []
    for key, counts in sorted(rows.items(), key=lambda row: tuple(-1 if x is None else x for x in row[0])):
        params += [*key, *(counts.get(name, 0) for name in USAGE)]
    written = sorted({name for counts in rows.values() for name in counts})
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) "
        f"SELECT * FROM (VALUES {values}) AS v ({', '.join(columns)}) "
        f"WHERE EXISTS (SELECT 1 FROM {Bot._meta.db_table} b WHERE b.id = v.bot_id) "
        f"AND (v.kb_id IS NULL OR EXISTS (SELECT 1 FROM {KnowledgeBase._meta.db_table} kb WHERE kb.id = v.kb_id)) "
        f"AND (v.end_user_id IS NULL OR EXISTS (SELECT 1 FROM {EndUser._meta.db_table} u WHERE u.id = v.end_user_id)) "
        f"ON CONFLICT (day, bot_id, kb_id, end_user_id) DO UPDATE SET "
        + ", ".join(f"{n} = {table}.{n} + EXCLUDED.{n}" for n in written)
    )
    _upsert(sql, params, "daily usage", rows)


def _upsert(sql: str, params: list, what: str, rows) -> None:
    """Run one of the counters' upserts; a failure (in a savepoint inside a transaction) is logged, never raised:
    a count lost must not fail the request or job it counts."""
    try:
        if connection.in_atomic_block:
            with transaction.atomic():
                _execute(sql, params)
        else:
            _execute(sql, params)
    except DatabaseError:
        logger.warning("%s not recorded: %s", what, rows, exc_info=True)


def _execute(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def stats_series(kb_ids: Iterable[int], *, days: int = 30, until: date | None = None) -> dict:
    """The counters of ``kb_ids`` summed per day over the last ``days`` days (those without a row are zeros):
    ``{"days": [...], "<counter>": [...]}``."""
    until = until or timezone.now().date()
    since = until - timedelta(days=days - 1)
    axis = [since + timedelta(days=i) for i in range(days)]
    series = {name: [0] * days for name in COUNTS}
    rows = DailyStat.objects.filter(kb_id__in=list(kb_ids), day__gte=since, day__lte=until).values("day", *COUNTS)
    for row in rows:
        i = (row["day"] - since).days
        for name in COUNTS:
            series[name][i] += row[name]
    return {"days": [d.isoformat() for d in axis], **series}
