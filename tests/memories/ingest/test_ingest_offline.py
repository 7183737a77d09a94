"""Offline mode (no LLM): heuristic extraction keeps salient turns, attributed and dated; input API errors."""

from __future__ import annotations

from datetime import UTC, datetime

from kbsite.models import JobRun
from memories.ingest import claims
from memories.models import IngestItem, Memory, Message
from tests.conftest import run_queued_tasks


def post(api, messages, session="s1"):
    return api.post("/api/v1/kbs/notes/messages/", json={"session_id": session, "messages": messages})


def turn(ext, content, speaker="Caroline", when="2023-05-08T13:56:00Z"):
    return {"external_id": ext, "speaker": speaker, "content": content, "created_at": when}


def test_heuristic_keeps_salient_turns_attributed_and_dated(api, kb):
    """Each salient turn becomes a memory 'Speaker: text', dated by the turn, with entities and topics."""
    response = post(
        api,
        [
            turn("d1", "Hey Mel! Good to see you!"),
            turn("d2", "I went to the LGBTQ support group in Boston yesterday and it was really powerful."),
            turn("d3", "I love painting sunsets with my kids.", speaker="Melanie"),
        ],
    )
    assert response.status_code == 202
    run_queued_tasks()
    memories = {m.text: m for m in Memory.objects.all()}
    assert set(memories) == {
        "Caroline: I went to the LGBTQ support group in Boston yesterday and it was really powerful.",
        "Melanie: I love painting sunsets with my kids.",
    }
    group = memories["Caroline: I went to the LGBTQ support group in Boston yesterday and it was really powerful."]
    assert group.mode == "heuristic" and group.valid_from == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert {"caroline", "lgbtq", "boston"} <= set(group.entities) and group.topics
    assert list(group.source_messages.values_list("external_id", flat=True)) == ["d2"]
    assert memories["Melanie: I love painting sunsets with my kids."].kind == "preference"
    run = JobRun.objects.get()
    assert run.mode == "heuristic" and run.tokens_in == 0 and run.facts_added == 2


def test_kb_says_which_mode_produced_memories(api, kb):
    """The KB reports its extraction mode and how many live memories each mode produced."""
    post(api, [turn("d1", "I adopted a cat named Luna last spring.")])
    run_queued_tasks()
    body = api.get("/api/v1/kbs/notes/").json()
    assert body["extraction_mode"] == "heuristic" and body["heuristic_memory_count"] == 1
    assert body["llm_memory_count"] == 0


def test_reposting_the_same_turns_is_idempotent(api, kb):
    """A re-sent external_id is counted as a duplicate and never stored (or extracted) twice."""
    batch = [turn("d1", "I adopted a cat named Luna last spring."), turn("d2", "She is a grey tabby.")]
    first = post(api, batch).json()
    again = post(api, batch + [turn("d3", "Luna loves sleeping on the piano.")]).json()
    assert (first["accepted"], first["duplicates"]) == (2, 0)
    assert (again["accepted"], again["duplicates"]) == (1, 2)
    within = post(api, [turn("d9", "I play chess on Sundays."), turn("d9", "I play chess on Sundays.")]).json()
    assert (within["accepted"], within["duplicates"]) == (1, 1)
    run_queued_tasks()
    assert Message.objects.count() == 4
    assert Memory.objects.filter(text__contains="Luna last spring").count() == 1


