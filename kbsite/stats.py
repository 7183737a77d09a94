"""Daily statistics per knowledge base (:class:`~kbsite.models.DailyStat`), kept as things happen: one upsert adds
an event's counts to its KB's row of the day. The dashboard reads them instead of counting big tables.

A statistic is never worth a failed request: an upsert that fails is logged and dropped (inside a transaction, in
a savepoint of its own, so the transaction goes on).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import date, timedelta

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from kbsite.models import DailyStat

logger = logging.getLogger(__name__)

COUNTS = tuple(
    f.name for f in DailyStat._meta.get_fields() if getattr(f, "attname", None) not in ("id", "day", "kb_id")
)


def stats_add(kb_ids: int | Iterable[int], **counts: int) -> None:
    """Add ``counts`` (names of :class:`DailyStat` counters) to today's row of each KB in ``kb_ids``."""
    unknown = set(counts) - set(COUNTS)
    if unknown:
        raise ValueError(f"not a daily statistic: {', '.join(sorted(unknown))}")
    counts = {name: n for name, n in counts.items() if n}
    ids = [kb_ids] if isinstance(kb_ids, int) else sorted(set(kb_ids))
    if not counts or not ids:
        return
    table = DailyStat._meta.db_table
    rows = ", ".join(["(%s, %s" + ", %s" * len(COUNTS) + ")"] * len(ids))
    params: list = []
    today = timezone.now().date()
    for kb_id in ids:
        params += [today, kb_id, *(counts.get(name, 0) for name in COUNTS)]
    sql = (
        f"INSERT INTO {table} (day, kb_id, {', '.join(COUNTS)}) VALUES {rows} "
        f"ON CONFLICT (day, kb_id) DO UPDATE SET " + ", ".join(f"{n} = {table}.{n} + EXCLUDED.{n}" for n in counts)
    )
    try:
        if connection.in_atomic_block:
            with transaction.atomic():
                _execute(sql, params)
        else:
            _execute(sql, params)
    except DatabaseError:
        logger.warning("daily statistics not recorded: %s", counts, exc_info=True)


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
