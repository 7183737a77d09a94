"""Recall, the context block and ask: ranking, packing, life span, isolation, sessions, bad input."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from kbsite.ai.fulltext import text_query
from memories import recall as recall_service
from memories.models import Edge, Entity, Memory
from memories.recall.fulltext import FTS_ROWS
from memories.services import memories_embed_missing
from tests.factories import KnowledgeBaseFactory, MessageFactory, SessionFactory


def remember(kb, text, *, entities=(), session=None, **fields):
    memory = Memory.objects.create(kb=kb, text=text, entities=list(entities), **fields)
    if session is not None:
        memory.source_messages.add(MessageFactory(session=session, content=text))
    return memory


def embed_all():
    memories_embed_missing()


def ask_recall(api, kb="notes", **body):
    response = api.post(f"/api/v1/kbs/{kb}/recall/", json=body)
    assert response.status_code == 200, response.text
    return response.json()["results"]


@pytest.fixture
def pets(kb):
    direct = remember(kb, "Alice adopted a golden retriever puppy named Max.", entities=["alice", "max"])
    neighbour = remember(kb, "Dr. Okafor works at the riverside clinic.", entities=["okafor"])
    recent = remember(kb, "The quarterly budget meeting moved to Thursday.", entities=["budget"])
    max_, okafor = Entity.objects.create(kb=kb, name="max"), Entity.objects.create(kb=kb, name="okafor")
    Edge.objects.create(kb=kb, src=max_, relation="treated_by", dst=okafor)
    embed_all()
    return direct, neighbour, recent


def test_direct_match_outranks_graph_and_recency_supplements(api, pets):
    """The matching memory comes first (fts + vector); the graph neighbour and the recent memory follow, lower."""
    direct, neighbour, recent = pets
    results = ask_recall(api, query="What kind of dog did Alice adopt?", k=10)
    assert results[0]["id"] == direct.pk and set(results[0]["signals"]) == {"fts", "vector"}
    by_id = {r["id"]: r for r in results}
    assert by_id[neighbour.pk]["signals"] == ["graph"]
    assert by_id[recent.pk]["signals"] == ["recency"]
    assert by_id[neighbour.pk]["score"] < results[0]["score"] and by_id[recent.pk]["score"] < results[0]["score"]
    assert [r["id"] for r in results] == [direct.pk, neighbour.pk, recent.pk]


def test_supplements_can_be_left_out_by_budget(api, pets):
    """Supplements only fill what the budget leaves after the direct matches."""
    direct, _, _ = pets
    results = ask_recall(api, query="What kind of dog did Alice adopt?", k=10, budget_chars=60)
    assert [r["id"] for r in results] == [direct.pk]


def test_budget_packing_keeps_rank_order_within_the_budget(api, kb):
    """Results are taken in rank order while they fit; one too long is skipped, the total stays under budget."""
    remember(kb, "Alice loves hiking in the Alps every summer with her sister.")
    remember(kb, "Alice hiking " + "very long story " * 30)
    remember(kb, "Alice went hiking in Norway.")
    embed_all()
    results = ask_recall(api, query="Alice hiking", k=10, budget_chars=120)
    assert sum(len(r["text"]) for r in results) <= 120
    assert all("very long story" not in r["text"] for r in results)
    assert len(results) >= 2
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_retired_and_quarantined_are_never_returned_but_known_at_sees_the_past(api, kb):
    """Live recall hides retired and quarantined facts; known_at returns what was live then (system time)."""
    old = remember(kb, "Alice lives in Paris.", entities=["alice"])
    Memory.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))
    new = remember(kb, "Alice lives in Berlin.", entities=["alice"])
    old.retire(reason="moved", superseded_by=new)
    remember(kb, "Alice's password is hunter22", quarantined=True)
    Memory.objects.filter(pk=old.pk).update(retired_at=timezone.now() - timedelta(days=2))
    embed_all()
    texts = [r["text"] for r in ask_recall(api, query="Where does Alice live? password", k=10)]
    assert "Alice lives in Berlin." in texts
    assert "Alice lives in Paris." not in texts and not any("hunter22" in t for t in texts)
    known = (timezone.now() - timedelta(days=5)).isoformat()
    past = ask_recall(api, query="Where does Alice live?", k=10, known_at=known)
    assert [r["text"] for r in past] == ["Alice lives in Paris."]


def test_recall_is_scoped_to_the_callers_bot(api, other_kb):
    """Another bot's KB is a 404 for recall, ask and its memories never leak into context."""
    remember(other_kb, "The launch code is in the blue folder.")
    embed_all()
    assert api.post("/api/v1/kbs/secret/recall/", json={"query": "launch code"}).status_code == 404
    assert api.post("/api/v1/kbs/secret/ask/", json={"question": "launch code?"}).status_code == 404
    body = api.get("/api/v1/context/", params={"query": "launch code"}).json()
    assert "blue folder" not in body["context"]