def test_turns_are_stored_in_the_order_posted_with_defaults_for_what_is_left_out(api, kb):
    before = datetime.now(UTC)
    batch = [{"external_id": f"z{i}", "content": f"Turn number {i} of the chat."} for i in (5, 1, 9, 3)]
    batch[2] |= {"role": "assistant", "speaker": "Bot", "created_at": "2023-05-08T13:56:00Z"}
    assert post(api, batch).json()["accepted"] == 4
    stored = list(Message.objects.order_by("id").values_list("external_id", "role", "speaker", "created_at"))
    assert [ext for ext, *_ in stored] == ["z5", "z1", "z9", "z3"]
    assert stored[2][1:] == ("assistant", "Bot", datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    assert stored[0][1:3] == ("user", "") and stored[0][3] >= before
    assert all(m.session.external_id == "s1" and m.kb == kb for m in Message.objects.select_related("session"))


def test_same_external_id_in_another_kb_is_independent(api, kb):
    """Idempotency is per KB."""
    api.post("/api/v1/kbs/", json={"name": "work"})
    batch = {"session_id": "s1", "messages": [turn("d1", "I adopted a cat named Luna.")]}
    assert api.post("/api/v1/kbs/notes/messages/", json=batch).json()["accepted"] == 1
    assert api.post("/api/v1/kbs/work/messages/", json=batch).json()["accepted"] == 1


def test_same_external_id_in_another_session_is_another_turn(api, kb):
    """Idempotency is per session: a chat platform's message ids are often its chat's own, so two users' chats
    both have a message 17, and neither is lost."""
    ann = {"session_id": "chat-ann", "user_id": "ann", "messages": [turn("17", "I adopted a cat named Luna.")]}
    ben = {"session_id": "chat-ben", "user_id": "ben", "messages": [turn("17", "I bought a red bicycle today.")]}
    assert api.post("/api/v1/kbs/notes/messages/", json=ann).json()["accepted"] == 1
    assert api.post("/api/v1/kbs/notes/messages/", json=ben).json()["accepted"] == 1
    assert api.post("/api/v1/kbs/notes/messages/", json=ben).json()["duplicates"] == 1
    run_queued_tasks()
    owners = dict(Memory.objects.values_list("text", "end_user__external_id"))
    assert owners == {
        "Caroline: I adopted a cat named Luna.": "ann",
        "Caroline: I bought a red bicycle today.": "ben",
    }


def test_text_ingest_is_accepted_and_processed(api, kb):
    """POST ingest/ answers 202 with the item, which is then split into its statements, each a memory."""
    text = "Project Falcon ships in March 2025.\n\nThe Falcon team uses PostgreSQL and Django for the backend."
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": text, "source": "meeting-notes"})
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "pending"
    run_queued_tasks()
    item = IngestItem.objects.get()
    assert item.status == "done"
    # Offline, each statement is a memory of its own.
    assert sorted(Memory.objects.values_list("text", flat=True)) == [
        "Project Falcon ships in March 2025.",
        "The Falcon team uses PostgreSQL and Django for the backend.",
    ]
    assert all(m.source == "api:meeting-notes" for m in Memory.objects.all())


def test_messages_bad_input_is_a_4xx(api, kb):
    """Missing fields, wrong types, empty batches, blank content and unknown roles are explained, each error under
    the field it is about (a turn's by its place in the batch)."""
    cases = [
        ({"messages": [turn("d1", "x")]}, ["session_id"]),
        ({"session_id": "s1", "messages": []}, ["messages"]),
        ({"session_id": "s1", "messages": "hello"}, ["messages"]),
        ({"session_id": "s1", "messages": [{"external_id": "d1"}]}, ["messages", "0", "content"]),
        ({"session_id": "s1", "messages": [{"external_id": "d1", "content": "   "}]}, ["messages", "0", "content"]),
        (
            {"session_id": "s1", "messages": [{"external_id": "d1", "content": "hi", "role": "wizard"}]},
            ["messages", "0", "role"],
        ),
        (
            {"session_id": "s1", "messages": [{"external_id": "d1", "content": "hi", "created_at": "last tuesday"}]},
            ["messages", "0", "created_at"],
        ),
        ({"session_id": ["s1"], "messages": [turn("d1", "x")]}, ["session_id"]),
    ]
    for body, where in cases:
        response = api.post("/api/v1/kbs/notes/messages/", json=body)
        assert response.status_code == 400, body
        error = response.json()
        for name in where:  # the error names the field, down to it, and nothing else
            assert isinstance(error, dict) and list(error) == [name], (where, response.text)
            error = error[name]
    assert Message.objects.count() == 0


def test_too_many_messages_in_one_request(api, kb, settings):
    """A batch over MAX_MESSAGES_PER_REQUEST is refused with the limit."""
    batch = [turn(f"d{i}", f"Fact number {i} about Caroline.") for i in range(1001)]
    response = post(api, batch)
    assert response.status_code == 400
    assert "1000" in str(response.json())


def test_ingest_bad_input(api, kb):
    """Empty text, non-string text, unknown KB and an inactive KB are refused with messages."""
    assert api.post("/api/v1/kbs/notes/ingest/", json={"text": ""}).status_code == 400
    assert api.post("/api/v1/kbs/notes/ingest/", json={"text": 42, "source": {}}).status_code == 400
    assert api.post("/api/v1/kbs/nope/ingest/", json={"text": "x"}).status_code == 404
    api.patch("/api/v1/kbs/notes/", json={"is_active": False})
    response = api.post("/api/v1/kbs/notes/ingest/", json={"text": "Alice likes tea."})
    assert response.status_code == 409 and "inactive" in response.json()["detail"]


def test_ingest_into_another_bots_kb_is_a_404(api, other_kb):
    """Input cannot be posted into another bot's KB."""
    response = api.post("/api/v1/kbs/secret/messages/", json={"session_id": "s", "messages": [turn("d1", "x y z")]})
    assert response.status_code == 404
    assert Message.objects.count() == 0


# --- Workers sharing one KB's backlog ----------------------------------------------------------------


HOBBIES = [
    "I restore old motorcycles in my garage.",
    "My sister moved to Lisbon last spring.",
    "I am learning to play the cello.",
    "Our dog Biscuit hates thunderstorms.",
    "I ran my first marathon in Berlin.",
    "My favourite dish is mushroom risotto.",
    "I volunteer at the animal shelter on Saturdays.",
    "We are planning a trip to Iceland in June.",
    "I started a pottery class at the community college.",
    "My grandfather taught me to fish for trout.",
    "I switched jobs and now work as a nurse.",
    "The kids built a treehouse in the backyard.",
    "I read every novel by Ursula Le Guin.",
    "My brother is getting married in October.",
    "I keep bees on the roof of our building.",
    "I grew up on a farm near Krakow.",
    "We adopted two kittens from the rescue centre.",
    "I collect vinyl records of jazz pianists.",
]


def _sessions(api, sessions: int, turns: int) -> None:
    """``sessions`` sessions of ``turns`` distinct salient turns each (at most 18 in all)."""
    for s in range(sessions):
        post(api, [turn(f"s{s}t{t}", HOBBIES[s * turns + t]) for t in range(turns)], f"s{s}")


def test_a_large_backlog_queues_a_helper_job_for_another_worker(api, kb, settings):
    """Offline, a job takes EXTRACT_CHUNK_TURNS turns at a time; while more wait it queues a second job, which
    another worker would run beside it. Here one worker runs both: the helper finds nothing left and says so."""
    settings.EXTRACT_CHUNK_TURNS = 4
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "workers": 2}
    _sessions(api, sessions=3, turns=4)
    first = JobRun.objects.get()
    assert run_queued_tasks() == 2
    first.refresh_from_db()
    assert (first.status, first.items_read, first.facts_added) == ("succeeded", 12, 12)
    helper = JobRun.objects.exclude(pk=first.pk).get()
    assert helper.status == "skipped" and "other jobs took them" in helper.error
    assert Memory.objects.count() == 12


