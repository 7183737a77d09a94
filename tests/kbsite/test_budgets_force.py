"""Run now offline: an operator takes up one run waiting for the LLM budget at once with the heuristics, from the
admin or the bot through the API, without changing the bot or spending tokens; its other runs still wait."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from kbsite import jobs
from kbsite.models import Bot, JobRun
from kbsite.models.stats import DailyUsage
from memories import ingest
from memories.models import Memory
from tests.conftest import logged_in, operator_of, run_queued_tasks
from tests.kbsite.test_budgets import BUDGET, budget, cursors_at_the_end, modes, post, spend

CHANGELIST = "admin:kbsite_jobrun_changelist"


def run_offline(client, *jobs: JobRun):
    """Post the admin's "run now offline" action on ``jobs``, following to the page it lands on."""
    data = {"action": "run_offline", "index": "0", "_selected_action": [job.pk for job in jobs]}
    return client.post(reverse(CHANGELIST), data, follow=True)


@pytest.fixture
def waiting(api, kb, fake_llm) -> JobRun:
    """The turns of session 'first' waiting for the budget: 'wait' chosen, the day's tokens spent."""
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    post(api, "first", "I am allergic to peanuts.", "My sister Carla works at the hospital.")
    run_queued_tasks()
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    assert job.status == JobRun.Status.WAITING and fake_llm.calls == 0
    return job


def tokens_today(bot: Bot) -> int:
    return sum(row.tokens_in + row.tokens_out for row in DailyUsage.objects.filter(day=timezone.now().date(), bot=bot))


def test_a_waiting_run_forced_offline_in_the_admin_extracts_its_turns_and_the_bot_still_waits(
    api, kb, fake_llm, waiting
):
    """The bot's operator runs the waiting run now offline: a new run extracts its turns with the heuristics (mode
    heuristic, no LLM call, no token), its cursors at the end; the bot's budget and choice are unchanged, and the
    next run of turns posted after still waits for the budget."""
    operator = logged_in(operator_of(kb.bot))
    page = run_offline(operator, waiting)
    assert "1 waiting jobs queued to run now offline" in page.content.decode()
    run_queued_tasks()
    assert fake_llm.calls == 0 and modes("first") == {"heuristic"} and Memory.objects.exists()
    assert cursors_at_the_end()
    waiting.refresh_from_db()
    forced = JobRun.objects.get(pk=waiting.detail["forced_offline_as"])
    assert waiting.status == JobRun.Status.SKIPPED
    assert (forced.status, forced.mode, forced.tokens_in, forced.tokens_out) == ("succeeded", "heuristic", 0, 0)
    assert forced.detail["llm_forced"] == "offline" and forced.detail["forced_by"] == "admin:olga"
    bot = Bot.objects.get(pk=kb.bot_id)
    assert (bot.llm_tokens_per_day, bot.when_budget_spent) == (BUDGET, "wait") and tokens_today(bot) == BUDGET

    post(api, "second", "I keep three beehives in Porto.")
    run_queued_tasks()
    later = JobRun.objects.filter(kind=JobRun.Kind.INGEST_MESSAGES).exclude(pk__in=[waiting.pk, forced.pk]).get()
    assert later.status == JobRun.Status.WAITING and later.error.startswith("LLM budget spent")
    assert fake_llm.calls == 0 and modes("second") == set()


def test_a_waiting_text_forced_offline_resumes_at_its_segment_with_the_heuristics(api, kb, fake_llm):
    """A text item waiting at its segment, forced offline, is extracted there by the heuristics without the LLM."""
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice lives in Berlin.", "source": "notes"})
    assert response.status_code == 202, response.text
    run_queued_tasks()
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_TEXT)
    assert job.status == JobRun.Status.WAITING
    run_offline(logged_in(operator_of(kb.bot)), job)
    run_queued_tasks()
    assert fake_llm.calls == 0 and set(Memory.objects.values_list("mode", flat=True)) == {"heuristic"}
    job.refresh_from_db()
    assert JobRun.objects.get(pk=job.detail["forced_offline_as"]).status == JobRun.Status.SUCCEEDED


def test_forcing_a_run_that_is_not_waiting_is_refused(api, kb, fake_llm):
    """A failed run: the admin says only a waiting run can be run offline and queues nothing; the API answers 409
    saying what the run is."""
    failed = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.FAILED)
    page = run_offline(logged_in(operator_of(kb.bot)), failed)
    said = [str(m) for m in get_messages(page.wsgi_request)]
    assert any("only a job waiting for the LLM budget" in m for m in said), said
    response = api.post(f"/api/v1/jobs/{failed.pk}/run-offline/")
    assert response.status_code == 409 and "this one is failed" in response.json()["detail"]
    failed.refresh_from_db()
    assert JobRun.objects.get() == failed and failed.status == JobRun.Status.FAILED


def test_an_operator_of_another_bot_cannot_force_the_run(api, other_api, kb, other_bot, fake_llm, waiting):
    """An operator of another bot: the action finds no run of theirs (nothing queued, the run still waits) and the
    run's page is not found; another bot's key gets a 404. The same action by the bot's own operator, the control,
    runs it."""
    stranger = logged_in(operator_of(other_bot, username="oscar"))
    assert waiting.pk not in [job.pk for job in run_offline(stranger, waiting).context["cl"].result_list]
    page = stranger.get(reverse("admin:kbsite_jobrun_change", args=[waiting.pk]))
    assert page.status_code == 302 and page["Location"] == reverse("admin:index")  # "doesn't exist", as elsewhere
    assert other_api.post(f"/api/v1/jobs/{waiting.pk}/run-offline/").status_code == 404
    waiting.refresh_from_db()
    assert waiting.status == JobRun.Status.WAITING and JobRun.objects.count() == 1
    run_queued_tasks()
    assert fake_llm.calls == 0 and not Memory.objects.exists()

    run_offline(logged_in(operator_of(kb.bot)), waiting)
    waiting.refresh_from_db()
    assert waiting.status == JobRun.Status.SKIPPED and waiting.detail["forced_offline_as"]