def test_session_exclusion(api, kb):
    """exclude_session leaves out memories drawn from that session's own turns."""
    current, past = SessionFactory(kb=kb, external_id="now"), SessionFactory(kb=kb, external_id="before")
    remember(kb, "Alice is planning a trip to Japan in April.", session=current)
    earlier = remember(kb, "Alice visited Japan in 2019 and loved Kyoto.", session=past)
    embed_all()
    results = ask_recall(api, query="Alice Japan trip", k=5, session_id="now", exclude_session=True, kinds=["fact"])
    assert [r["id"] for r in results if "recency" not in r["signals"]] == [earlier.pk]
    assert results[0]["sources"] == [
        {"type": "message", "session_id": "before", "external_id": earlier.source_messages.get().external_id}
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": "x", "k": 0}, "k"),
        ({"query": "x", "k": 1000}, "k"),
        ({"query": "x", "budget_chars": -5}, "budget_chars"),
        ({"query": "x", "kinds": ["gossip"]}, "kinds"),
        ({"query": "x", "as_of": "last week"}, "as_of"),
        ({"query": "x", "exclude_session": True}, "session_id"),  # the one it needs
        ({"query": ["x"]}, "query"),
    ],
)
def test_bad_recall_parameters_are_400s(api, kb, body, field):
    """Every malformed parameter is a 400 naming the field, and that field only."""
    response = api.post("/api/v1/kbs/notes/recall/", json=body)
    assert response.status_code == 400
    assert list(response.json()) == [field], response.text


def test_context_block_spans_always_on_kbs_with_ids_and_threshold(api, kb):
    """The context holds relevant memories of every always-on KB, with their ids; weak matches are dropped."""
    work = KnowledgeBaseFactory(bot=kb.bot, name="work", always_on=True)
    off = KnowledgeBaseFactory(bot=kb.bot, name="archive", always_on=False)
    a = remember(kb, "Alice is allergic to peanuts.")
    b = remember(work, "Alice's manager at work is Priya, and Alice is allergic to long meetings.")
    remember(off, "Alice is allergic to cats.")
    unrelated = remember(kb, "The office printer on floor three jams on Mondays.")
    embed_all()
    body = api.get("/api/v1/context/", params={"query": "What is Alice allergic to?"}).json()
    assert f"[memory {a.pk}]" in body["context"] and f"[memory {b.pk}]" in body["context"]
    assert "cats" not in body["context"] and f"[memory {unrelated.pk}]" not in body["context"]
    assert sorted(body["knowledge_bases"]) == ["notes", "work"]
    assert body["context"].startswith("<untrusted")


def test_context_keeps_the_facts_learned_in_the_current_session(api, kb):
    """The current session's own conversation is left out (the bot has it), not the facts learned from it: a bot
    that keeps one long session per user would never get that user's facts back (issue 19, finding 1)."""
    live = SessionFactory(kb=kb, external_id="live")
    allergy = remember(kb, "Alice is allergic to shellfish.", session=live)
    embed_all()
    for params in ({}, {"session_id": "live"}):
        body = api.get("/api/v1/context/", params={"query": "Is Alice allergic to shellfish?", **params}).json()
        assert f"[memory {allergy.pk}]" in body["context"], params


def test_context_without_query_is_a_400(api, kb):
    """The context call needs a query."""
    assert api.get("/api/v1/context/").status_code == 400


def test_ask_offline_answers_extractively_with_citations(api, kb):
    """Offline, the answer is the best matching sentence and cites the memory it came from."""
    memory = remember(kb, "Alice's favourite food is mushroom risotto.")
    remember(kb, "Bob plays tennis on Saturdays.")
    embed_all()
    body = api.post("/api/v1/kbs/notes/ask/", json={"question": "What is Alice's favourite food?"}).json()
    assert body["mode"] == "extractive"
    assert "mushroom risotto" in body["answer"] and body["citations"] == [memory.pk]