def test_jobs_sharing_a_backlog_each_claim_at_most_an_even_share(api, kb):
    """With two workers, a job claims at most half of the free turns however large its chunk, so the last
    of a KB's turns are split between the workers rather than left to one of them running alone."""

    _sessions(api, sessions=4, turns=4)
    first = JobRun.objects.get()
    second = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES)
    by_first, more = claims.sessions_claim(kb, first, set(), budget=100, sharers=2)
    assert (len(by_first), more) == (2, True)  # 8 of the 16 free turns
    by_second, more = claims.sessions_claim(kb, second, set(), budget=100, sharers=2)
    assert (len(by_second), more) == (1, True)  # 4 of the 8 still free
    claims.sessions_release(first, by_first)
    by_first, more = claims.sessions_claim(kb, first, set(), budget=100, sharers=1)
    assert (len(by_first), more) == (3, False)  # alone, a job takes all its chunk holds


def test_while_other_kbs_wait_a_job_claims_its_share_of_all_the_waiting_turns(api, kb):
    """The even share counts the free turns of the other KBs whose extraction is queued too: while they wait, the
    other worker has work, and this job keeps its chunk large instead of halving it."""
    from memories import ingest
    from tests.factories import KnowledgeBaseFactory

    _sessions(api, sessions=4, turns=4)
    first = JobRun.objects.get()
    other = KnowledgeBaseFactory(bot=kb.bot, name="other")
    for s in range(4):
        ingest.messages_receive(
            kb=other,
            session_id=f"o{s}",
            messages=[{"external_id": f"o{s}t{t}", "content": HOBBIES[t], "role": "user"} for t in range(4)],
        )
    assert JobRun.objects.filter(kb=other, status="queued").exists()
    by_first, more = claims.sessions_claim(kb, first, set(), budget=100, sharers=2)
    assert (len(by_first), more) == (4, False)  # all 16 of its KB's turns: half of the 32 waiting
    claims.sessions_release(first, by_first)

    JobRun.objects.filter(kb=other).update(status="running")  # the other worker took that KB: no longer waiting
    by_first, more = claims.sessions_claim(kb, first, set(), budget=100, sharers=2)
    assert (len(by_first), more) == (2, True)  # half of this KB's 16


