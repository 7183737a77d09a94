"""LLM budgets (issue 32): once a bot's tokens of the day are spent, extraction goes on offline or waits as it chose
(no turn lost either way), ask answers extractively, budget.spent is told once, and the dashboard says so."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from kbsite import budgets, jobs
from kbsite.models import EndUser, JobRun
from kbsite.models.stats import DailyUsage
from kbsite.stats import usage_add
from memories.models import Memory, Message, Session
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks
from tests.factories import MemoryFactory
from tests.kbsite.webhooks.conftest import receiver, register  # noqa: F401 - the receiver fixture

# The fake LLM's replies here cost 120 + 30 tokens: a budget of 150 is spent by the first call.
BUDGET = 150


def budget(api, tokens: int | None, when: str = "offline") -> None:
    response = api.patch("/api/v1/bot/", json={"llm_tokens_per_day": tokens, "when_budget_spent": when})
    assert response.status_code == 200, response.text


def post(api, session: str, *texts: str) -> None:
    messages = [
        {"external_id": f"{session}-{n}", "role": "user", "speaker": "Alice", "content": text}
        for n, text in enumerate(texts)
    ]
    response = api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "messages": messages})
    assert response.status_code == 202, response.text


def facts(*texts: str) -> dict:
    """An extraction reply adding ``texts``, each citing every turn of the batch."""
    add = [{"text": t, "kind": "fact", "entities": ["alice"], "topics": [], "source_turns": ["@all"]} for t in texts]
    return {"add": add, "supersede": [], "edges": []}


def lost_turns(job: JobRun) -> list[str]:
    """The turns neither cited by a memory nor shown skipped by the salience gate on the run."""
    cited = set(Memory.objects.values_list("source_messages__id", flat=True))
    skipped = {line.split(":")[0] for line in job.detail.get("skipped_turns", [])}
    return [m.content for m in Message.objects.all() if m.pk not in cited and f"m{m.pk}" not in skipped]


def modes(session: str) -> set[str]:
    return set(Memory.objects.filter(source_messages__session__external_id=session).values_list("mode", flat=True))


def cursors_at_the_end() -> bool:
    return all(s.extracted_through == max(s.messages.values_list("id", flat=True)) for s in Session.objects.all())


def spend(bot, tokens: int) -> None:
    usage_add(bot_id=bot.pk, tokens_in=tokens)


def test_a_budget_spent_in_the_middle_of_an_ingest_goes_on_offline_without_losing_a_turn(api, kb, fake_llm):
    """Two sessions' batches in one run: the first by the LLM spends the budget, the second is extracted offline;
    every turn is a memory's source or shown skipped by the salience gate, both cursors at their last turn."""
    budget(api, BUDGET, "offline")
    fake_llm.reply_json(facts("Alice lives in Berlin."))
    post(api, "first", "I live in Berlin now.", "I moved there for a job at Acme.")
    post(api, "second", "I am allergic to peanuts.", "ok", "My sister Carla works at the hospital.")
    run_queued_tasks()
    assert fake_llm.calls == 1
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    assert job.status == JobRun.Status.SUCCEEDED, job.error
    assert job.detail["llm_budget"] == "LLM budget spent: 1 session batches extracted offline"
    assert modes("first") == {"llm"} and modes("second") == {"heuristic"}
    assert lost_turns(job) == [] and cursors_at_the_end()
    assert "ok" in " ".join(job.detail["skipped_turns"])
    (row,) = DailyUsage.objects.filter(day=timezone.now().date(), bot=kb.bot)
    assert row.tokens_in + row.tokens_out == 150
    settings = api.get("/api/v1/bot/").json()
    assert (settings["llm_tokens_today"], settings["llm_budget_spent"]) == (150, True)


def test_waiting_turns_keep_their_place_and_are_extracted_once_the_budget_is_raised(api, kb, fake_llm):
    """'wait': the second session's batch is not applied, its cursor stays and its claim is released; the run waits.
    Raising the budget through the API queues it again, and the LLM extracts it: nothing lost, nothing twice."""
    budget(api, BUDGET, "wait")
    fake_llm.reply_json(facts("Alice lives in Berlin."))
    post(api, "first", "I live in Berlin now.")
    post(api, "second", "I am allergic to peanuts.")
    run_queued_tasks()
    waiting = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    assert waiting.status == JobRun.Status.WAITING and waiting.error.startswith("LLM budget spent")
    second = Session.objects.get(external_id="second")
    assert second.extracted_through < second.messages.get().pk and second.claimed_by is None
    assert modes("first") == {"llm"} and modes("second") == set()

    fake_llm.reply_json(facts("Alice is allergic to peanuts."))
    budget(api, 10_000, "wait")
    run_queued_tasks()
    assert fake_llm.calls == 2 and modes("second") == {"llm"} and cursors_at_the_end()
    assert Memory.objects.count() == 2
    waiting.refresh_from_db()
    resumed = JobRun.objects.get(pk=waiting.detail["resumed_as"])
    assert (waiting.status, resumed.status) == (JobRun.Status.SUCCEEDED, JobRun.Status.SUCCEEDED)