def test_ask_with_llm_cites_only_memories_it_was_given(api, kb, fake_llm):
    """Ids the model invents, or that were not recalled, are dropped from the citations."""
    memory = remember(kb, "Alice's favourite food is mushroom risotto.")
    hidden = remember(kb, "Carol collects stamps.", quarantined=True)
    embed_all()
    fake_llm.reply_json({"answer": "Mushroom risotto.", "citations": [memory.pk, hidden.pk, 99999]})
    body = api.post("/api/v1/kbs/notes/ask/", json={"question": "What is Alice's favourite food?"}).json()
    assert body["mode"] == "llm" and body["answer"] == "Mushroom risotto."
    assert body["citations"] == [memory.pk]
    prompt = fake_llm.user_prompt()
    assert f"[{memory.pk}] Alice's favourite food" in prompt and "stamps" not in prompt


def test_ask_with_llm_asked_how_things_were_before_reads_what_the_shown_facts_replaced(api, kb, fake_llm):
    """ "Where did Alice work before the bakery?": recall finds what holds now, the bakery; the fact it replaced comes
    with it, marked as no longer true and citable. Asked how things stand, it does not."""
    bakery = remember(kb, "Alice works at the Crumb & Co bakery.")
    bank = remember(kb, "Alice works as a cashier at Northgate Bank.")
    bank.retire(reason="superseded", superseded_by=bakery)
    embed_all()
    fake_llm.reply_json({"answer": "At Northgate Bank.", "citations": [bank.pk]})
    body = api.post("/api/v1/kbs/notes/ask/", json={"question": "Where did Alice work before the bakery?"}).json()
    assert body["answer"] == "At Northgate Bank." and body["citations"] == [bank.pk]
    assert f"[{bank.pk}] (earlier, no longer true) Alice works as a cashier" in fake_llm.user_prompt()
    fake_llm.reply_json({"answer": "At the bakery.", "citations": [bakery.pk]})
    api.post("/api/v1/kbs/notes/ask/", json={"question": "Where does Alice work?"})
    assert "Northgate" not in fake_llm.user_prompt()


def test_ask_with_llm_for_an_end_user_marks_the_shared_memories_as_about_anyone(api, kb, fake_llm):
    """Asked for carol, a shared memory (said in a chat of no end user) is listed as shared, and the prompt says what
    that means: "I'm allergic to walnuts" there is not carol's. Asked for no end user, nothing is marked."""
    from kbsite.models import EndUser

    carol = EndUser.objects.create(bot=kb.bot, external_id="carol")
    own = remember(kb, "I am allergic to peanuts.", end_user=carol)
    anyone = remember(kb, "I am allergic to walnuts.")
    embed_all()
    fake_llm.reply_json({"answer": "Peanuts.", "citations": [own.pk]})
    body = api.post("/api/v1/kbs/notes/ask/", json={"question": "What is she allergic to?", "user_id": "carol"}).json()
    assert body["answer"] == "Peanuts." and body["citations"] == [own.pk]
    prompt = fake_llm.user_prompt()
    assert f"[{anyone.pk}] (shared) I am allergic to walnuts." in prompt
    assert f"[{own.pk}] I am allergic to peanuts." in prompt
    assert '"(shared)"' in next(m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "system")
    fake_llm.reply_json({"answer": "Walnuts.", "citations": [anyone.pk]})
    api.post("/api/v1/kbs/notes/ask/", json={"question": "Who is allergic to walnuts?"})
    assert "(shared)" not in fake_llm.user_prompt()


def test_the_block_asked_how_things_were_before_shows_what_its_facts_replaced_as_held_until_then(api, kb):
    """The context block for "Where did Alice work before the bakery?" shows the retired bank job after the bakery,
    marked as held until the bakery was said; for "Where does Alice work?" it does not show it."""
    bakery = remember(kb, "Alice works at the Crumb & Co bakery.", valid_from=timezone.now() - timedelta(days=3))
    bank = remember(kb, "Alice works as a cashier at Northgate Bank.")
    bank.retire(reason="superseded", superseded_by=bakery)
    embed_all()
    block = api.get("/api/v1/context/", params={"query": "Where did Alice work before the bakery?"}).json()["context"]
    until = f"{bakery.valid_from:%Y-%m-%d}"
    assert f"[memory {bank.pk}] (earlier, until {until}) Alice works as a cashier at Northgate Bank." in block, block
    assert block.index("Crumb & Co") < block.index("Northgate")
    assert "Northgate" not in api.get("/api/v1/context/", params={"query": "Where does Alice work?"}).json()["context"]