def test_the_bot_runs_its_waiting_run_offline_through_the_api(api, kb, fake_llm, waiting):
    """POST /api/v1/jobs/{id}/run-offline/ (202): the new run is queued forced offline and extracts the turns with
    the heuristics; posted again, the run is no longer waiting (409)."""
    response = api.post(f"/api/v1/jobs/{waiting.pk}/run-offline/")
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["forced"] == waiting.pk and body["job"]["status"] == "queued"
    run_queued_tasks()
    assert fake_llm.calls == 0 and modes("first") == {"heuristic"} and cursors_at_the_end()
    forced = JobRun.objects.get(pk=body["job"]["id"])
    assert forced.status == JobRun.Status.SUCCEEDED and forced.detail["forced_by"].startswith("api:")
    again = api.post(f"/api/v1/jobs/{waiting.pk}/run-offline/")
    assert again.status_code == 409 and "this one is skipped" in again.json()["detail"]


def forced_by_api(api, waiting: JobRun) -> JobRun:
    """Force ``waiting`` through the API without running anything: the run that takes it up, as the row is."""
    response = api.post(f"/api/v1/jobs/{waiting.pk}/run-offline/")
    assert response.status_code == 202, response.text
    return JobRun.objects.get(pk=response.json()["job"]["id"])


def choice(job: JobRun) -> dict:
    job.refresh_from_db()
    return {key: job.detail.get(key) for key in ("llm_forced", "forced_by", "forced_for")}


def test_a_queued_run_a_worker_loaded_before_it_was_forced_runs_offline_and_keeps_the_choice(
    api, kb, fake_llm, waiting
):
    """Forcing takes the input up through the run already queued for the KB's turns. A worker that loaded that run
    a moment before (its object without the choice) still runs it offline, reading the choice from the row, and its
    saves keep the choice there: the 202 "forced" holds."""
    post(api, "second", "I keep three beehives in Porto.")
    queued = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.QUEUED)
    stale = JobRun.objects.select_related("kb__bot").get(pk=queued.pk)  # as the task loads it
    forced = forced_by_api(api, waiting)
    assert forced.pk == queued.pk and "llm_forced" not in stale.detail
    jobs.job_run(stale, lambda job: ingest.extract_pending(job=job))
    assert stale.status == JobRun.Status.SUCCEEDED, stale.error
    assert fake_llm.calls == 0 and modes("first") == modes("second") == {"heuristic"} and cursors_at_the_end()
    kept = choice(forced)
    assert (kept["llm_forced"], kept["forced_for"], forced.status) == ("offline", waiting.pk, JobRun.Status.SUCCEEDED)
    assert kept["forced_by"].startswith("api:")
    run_queued_tasks()  # the run's own task finds it done
    assert fake_llm.calls == 0 and JobRun.objects.get(pk=forced.pk).status == JobRun.Status.SUCCEEDED


def test_a_forced_run_lost_with_its_worker_is_retried_by_the_healing_still_offline(api, kb, fake_llm, waiting):
    """A forced run whose worker died is failed and retried by the healing: the retry carries the choice (who made
    it, for which run) and extracts the turns offline, though the bot still waits for its budget."""
    forced = forced_by_api(api, waiting)
    forced.start()
    jobs.job_fail(forced, "its worker process stopped (killed or restarted) while running it", retry_now=True)
    assert jobs.jobs_heal()["retries"] == 1
    forced.refresh_from_db()
    retry = JobRun.objects.get(pk=forced.detail["retried_as"])
    assert forced.status == JobRun.Status.RETRIED and choice(retry) == choice(forced)
    run_queued_tasks()
    retry.refresh_from_db()
    assert retry.status == JobRun.Status.SUCCEEDED and retry.mode == "heuristic", retry.error
    assert fake_llm.calls == 0 and modes("first") == {"heuristic"} and cursors_at_the_end()


def test_a_forced_run_that_waited_all_the_same_is_resumed_offline_by_the_healing(api, kb, fake_llm, waiting):
    """A forced run that stopped to wait (forced as it was stopping) is not held by the budget: the healing resumes
    it at once, the new run forced as it was."""
    forced = forced_by_api(api, waiting)
    forced.start()
    jobs.job_wait(forced, "LLM budget spent: the turns wait until tokens are left")
    assert jobs.jobs_resume_waiting() == 1
    forced.refresh_from_db()
    resumed = JobRun.objects.get(pk=forced.detail["resumed_as"])
    assert choice(resumed) == choice(forced) and resumed.detail["forced_for"] == waiting.pk
    run_queued_tasks()
    assert fake_llm.calls == 0 and modes("first") == {"heuristic"} and cursors_at_the_end()


def test_a_forced_run_says_it_ran_offline_by_the_operators_choice_not_the_budget(api, kb, fake_llm, waiting):
    """The forced run's detail says its batches went offline by the operator's choice, naming who made it; it says
    nothing of a spent budget."""
    run_offline(logged_in(operator_of(kb.bot)), waiting)
    run_queued_tasks()
    waiting.refresh_from_db()
    forced = JobRun.objects.get(pk=waiting.detail["forced_offline_as"])
    said = "run offline by the operator's choice (admin:olga): 1 session batches extracted offline"
    assert forced.detail["llm_offline"] == said
    assert "llm_budget" not in forced.detail and "LLM budget spent" not in str(forced.detail) + forced.error
