"""Rate limits' rows: RateBucket, each API key's token bucket, which every web process draws on, and RateLimitedDay,
the requests a bot's keys had refused on one day (see :mod:`kbsite.ratelimits`)."""

from __future__ import annotations

from django.db import models

from kbsite.models.keys import ApiKey


class RateBucket(models.Model):
    """The requests an API key may still make at once (``tokens``, refilled at its bot's requests per minute up to
    its burst) as of ``refilled_at`` (the database's clock), and whether its last request was let through.

    Written only by :func:`kbsite.ratelimits.rate_take`, one atomic statement per request. The table is UNLOGGED
    (migration 0012): a bucket is worth no WAL or fsync per request, and after a crash the buckets start full.
    """

    key = models.OneToOneField(ApiKey, primary_key=True, on_delete=models.CASCADE, related_name="+")
    tokens = models.FloatField()
    refilled_at = models.DateTimeField()
    allowed = models.BooleanField()

    class Meta:
        db_table = "kbsite_ratebucket"

    def __str__(self) -> str:
        return f"{self.key_id}: {self.tokens:.2f} tokens at {self.refilled_at}"


class RateLimitedDay(models.Model):
    """How many requests of a bot's keys were refused (429) on one day (UTC), counted by
    :func:`kbsite.ratelimits.rate_take` in the statement that refuses them; the dashboard charts them."""

    day = models.DateField()
    bot = models.ForeignKey("Bot", on_delete=models.CASCADE, related_name="rate_limited_days")
    refused = models.PositiveBigIntegerField(default=0, help_text="Requests refused with 429.")

    class Meta:
        ordering = ["-day", "bot"]
        constraints = [models.UniqueConstraint(fields=["day", "bot"], name="one_rate_limited_day_per_bot")]

    def __str__(self) -> str:
        return f"{self.bot} on {self.day}: {self.refused} refused"