def test_the_block_asked_how_things_were_before_follows_a_fact_replaced_twice_back(api, kb):
    """Library, then bank, then bakery: asked what came before, the block shows both replaced jobs after the bakery,
    the bank first, each held until what replaced it was said."""
    now = timezone.now()
    bakery = remember(kb, "Alice works at the Crumb & Co bakery.", valid_from=now - timedelta(days=3))
    bank = remember(kb, "Alice works as a cashier at Northgate Bank.", valid_from=now - timedelta(days=30))
    library = remember(kb, "Alice works at the town library.", valid_from=now - timedelta(days=90))
    library.retire(reason="superseded", superseded_by=bank)
    bank.retire(reason="superseded", superseded_by=bakery)
    embed_all()
    block = api.get("/api/v1/context/", params={"query": "Where did Alice work before the bakery?"}).json()["context"]
    assert f"[memory {library.pk}] (earlier, until {bank.valid_from:%Y-%m-%d}) Alice works at the town" in block, block
    assert block.index("Crumb & Co") < block.index("Northgate") < block.index("town library")


def test_ask_falls_back_to_extractive_when_the_llm_fails(api, kb, fake_llm):
    """A failing LLM still yields an answer, and the mode says why."""
    remember(kb, "Alice's favourite food is mushroom risotto.")
    embed_all()
    for _ in range(3):
        fake_llm.reply_status(500)
    body = api.post("/api/v1/kbs/notes/ask/", json={"question": "What is Alice's favourite food?"}).json()
    assert body["mode"].startswith("extractive (LLM failed") and "risotto" in body["answer"]


def test_text_query_drops_memory_stopwords():
    """Seed 001's stopwords (user, project, use...) never reach the text query; the rest are OR-ed."""
    assert text_query("What package manager does the user use for the project?") == ("package or manager")


def test_full_text_finds_a_rare_word_among_many_rows_of_a_common_one(kb):
    """The full-text list looks at a bounded number of rows, but never loses the row with the rarest word."""
    Memory.objects.bulk_create(
        Memory(kb=kb, text=f"Alice walked the dog, walk number {i}.", content_hash=f"walk-{i}")
        for i in range(FTS_ROWS + 100)
    )
    capybara = remember(kb, "Alice adopted a capybara.")
    no_vectors = np.ones(384, dtype=np.float32)  # no memory is embedded: the full-text list alone decides
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="Alice capybara walk", k=5, query_vector=no_vectors)
    )
    assert hits[0].id == capybara.pk and hits[0].signals == ["fts"]


def test_large_kbs_read_word_counts_instead_of_counting(kb, monkeypatch):
    """A KB past TERM_STATS_MIN_MEMORIES keeps its word counts (refreshed by its ingest jobs when it has grown);
    recall reads them, still ranks by rarity, and still finds a word newer than the counts."""
    from kbsite.models import KnowledgeBase
    from memories import services
    from memories.models import TermStat

    monkeypatch.setattr(services, "TERM_STATS_MIN_MEMORIES", 20)
    Memory.objects.bulk_create(
        Memory(kb=kb, text=f"Alice walked the dog, walk number {i}.", content_hash=f"walk-{i}") for i in range(30)
    )
    capybara = remember(kb, "Alice adopted a capybara.")
    assert services.kb_term_stats_refresh_if_due(kb=kb)
    kb = KnowledgeBase.objects.get(pk=kb.pk)
    assert kb.term_stats_memories == 31
    counts = dict(TermStat.objects.filter(kb=kb).values_list("term", "ndoc"))
    assert counts["alic"] == 31 and counts["walk"] == 30 and counts["capybara"] == 1
    assert not services.kb_term_stats_refresh_if_due(kb=kb)  # unchanged: not due

    no_vectors = np.ones(384, dtype=np.float32)
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="Alice capybara walk", k=5, query_vector=no_vectors)
    )
    assert hits[0].id == capybara.pk
    okapi = remember(kb, "Alice saw an okapi at the zoo.")  # newer than the counts
    hits = recall_service.recall(recall_service.RecallQuery(kbs=(kb,), text="okapi", k=5, query_vector=no_vectors))
    assert hits[0].id == okapi.pk and hits[0].signals == ["fts"]

    # End users' memories are not counted: their words stay theirs, and their recall still finds them.
    from kbsite.models import EndUser

    ann = EndUser.objects.seen(kb.bot, "ann")
    quokka = Memory.objects.create(kb=kb, end_user=ann, text="Ann has a quokka.", content_hash="quokka")
    services.kb_term_stats_refresh(kb=kb)
    assert "quokka" not in set(TermStat.objects.filter(kb=kb).values_list("term", flat=True))
    assert KnowledgeBase.objects.get(pk=kb.pk).term_stats_memories == 32  # the shared ones, okapi included
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="quokka", k=5, query_vector=no_vectors, end_user_id=ann.pk)
    )
    assert hits[0].id == quokka.pk

    services.kb_clear(kb=kb)
    assert not TermStat.objects.filter(kb=kb).exists()
    assert KnowledgeBase.objects.get(pk=kb.pk).term_stats_memories == 0


