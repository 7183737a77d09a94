"""LLM budgets: a bot's LLM tokens of the day held against its ``llm_tokens_per_day``, and what its LLM work does now.

:func:`llm_state` is asked before each LLM call of a bot's work (an extraction batch, a consolidation, an archive
summary, an answer): ``LLM`` while tokens are left (or there is no budget), else what the bot chose in
``when_budget_spent``: ``OFFLINE`` (the heuristics instead) or ``WAIT`` (the work stops with its input left where
it was, and is taken up again once tokens are left: :func:`kbsite.jobs.jobs_resume_waiting`). An operator may take up
one waiting run's input at once offline (:func:`kbsite.jobs.job_force_offline`): the new run carries the choice in its
detail (``FORCED``), and :func:`llm_state` asked for that run answers ``OFFLINE`` whatever the budget; the bot's other
runs are held as before. The first time in a
day (UTC) a bot's budget is found spent, its webhooks are told ``budget.spent`` (again that day if the budget was
changed and the new one is spent too).

The day is UTC, as the daily usage's. Today's tokens are the bot's daily usage rows (every job and request that
ended; in a web process those still buffered for its next second's write) and what the work running here has spent
so far (a job's tokens reach the usage rows when it ends). Work running at the same time in another process counts
once it ends: the budget can be overrun by the LLM calls in flight, never by more. Reading it is one query on the
usage rows' (day, bot) index; a bot without a budget still costs that query, and only when an LLM is configured.
The chat proxies are never held: their upstream's tokens are the caller's, not counted in the usage.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import BigIntegerField, F, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from kbsite.ai import llm, usage
from kbsite.models import Bot, JobRun
from kbsite.models.stats import DailyUsage
from kbsite.signals import budget_spent
from kbsite.stats import usage_buffered_tokens

LLM = "llm"
OFFLINE = Bot.WhenBudgetSpent.OFFLINE.value
WAIT = Bot.WhenBudgetSpent.WAIT.value

# Why an answer or a batch went without the LLM, in modes and job details.
SPENT = "LLM budget spent"

# The key of a run's detail that makes that run extract offline whatever the budget (an operator's "run now
# offline" of a waiting run; see kbsite.jobs.job_force_offline), and the keys of that choice: it, who made it
# (forced_by) and for which waiting run (forced_for). The run's own saves keep them (JobRun.SHARED_DETAIL).
FORCED = "llm_forced"
FORCED_KEYS = JobRun.SHARED_DETAIL


@dataclass(frozen=True)
class Budget:
    """A bot's budget of the day: its tokens per day (None: no budget), the tokens spent today, and its choice for
    when they are spent."""

    per_day: int | None
    spent: int
    when_spent: str

    @property
    def exhausted(self) -> bool:
        return self.per_day is not None and self.spent >= self.per_day

    @property
    def left(self) -> int | None:
        return None if self.per_day is None else max(0, self.per_day - self.spent)


def budget_of(bot_id: int, *, with_running: bool = False) -> Budget:
    """The bot's budget of today (UTC) as written (one query), plus what this process has buffered and, with
    ``with_running``, what the work running here has spent so far."""
    today = timezone.now().date()
    row = (
        Bot.objects.filter(pk=bot_id)
        .annotate(tokens=tokens_today())
        .values("llm_tokens_per_day", "when_budget_spent", "tokens")
        .first()
    )
    if row is None:
        return Budget(per_day=None, spent=0, when_spent=OFFLINE)
    spent = row["tokens"] + usage_buffered_tokens(bot_id=bot_id, day=today)
    if with_running:
        spent += usage.tokens_unrecorded()
    return Budget(per_day=row["llm_tokens_per_day"], spent=spent, when_spent=row["when_budget_spent"])


def tokens_today() -> Coalesce:
    """A bot's LLM tokens of today (UTC) as written in its daily usage rows: an annotation of bots, read on the
    rows' (day, bot) index."""
    tokens = (
        DailyUsage.objects.filter(day=timezone.now().date(), bot_id=OuterRef("pk"))
        .order_by()
        .values("bot_id")
        .annotate(tokens=Sum(F("tokens_in") + F("tokens_out")))
        .values("tokens")
    )
    return Coalesce(Subquery(tokens, output_field=BigIntegerField()), 0)


def llm_state(bot_id: int, *, job: JobRun | None = None) -> str:
    """What the bot's next LLM call does: ``LLM`` (go on), ``OFFLINE`` (no LLM is configured, or the budget is spent
    and the bot chose the heuristics, or ``job`` is a run an operator forced offline) or ``WAIT`` (spent, and the
    bot chose to wait). Read afresh each time, so a budget raised through the API or the admin counts at the next
    call."""
    if not llm.is_configured() or (job is not None and forced_offline(job)):
        return OFFLINE
    budget = budget_of(bot_id, with_running=True)
    if not budget.exhausted:
        return LLM
    _spent_tell(bot_id, budget)
    return budget.when_spent


def forced_offline(job: JobRun) -> bool:
    """Whether ``job`` is a run an operator forced offline: it extracts with the heuristics, spending no tokens.

    Read from the row when the worker's object does not say so: forcing may take up a queued run a worker has
    just loaded (kbsite.jobs.job_force_offline). The choice found is kept on the object, for its messages and
    saves."""
    if forced_choice(job.detail):
        return True
    if job.pk is None:
        return False
    row = JobRun.objects.filter(pk=job.pk, **{f"detail__{FORCED}": OFFLINE}).values_list("detail", flat=True).first()
    if row is None:
        return False
    job.detail = {**job.detail, **forced_choice(row)}
    return True


def forced_choice(detail: dict) -> dict:
    """The forcing keys of a run's ``detail`` (FORCED_KEYS), or {} for a run not forced offline: what a run that
    takes up its input after it (a retry, a resume) carries on."""
    if detail.get(FORCED) != OFFLINE:
        return {}
    return {key: detail[key] for key in FORCED_KEYS if key in detail}


def offline_why(job: JobRun) -> tuple[str, str]:
    """The key of ``job``'s detail saying why its batches went without the LLM, and why: for a run forced offline,
    the operator's choice (who made it), else the spent budget (see :func:`held`)."""
    if forced_offline(job):
        return "llm_offline", f"run offline by the operator's choice ({job.detail.get('forced_by', 'unknown')})"
    return "llm_budget", SPENT


def held(state: str) -> bool:
    """Whether ``state`` (of :func:`llm_state`) is the budget's doing or an operator's forcing of the run (which,
    :func:`offline_why` says), not the lack of an LLM."""
    return state != LLM and llm.is_configured()


def _spent_tell(bot_id: int, budget: Budget) -> None:
    """Note the day the bot's budget was found spent and, the first time that day for that budget, tell its webhooks
    (a budget raised and spent again the same day is told again). The update is the guard: of two processes finding
    it spent at once, one changes the row, and only that one tells."""
    today = timezone.now().date()
    told = Q(budget_spent_on=today, budget_spent_limit=budget.per_day)
    if not Bot.objects.filter(pk=bot_id).exclude(told).update(budget_spent_on=today, budget_spent_limit=budget.per_day):
        return
    budget_spent.send(
        sender=Bot,
        bot_id=bot_id,
        data={
            "day": today.isoformat(),
            "llm_tokens_per_day": budget.per_day,
            "tokens_today": budget.spent,
            "when_budget_spent": budget.when_spent,
        },
    )