def test_a_single_worker_queues_no_helper_job(api, kb, settings):
    settings.EXTRACT_CHUNK_TURNS = 4
    settings.Q_CLUSTER = {**settings.Q_CLUSTER, "workers": 1}
    _sessions(api, sessions=3, turns=4)
    assert run_queued_tasks() == 1
    assert JobRun.objects.get().facts_added == 12


def test_a_session_another_job_is_extracting_is_left_to_it(api, kb):
    """A job claims the sessions it extracts: another job of the same KB skips them, and takes them once the
    claim is released, or once it has run out (the worker holding it died)."""
    from datetime import timedelta

    from django.utils import timezone

    from memories.models import Session

    _sessions(api, sessions=2, turns=2)
    busy, free = Session.objects.order_by("id")
    other = JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.RUNNING)
    Session.objects.filter(pk=busy.pk).update(claimed_by=other, claimed_until=timezone.now() + timedelta(minutes=5))
    run_queued_tasks()
    busy.refresh_from_db(), free.refresh_from_db()
    assert busy.extracted_through == 0 and free.extracted_through > 0
    assert busy.claimed_by == other and free.claimed_by is None  # a job releases what it claimed
    assert set(Memory.objects.values_list("source_messages__session", flat=True)) == {free.pk}

    Session.objects.filter(pk=busy.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    post(api, [turn("late", "I also grow pears behind the barn.")], "s1")
    run_queued_tasks()
    busy.refresh_from_db()
    assert busy.extracted_through == max(busy.messages.values_list("id", flat=True)) and busy.claimed_by is None
    assert Memory.objects.count() == 5


def test_concurrent_jobs_of_one_kb_extract_each_turn_once(api, kb, settings, transactional_db):
    """Two workers on one KB's backlog at once: every turn is extracted by exactly one of them, and no
    result is thrown away for a cursor the other moved."""
    import threading

    from django.db import connection

    from memories import ingest

    settings.EXTRACT_CHUNK_TURNS = 3
    _sessions(api, sessions=6, turns=3)
    jobs = [JobRun.objects.get(), JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_MESSAGES)]
    start = threading.Barrier(2)

    def work(job):
        try:
            start.wait()
            ingest.extract_pending(job=job)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    runs = JobRun.objects.filter(pk__in=[j.pk for j in jobs])
    assert sum(r.items_read for r in runs) == 18 and not any("note" in r.detail for r in runs)
    assert Memory.objects.count() == 18
    assert Message.objects.filter(memories__isnull=True).count() == 0


def test_no_word_of_a_quarantined_turn_reaches_its_tags(api, kb):
    """Offline tags are words of the text: a quarantined turn keeps none (issue 19, finding 8)."""
    post(api, [turn("q1", "My bank password is Zebrafinch42Secret and my PIN is 7731, remember them.")])
    run_queued_tasks()
    memory = Memory.objects.get()
    assert memory.quarantined
    assert memory.entities == [] and memory.topics == []
    assert not [n for n in memory.kb.entities.values_list("name", flat=True) if "zebrafinch" in n]


def test_offline_names_and_topics_keep_their_letters(api, kb):
    """Unicode-aware words: "Pitié" is not "piti" (issue 19, finding 8)."""
    post(api, [turn("u1", "Marie works at the Pitié-Salpêtrière hospital in Paris with Jürgen Müller.")])
    run_queued_tasks()
    memory = Memory.objects.get()
    assert {"pitié-salpêtrière", "paris", "jürgen müller"} <= set(memory.entities)
    assert "piti" not in memory.entities and "pitié-salpêtrière" in memory.topics