def test_a_memory_about_the_person_the_query_names_ranks_higher(kb):
    """Of two equally matching memories, the one whose subject the query names ("Melanie's") comes first."""
    melanie = remember(kb, "I painted a sunset over the lake last week.", entities=["melanie", "lake"])
    caroline = remember(kb, "I painted a sunset over the lake last week!", entities=["caroline", "lake"])
    embed_all()
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="What did Melanie's friend paint at the lake?", k=2)
    )
    assert [h.id for h in hits] == [melanie.pk, caroline.pk]
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="What did Caroline paint at the lake?", k=2)
    )
    assert [h.id for h in hits] == [caroline.pk, melanie.pk]


def test_a_memory_dated_in_the_period_the_query_names_ranks_higher(kb):
    """Of two equally matching memories, the one dated on the day (or in the month) the query names comes first."""
    from datetime import UTC, datetime

    june = remember(kb, "Maria said she joined a gym.", valid_from=datetime(2023, 6, 16, 13, 5, tzinfo=UTC))
    march = remember(kb, "Maria said she joined a gym!", valid_from=datetime(2023, 3, 2, 9, 0, tzinfo=UTC))
    embed_all()
    for query, first in [
        ("What news did Maria share on 16 June, 2023?", june),
        ("What did Maria join on March 2, 2023?", march),
        ("What did Maria join in March 2023?", march),
    ]:
        hits = recall_service.recall(recall_service.RecallQuery(kbs=(kb,), text=query, k=2))
        assert hits[0].id == first.pk and "date" in hits[0].signals, query
        assert "date" not in hits[1].signals
    # No date named: no date signal.
    hits = recall_service.recall(recall_service.RecallQuery(kbs=(kb,), text="What did Maria join?", k=2))
    assert all("date" not in h.signals for h in hits)


@pytest.mark.parametrize(
    "query, period",
    [
        ("on 16 June, 2023", ("2023-06-15", "2023-06-18")),
        ("on 8th December, 2023", ("2023-12-07", "2023-12-10")),
        ("on May 3, 2023", ("2023-05-02", "2023-05-05")),
        ("what happened 2023-06-16", ("2023-06-15", "2023-06-18")),
        ("in December 2023", ("2023-12-01", "2024-01-01")),
        ("in Sept. 2021", ("2021-09-01", "2021-10-01")),
        ("in 2024", ("2024-01-01", "2025-01-01")),
        ("on 31 February, 2023", ("2023-02-01", "2023-03-01")),  # not a day: the month is still named
        ("in August", None),  # no year: too vague to weigh
        ("I may go 2024 times", None),
    ],
)
def test_query_period(query, period):
    found = recall_service.query_period(query)
    assert (tuple(d.date().isoformat() for d in found) if found else None) == period


def test_a_hit_is_written_as_its_serializer_fields_would_write_it(kb):
    """The API writes a hit directly (for speed) exactly as the serializer's fields would, times with or without
    a valid time, and a memory's times read back exactly (to the microsecond)."""
    from rest_framework import serializers

    from memories.api.serializers import HitSerializer

    session = SessionFactory(kb=kb, external_id="chat-1")
    memory = remember(kb, "Alice adopted a golden retriever puppy.", session=session, valid_from=None)
    dated = remember(kb, "Alice moved to Porto in November.", valid_from=timezone.now() - timedelta(days=3))
    embed_all()
    hits = recall_service.recall(recall_service.RecallQuery(kbs=(kb,), text="Alice puppy Porto", k=5))
    assert {h.id for h in hits} == {memory.pk, dated.pk}
    for hit in hits:
        written = HitSerializer(hit).data
        assert written == serializers.Serializer.to_representation(HitSerializer(), hit)
        source = Memory.objects.get(pk=hit.id)
        assert (hit.created_at, hit.valid_from) == (source.created_at, source.valid_from)


