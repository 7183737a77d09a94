"""Rate limits per API key: each key may make its bot's ``requests_per_minute``, with a burst, on every surface a bot
reaches (the API through :class:`kbsite.api.throttling.KeyRateThrottle`, the chat proxies, MCP); past it, a 429
with ``Retry-After``.

A token bucket per key, in PostgreSQL (:class:`~kbsite.models.RateBucket`), so that every web process draws on
the same one: it holds up to the bot's burst of tokens, refills at ``requests_per_minute / 60`` a second, and each
request takes one. :func:`rate_take` refills, takes and, when the bucket is empty, counts the refusal for the
dashboard, in one atomic ``INSERT … ON CONFLICT DO UPDATE … RETURNING`` (the row's lock orders concurrent requests
of one key; the database's clock is the only clock), about 0.2 ms. DRF's own throttles keep a list of timestamps
in Django's cache, read and written back without a lock: two processes sharing a cache both let a request
through on the same list, so a shared cache alone does not make them exact.

In a minute a key gets at most its burst plus its requests per minute; steadily, one every ``60 /
requests_per_minute`` seconds. A change of the bot's limits applies to the next request (the key is read with
its bot on every request). A bot with ``requests_per_minute = 0`` has no limit, and no statement is run.
"""

from __future__ import annotations

import functools
import math
from datetime import date, timedelta

from django.db import connection
from django.utils import timezone

from kbsite.models import ApiKey, RateBucket, RateLimitedDay


@functools.cache
def _take_sql() -> str:
    bucket, refused = RateBucket._meta.db_table, RateLimitedDay._meta.db_table
    # What the bucket holds now: what it held, refilled for the time since, up to the burst.
    level = (
        "LEAST(%(burst)s::float8, b.tokens + %(rate)s::float8 * "
        "GREATEST(0, EXTRACT(EPOCH FROM statement_timestamp() - b.refilled_at))::float8)"
    )
    return (
        f"WITH taken AS ("
        f"INSERT INTO {bucket} AS b (key_id, tokens, refilled_at, allowed) "
        "VALUES (%(key)s, %(burst)s::float8 - 1, statement_timestamp(), true) "
        f"ON CONFLICT (key_id) DO UPDATE SET tokens = {level} - (CASE WHEN {level} >= 1 THEN 1 ELSE 0 END), "
        f"refilled_at = statement_timestamp(), allowed = {level} >= 1 "
        "RETURNING allowed, tokens), "
        f"counted AS (INSERT INTO {refused} AS r (day, bot_id, refused) "
        "SELECT %(day)s, %(bot)s, 1 FROM taken WHERE NOT taken.allowed "
        "ON CONFLICT (day, bot_id) DO UPDATE SET refused = r.refused + 1) "
        "SELECT allowed, tokens FROM taken"
    )


def rate_take(*, key: ApiKey) -> int | None:
    """Take one request from ``key``'s bucket (its bot loaded, as authentication loads it): None when it may go
    on, else the whole seconds until it may try again (the refusal counted for its bot's day)."""
    bot = key.bot
    if not bot.requests_per_minute:
        return None
    rate = bot.requests_per_minute / 60
    params = {"key": key.pk, "bot": bot.pk, "burst": bot.burst, "rate": rate, "day": timezone.now().date()}
    with connection.cursor() as cursor:
        cursor.execute(_take_sql(), params)
        allowed, tokens = cursor.fetchone()
    if allowed:
        return None
    return max(1, math.ceil((1 - tokens) / rate))


def rate_message(key: ApiKey, wait: int) -> str:
    """What a refused request is told: the limit, and when to try again."""
    bot = key.bot
    return (
        f"Rate limit reached: each key of bot {bot.name!r} may make {bot.requests_per_minute} requests a minute "
        f"(a burst of {bot.burst} at once). Try again in {wait} s (Retry-After), or ask its operator for a higher "
        "limit."
    )


def rate_limited_series(bot_ids: list[int], *, days: int = 30, until: date | None = None) -> list[int]:
    """The requests of ``bot_ids``' keys refused per day over the last ``days`` days, oldest first (as
    :func:`kbsite.stats.stats_series` lays its days out)."""
    until = until or timezone.now().date()
    since = until - timedelta(days=days - 1)
    series = [0] * days
    rows = RateLimitedDay.objects.filter(bot_id__in=bot_ids, day__gte=since, day__lte=until).values("day", "refused")
    for row in rows:
        series[(row["day"] - since).days] += row["refused"]
    return series