def test_turns_waiting_at_the_end_of_a_day_are_taken_up_the_next_day(api, kb, fake_llm):
    """A budget spent before the run: no LLM call, the run waits; the healing sweep leaves it while the day lasts and
    queues it again once the day's tokens are yesterday's."""
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    post(api, "first", "I live in Berlin now.")
    run_queued_tasks()
    assert fake_llm.calls == 0
    waiting = JobRun.objects.get(kind=JobRun.Kind.INGEST_MESSAGES)
    assert waiting.status == JobRun.Status.WAITING
    post(api, "first", "I live in Berlin now.", "My sister Carla works at the hospital.")  # one more waits with it
    run_queued_tasks()
    again = JobRun.objects.filter(kind=JobRun.Kind.INGEST_MESSAGES).exclude(pk=waiting.pk).get()
    assert again.status == JobRun.Status.SKIPPED and f"run {waiting.pk} waits" in again.error
    assert jobs.jobs_heal()["budget_waits"] == 0

    DailyUsage.objects.update(day=timezone.now().date() - timedelta(days=1))
    fake_llm.reply_json(facts("Alice lives in Berlin.", "Alice's sister Carla works at the hospital."))
    assert jobs.jobs_heal()["budget_waits"] == 1
    run_queued_tasks()
    assert fake_llm.calls == 1 and modes("first") == {"llm"} and cursors_at_the_end()
    assert Memory.objects.count() == 2


def test_a_text_waits_at_its_segment_and_resumes_there(api, kb, fake_llm):
    """A text posted with the budget spent and 'wait': its item stays pending at segment 0, then is extracted by the
    LLM once the budget is removed."""
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice lives in Berlin.", "source": "notes"})
    assert response.status_code == 202, response.text
    run_queued_tasks()
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_TEXT)
    assert job.status == JobRun.Status.WAITING and "segment 0 of 1" in job.error
    fake_llm.reply_json(facts("Alice lives in Berlin."))
    budget(api, None)
    run_queued_tasks()
    assert fake_llm.calls == 1 and Memory.objects.get().mode == "llm"


def test_an_inbox_file_waits_claimed_and_resumes(api, kb, fake_llm):
    """An inbox file met by a spent budget and 'wait' stays claimed (not parked in failed/, not handed back by the
    healing), and is ingested by the LLM once the budget is raised, then moved to processed/."""
    from memories import ingest

    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    kb.inbox_dir.mkdir(parents=True, exist_ok=True)
    (kb.inbox_dir / "notes.txt").write_bytes(b"Dana keeps three beehives in Porto.")
    past = timezone.now().timestamp() - 600
    os.utime(kb.inbox_dir / "notes.txt", (past, past))
    ingest.inbox_scan()
    run_queued_tasks()
    job = JobRun.objects.get(kind=JobRun.Kind.INGEST_FILE)
    assert job.status == JobRun.Status.WAITING and not (kb.failed_dir / "notes.txt").exists()
    os.utime(kb.folder / job.target, (past, past))  # an old claim, which the healing hands back if no job has it
    assert jobs.jobs_heal()["inbox_files"] == 0 and (kb.folder / job.target).is_file()
    fake_llm.reply_json(facts("Dana keeps three beehives in Porto."))
    budget(api, 10_000, "wait")
    run_queued_tasks()
    assert Memory.objects.get().mode == "llm" and (kb.processed_dir / "notes.txt").exists()


@pytest.fixture
def alice(kb):
    alice = EndUser.objects.seen(kb.bot, "alice")
    MemoryFactory(kb=kb, end_user=alice, text="Alice lives in Lisbon.")
    memories_embed_missing()
    return alice


def test_ask_answers_extractively_once_the_budget_is_spent(api, kb, alice, fake_llm):
    """With the day's tokens spent, ask does not call the LLM: it answers from the statements, saying why."""
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    response = api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice live?", "user_id": "alice"})
    assert response.status_code == 200, response.text
    assert response.json()["mode"] == "extractive (LLM budget spent)" and "Lisbon" in response.json()["answer"]
    assert fake_llm.calls == 0