def test_a_word_the_shared_rows_make_common_is_not_counted_again_in_each_users_scope(kb, monkeypatch):
    """An end user's scope holds the KB's shared rows: a word common among many shared rows is as common for every
    user, counted once over the shared rows, never again over each user's scope (with 100,000 shared turns that
    count took up to 160 ms of each user's recall); a word only the user's rows hold is still found."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kbsite.models import EndUser
    from memories.recall import fulltext
    from memories.recall.hybrid import RecallQuery

    monkeypatch.setattr(fulltext, "DF_CAP", 3)  # "many shared rows"
    monkeypatch.setattr(fulltext, "DF_CACHE_MIN", 2)  # "common among them"
    monkeypatch.setattr(fulltext, "_df_cache", {})
    monkeypatch.setattr(fulltext, "_size_cache", {})
    for n in range(4):
        remember(kb, f"The team drinks coffee on day {n}.")
    users = [EndUser.objects.create(bot=kb.bot, external_id=name) for name in ("ana", "ben")]
    for user in users:
        remember(kb, f"{user.external_id} plays the cello with Ottoline.", end_user=user)
    embed_all()
    for user in users:
        with CaptureQueriesContext(connection) as ctx:
            hits = recall_service.recall(
                RecallQuery(kbs=(kb,), text="who drinks coffee or plays cello", end_user_id=user.pk)
            )
        counted_for_user = [  # a count of the word over the user's live memories
            branch
            for q in ctx.captured_queries
            for branch in q["sql"].split(" UNION ALL ")
            if "'coffee'" in branch
            and "FROM memories_memory" in branch
            and '"retired_at" IS NULL' in branch
            and f"= {user.pk})" in branch
        ]
        assert counted_for_user == [], "the shared rows already made 'coffee' common"
        assert "Ottoline" in hits[0].text  # the user's own rare word still ranks


def test_a_word_most_of_the_scope_holds_brings_no_row_into_the_full_text_list(kb):
    """Asked of one person's memories, each opening on their name, the name tells none of them apart: the rows
    that hold nothing else of the question stay out of the full-text list (they came in the newest first, above
    the rows that answer), while a row with a word of the question is listed."""
    for n in range(25):
        remember(kb, f"Rosa: made tea and watched the rain, day {n}.")
    ward = remember(kb, "Rosa: signed on at the Princess Alexandra, a nurse on a surgical ward.")
    no_vectors = np.ones(384, dtype=np.float32)  # no memory is embedded: the full-text list alone decides
    hits = recall_service.recall(
        recall_service.RecallQuery(kbs=(kb,), text="Where is Rosa a nurse?", k=5, query_vector=no_vectors)
    )
    assert [h.id for h in hits if "fts" in h.signals] == [ward.pk]  # the others come as recent ones only


def test_a_small_scopes_words_are_counted_in_one_reading_of_it(kb):
    """A vague question searches its subject's hundred words ("family": sister, brother, mother, ...). Over a
    small scope (an end user's memories) they are all counted in one reading of its rows, not one subquery per
    word (a statement of a hundred subqueries took 60 ms to plan); the counts rank the subject's fact all the same."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from kbsite.models import EndUser
    from memories.recall.hybrid import RecallQuery

    user = EndUser.objects.create(bot=kb.bot, external_id="ana")
    sister = remember(kb, "Ana's sister Maya plays the cello.", end_user=user)
    remember(kb, "Ana bought a new kettle.", end_user=user)
    embed_all()
    with CaptureQueriesContext(connection) as ctx:
        hits = recall_service.recall(RecallQuery(kbs=(kb,), text="Tell me about her family", end_user_id=user.pk))
    assert "concept" in next(h for h in hits if h.id == sister.pk).signals
    counts = [q["sql"] for q in ctx.captured_queries if "count(*)" in q["sql"] and "memories_memory" in q["sql"]]
    assert max(sql.count("SELECT count(*) FROM (") for sql in counts) <= 3, "a subquery per word"
    assert any("WITH scope AS MATERIALIZED" in sql for sql in counts)
