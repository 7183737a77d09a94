"""Bot: a client application, which owns API keys, knowledge bases and end users, and its own limits: requests per
minute of each of its keys, and LLM tokens per day."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from kbsite.models.names import name_validator

MAX_REQUESTS_PER_MINUTE = 1_000_000


def default_requests_per_minute() -> int:
    """A new bot's requests per minute: ``BOT_REQUESTS_PER_MINUTE`` (read when the bot is made, so the test
    settings can give their bots a high one)."""
    return settings.BOT_REQUESTS_PER_MINUTE


class Bot(models.Model):
    """A client application. Owns API keys and knowledge bases.

    Its limits: ``requests_per_minute`` for each of its keys, with a burst on top (enforced by
    :mod:`kbsite.ratelimits`: a 429 with ``Retry-After``), and ``llm_tokens_per_day`` with what happens once it is
    spent (``when_budget_spent``), held by :mod:`kbsite.budgets` against the day's tokens in its usage;
    ``budget_spent_on`` is the last day it was found spent (``budget.spent`` is told once a day).
    """

    class WhenBudgetSpent(models.TextChoices):
        OFFLINE = "offline", "extraction goes on offline (heuristics) until the next day"
        WAIT = "wait", "extraction waits (turns stay queued) until the next day"

    name = models.CharField(max_length=64, unique=True, validators=[name_validator])
    description = models.TextField(blank=True)
    is_active = models.BooleanField(default=True)
    operators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="operated_bots",
        help_text="Staff users who operate this bot: in the admin they see and curate its data, and no other bot's "
        "(give them the Operators group for the permissions). Superusers see every bot.",
    )
    requests_per_minute = models.PositiveIntegerField(
        default=default_requests_per_minute,
        validators=[MaxValueValidator(MAX_REQUESTS_PER_MINUTE)],
        help_text="Requests each of the bot's API keys may make per minute (the API, the chat proxy, MCP), plus a "
        "burst of RATE_LIMIT_BURST_SECONDS' worth (10 s: a sixth) at once; past it a 429 with Retry-After. "
        "0: no limit.",
    )
    llm_tokens_per_day = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="LLM tokens (in and out) the bot's jobs and answers may spend per day (UTC); empty: no budget. "
        "Once spent, answers are extractive and extraction goes offline or waits (below); the chat proxy is not "
        "limited (its upstream's tokens are the caller's).",
    )
    when_budget_spent = models.CharField(
        max_length=16,
        choices=WhenBudgetSpent.choices,
        default=WhenBudgetSpent.OFFLINE,
        help_text="Once the day's LLM tokens are spent: extraction goes on offline, or waits until the next day.",
    )
    budget_spent_on = models.DateField(
        null=True,
        blank=True,
        editable=False,
        help_text="The last day (UTC) its LLM budget was found spent; budget.spent is told once a day for a budget.",
    )
    budget_spent_limit = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The budget (tokens per day) that was found spent that day: once it is changed, spending the new "
        "one is told again the same day.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memories_bot"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def burst(self) -> int:
        """Requests a key may make at once on top of the steady rate: RATE_LIMIT_BURST_SECONDS' worth, at least
        one (0 without a limit)."""
        if not self.requests_per_minute:
            return 0
        return max(1, -(-self.requests_per_minute * settings.RATE_LIMIT_BURST_SECONDS // 60))