def test_the_recall_consoles_llm_answer_spends_the_budget(admin_client, api, kb, alice, fake_llm):
    """The console's answers are real spend: the first, by the LLM, spends the budget of 150; the next is
    extractive, saying why, with no LLM call."""
    budget(api, BUDGET, "wait")
    fake_llm.reply_json({"answer": "In Lisbon.", "citations": []})
    query = {"kb": kb.pk, "query": "Where does Alice live?", "k": 10, "user_id": "alice"}
    pages = [admin_client.get(reverse("admin:kbsite_knowledgebase_recall"), query) for _ in range(2)]
    answers = [page.content.decode().split('id="ask-answer"')[1] for page in pages]
    assert "(llm)" in answers[0] and "extractive (LLM budget spent)" in answers[1] and "Lisbon" in answers[1]
    assert fake_llm.calls == 1


def test_budget_spent_is_told_once_a_day(api, kb, alice, fake_llm, receiver):  # noqa: F811 - the fixture
    """The first time the budget is found spent, a signed budget.spent event; asking again the same day tells
    nothing more."""
    register(api, receiver, ["budget.spent"])
    budget(api, BUDGET, "offline")
    spend(kb.bot, 200)
    for _ in range(2):
        api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice live?", "user_id": "alice"})
    run_queued_tasks()
    receiver.wait(1)
    (received,) = receiver.received
    assert received.signed and received.event["type"] == "budget.spent"
    data = received.event["data"]
    assert data == {
        "day": timezone.now().date().isoformat(),
        "llm_tokens_per_day": BUDGET,
        "tokens_today": 200,
        "when_budget_spent": "offline",
    }


def test_a_budget_raised_and_spent_again_the_same_day_is_told_again(api, kb, alice, fake_llm, receiver):  # noqa: F811
    """Raised after it was spent, the new budget spent too the same day is a second budget.spent, with its figures;
    found spent again without a change, nothing more."""
    register(api, receiver, ["budget.spent"])
    budget(api, BUDGET, "offline")
    spend(kb.bot, 200)
    api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice live?", "user_id": "alice"})
    budget(api, 300, "offline")
    spend(kb.bot, 150)
    for _ in range(2):
        api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice live?", "user_id": "alice"})
    run_queued_tasks()
    receiver.wait(2)
    told = sorted((r.event["data"]["llm_tokens_per_day"], r.event["data"]["tokens_today"]) for r in receiver.received)
    assert told == [(BUDGET, 200), (300, 350)]


def test_a_bot_without_a_budget_is_never_held(kb, settings, fake_llm):
    """No budget: the LLM whatever was spent; no LLM configured: offline, which is not the budget's doing."""
    spend(kb.bot, 10**9)
    assert budgets.llm_state(kb.bot_id) == budgets.LLM
    settings.LLM_BASE_URL = ""
    assert budgets.llm_state(kb.bot_id) == budgets.OFFLINE and not budgets.held(budgets.OFFLINE)


def test_the_dashboard_shows_each_budget_and_what_a_spent_one_does(admin_client, api, kb):
    """Today's tokens against the budget, and 'budget spent: extraction waiting' once spent."""
    budget(api, 1000, "wait")
    spend(kb.bot, 400)
    table = admin_client.get("/admin/").content.decode().split('id="llm-budgets"')[1].split("</table>")[0]
    assert ">1000<" in table and ">400<" in table and ">600<" in table and "budget spent" not in table
    spend(kb.bot, 600)
    page = admin_client.get("/admin/").content.decode()
    table = page.split('id="llm-budgets"')[1].split("</table>")[0]
    assert "budget spent: extraction waiting" in table and ">0<" in table
    assert "LLM budget spent: extraction waiting, answers extractive" in page


def test_consolidation_groups_offline_or_waits_for_its_next_run(api, kb, fake_llm):
    """Budget spent: 'offline' draws insights by grouping, without the LLM; 'wait' skips the run, saying why."""
    from memories import consolidation

    for n in range(3):
        MemoryFactory(kb=kb, text=f"Alice plays chess on day {n}.", entities=["alice"])
    budget(api, BUDGET, "wait")
    spend(kb.bot, BUDGET)
    job = jobs.job_run(consolidation.enqueue_consolidation(kb=kb), lambda job: consolidation.kb_consolidate(job=job))
    assert job.status == JobRun.Status.SKIPPED and job.error.startswith("LLM budget spent")
    budget(api, BUDGET, "offline")
    job = jobs.job_run(consolidation.enqueue_consolidation(kb=kb), lambda job: consolidation.kb_consolidate(job=job))
    assert (job.status, job.mode, fake_llm.calls) == (JobRun.Status.SUCCEEDED, "heuristic", 0)
    assert job.facts_added >= 1 and job.detail["llm_budget"] == "LLM budget spent: insights by grouping"
