"""The operators' dashboard's figures: what is happening in the knowledge bases in view, for all of them, one bot,
one KB, or one end user (the admin's index page, :mod:`memories.admin.site`, shows them).

Per request it reads no big table: the counts of memories, waiting turns and jobs come from a small cache
refreshed every DASHBOARD_CACHE_SECONDS (one grouped count per table, through indexes), and the 30 days of
figures from the daily statistics (:mod:`kbsite.stats`), thirty rows a KB, and the requests the rate limit refused
from thirty rows a bot (:mod:`kbsite.ratelimits`). An end user's own figures are counted from their rows, which are
few. Today's usage per bot is summed from the daily usage rows (one a KB and end user), and so are the LLM budgets
of the bots in view.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, Q, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from kbsite.budgets import Budget, tokens_today
from kbsite.models import Bot, EmbeddingState, EndUser, JobRun, KnowledgeBase
from kbsite.models.stats import DailyUsage
from kbsite.ratelimits import rate_limited_series
from kbsite.stats import USAGE, stats_series
from memories.models import Memory, Message, ReviewItem

CACHE_KEY = "dashboard:kb-counts"
COUNTS = (
    "live",
    "retired",
    "quarantined",
    "waiting_turns",
    "jobs_waiting",
    "jobs_running",
    "jobs_failed",
    "reviews_open",
)
DAYS = 30


def kb_counts() -> tuple[dict[int, dict[str, int]], object]:
    """Every KB's counts (:data:`COUNTS`) and when they were counted, from the cache when it is fresh."""
    cached = cache.get(CACHE_KEY)
    if cached is not None:
        return cached
    counts: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))

    def grouped(queryset, name: str, by: str = "kb") -> None:
        for row in queryset.order_by().values(by).annotate(n=Count("*")):
            counts[row[by]][name] += row["n"]

    grouped(Memory.objects.all(), "live")  # all of them, less the two below
    grouped(Memory.objects.retired(), "retired")
    grouped(Memory.objects.live().filter(quarantined=True), "quarantined")
    grouped(Message.objects.filter(id__gt=F("session__extracted_through")), "waiting_turns")
    grouped(ReviewItem.objects.filter(status=ReviewItem.Status.OPEN), "reviews_open")
    for status, name in (
        (JobRun.Status.QUEUED, "jobs_waiting"),
        (JobRun.Status.RUNNING, "jobs_running"),
        (JobRun.Status.FAILED, "jobs_failed"),
    ):
        grouped(JobRun.objects.filter(status=status, kb__isnull=False), name)
    for row in counts.values():
        row["live"] -= row["retired"] + row["quarantined"]
    result = ({kb_id: dict(row) for kb_id, row in counts.items()}, timezone.now())
    if settings.DASHBOARD_CACHE_SECONDS:
        cache.set(CACHE_KEY, result, settings.DASHBOARD_CACHE_SECONDS)
    return result


def user_counts(end_user: EndUser) -> dict[str, int]:
    """One end user's counts, from their own rows."""
    memories = Memory.objects.filter(end_user=end_user)
    retired = memories.retired().count()
    quarantined = memories.live().filter(quarantined=True).count()
    waiting = Message.objects.filter(session__end_user=end_user, id__gt=F("session__extracted_through")).count()
    return {
        "live": memories.count() - retired - quarantined,
        "retired": retired,
        "quarantined": quarantined,
        "waiting_turns": waiting,
        "reviews_open": ReviewItem.objects.filter(end_user=end_user, status=ReviewItem.Status.OPEN).count(),
    }


def user_series(end_user: EndUser, days: int = DAYS) -> dict:
    """An end user's turns received and facts learned per day (from their rows)."""
    until = timezone.now().date()
    since = until - timedelta(days=days - 1)
    axis = [since + timedelta(days=i) for i in range(days)]
    series = {"days": [d.isoformat() for d in axis], "turns": [0] * days, "facts_added": [0] * days}
    for name, queryset in (
        ("turns", Message.objects.filter(session__end_user=end_user)),
        ("facts_added", Memory.objects.filter(end_user=end_user)),
    ):
        rows = (
            queryset.filter(created_at__date__gte=since)
            .order_by()
            .annotate(day=TruncDate("created_at"))
            .values("day")
            .annotate(n=Count("*"))
        )
        for row in rows:
            series[name][(row["day"] - since).days] = row["n"]
    return series


def usage_today(kbs: list[KnowledgeBase], end_user: EndUser | None = None) -> list[dict]:
    """Today's usage (UTC) per bot of ``kbs``: what it spent on these KBs and on its context blocks (which span its
    always-on KBs), or only on ``end_user``; a row a bot with any, by name."""
    rows = DailyUsage.objects.filter(day=timezone.now().date(), bot__in={kb.bot_id for kb in kbs})
    rows = rows.filter(Q(kb__in=[kb.pk for kb in kbs]) | Q(kb__isnull=True))
    if end_user is not None:
        rows = rows.filter(end_user=end_user)
    sums = rows.values("bot__name").annotate(**{name: Sum(name) for name in USAGE}).order_by("bot__name")
    return [{"bot": row.pop("bot__name"), **row} for row in sums]


def llm_budgets(bot_ids: list[int]) -> list[dict]:
    """The LLM budget of each bot in view that has one, by name: tokens per day, spent today (UTC), left, and once
    spent what its work does (``spent``: "extraction offline" or "extraction waiting"; answers are extractive)."""
    bots = Bot.objects.filter(pk__in=bot_ids, llm_tokens_per_day__isnull=False).annotate(tokens=tokens_today())
    rows = []
    for bot in bots.order_by("name"):  # one query, bots and their tokens of today together
        budget = Budget(per_day=bot.llm_tokens_per_day, spent=bot.tokens, when_spent=bot.when_budget_spent)
        state = "offline" if bot.when_budget_spent == Bot.WhenBudgetSpent.OFFLINE else "waiting"
        rows.append(
            {
                "bot": bot.name,
                "per_day": budget.per_day,
                "spent": budget.spent,
                "left": budget.left,
                "state": f"budget spent: extraction {state}" if budget.exhausted else "",
            }
        )
    return rows


@dataclass
class Dashboard:
    kbs: list[KnowledgeBase]
    rows: list[tuple[KnowledgeBase, dict[str, int]]]
    totals: dict[str, int]
    series: dict
    counted_at: object
    stuck_jobs: int
    end_user: EndUser | None = None
    alerts: list[str] = field(default_factory=list)
    usage: list[dict] = field(default_factory=list)
    budgets: list[dict] = field(default_factory=list)


def dashboard(kbs: list[KnowledgeBase], end_user: EndUser | None = None, bot_ids: list[int] | None = None) -> Dashboard:
    """The figures of ``kbs`` (the ones in view), or of ``end_user`` in them; the requests refused by the rate limit
    are those of the keys of ``bot_ids`` (the bots in view: a limit is a bot's keys', not a KB's)."""
    counts, counted_at = kb_counts()
    empty = dict.fromkeys(COUNTS, 0)
    rows = [(kb, counts.get(kb.pk, empty)) for kb in kbs]
    totals = {name: sum(row[name] for _, row in rows) for name in COUNTS}
    series = stats_series([kb.pk for kb in kbs], days=DAYS)
    series["rate_limited"] = rate_limited_series(bot_ids or [], days=DAYS)
    totals["rate_limited_today"] = series["rate_limited"][-1]
    if end_user is not None:
        totals.update(user_counts(end_user))
        counted_at = timezone.now()
        series.update(user_series(end_user))
    stuck_before = timezone.now() - timedelta(minutes=settings.DASHBOARD_STUCK_MINUTES)
    stuck = JobRun.objects.filter(
        status=JobRun.Status.QUEUED, created_at__lt=stuck_before, kb__in=[kb.pk for kb in kbs]
    ).count()
    board = Dashboard(
        kbs=kbs,
        rows=rows,
        totals=totals,
        series=series,
        counted_at=counted_at,
        stuck_jobs=stuck,
        end_user=end_user,
        usage=usage_today(kbs, end_user),
        budgets=llm_budgets(bot_ids or []),
    )
    if totals["jobs_failed"]:
        board.alerts.append(f"{totals['jobs_failed']} failed jobs: their input is kept; retry them below.")
    for row in board.budgets:
        if row["state"]:
            board.alerts.append(
                f"{row['bot']}: LLM {row['state']}, answers extractive, until the next day (UTC) or a raised budget."
            )
    embedding = EmbeddingState.get()
    if embedding and embedding.target:
        board.alerts.append(
            f"Re-embedding the stored vectors with {embedding.target} (they come from {embedding.model}): "
            f"{embedding.share_done:.0%} done. Until then, vector search leaves the rest out (full text finds them); "
            "the workers go on by themselves, manage.py reembed runs it to the end."
        )
    if stuck:
        board.alerts.append(
            f"{stuck} jobs have waited more than {settings.DASHBOARD_STUCK_MINUTES} minutes: are the workers "
            "running? (make run starts them; manage.py qcluster runs them alone)"
        )
    return board
