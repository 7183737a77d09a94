"""The context block a bot gets (issue 19, findings 6 and 7): the end user's profile always at the top, one entry
per thing said (with all its sources), and no memory let in by a name alone."""

from __future__ import annotations

from datetime import UTC, datetime

from kbsite.models import EndUser
from memories.models import Memory
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks
from tests.factories import InsightFactory, KnowledgeBaseFactory, MemoryFactory


def _context(api, query: str, **params) -> dict:
    response = api.get("/api/v1/context/", params={"query": query, **params})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_profile_is_always_at_the_top_and_stays_current(api, kb, bot, settings):
    alice = EndUser.objects.create(bot=bot, external_id="alice")
    allergy = MemoryFactory(
        kb=kb, end_user=alice, text="Alice is allergic to shellfish.", kind="user_profile", importance=0.9
    )
    diet = MemoryFactory(kb=kb, end_user=alice, text="Alice prefers vegetarian dishes.", kind="preference")
    MemoryFactory(kb=kb, end_user=alice, text="Alice's sister visited Lisbon in May.", kind="event")
    MemoryFactory(kb=kb, text="Bob is allergic to nuts.", kind="user_profile")  # shared, not Alice's profile
    memories_embed_missing()

    body = _context(api, "what should I cook tonight?", user_id="alice")
    text = body["context"]
    assert "### About this user" in text
    assert f"[memory {allergy.pk}]" in text and f"[memory {diet.pk}]" in text
    assert text.index("### About this user") < text.index("Alice is allergic")
    assert "Lisbon" not in text and "Bob" not in text
    # The most important first, though the diet is the newer.
    assert [h["id"] for h in body["profile"]] == [allergy.pk, diet.pk]
    assert text.index("Alice is allergic") < text.index("Alice prefers vegetarian")
    # No end user, no profile.
    assert "About this user" not in _context(api, "what should I cook tonight?")["context"]

    # Kept current: a superseded fact leaves the profile, its replacement takes its place.
    cured = MemoryFactory(kb=kb, end_user=alice, text="Alice is no longer allergic to shellfish.", kind="user_profile")
    allergy.retire(reason="superseded by a newer fact", superseded_by=cured)
    text = _context(api, "what should I cook tonight?", user_id="alice")["context"]
    assert f"[memory {allergy.pk}]" not in text and f"[memory {cured.pk}]" in text

    # Its size is a setting.
    settings.PROFILE_CHARS = len("Alice is no longer allergic to shellfish.")
    profile = _context(api, "what should I cook tonight?", user_id="alice")["profile"]
    assert len(profile) == 1


def test_offline_extraction_files_allergies_and_diets_under_the_profile(api, kb):
    turns = [
        {"external_id": "t1", "speaker": "Alice", "content": "I'm allergic to shellfish, sadly."},
        {"external_id": "t2", "speaker": "Alice", "content": "We went to the harbour market on Sunday morning."},
    ]
    api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "user_id": "alice", "messages": turns})
    run_queued_tasks()
    kinds = dict(Memory.objects.values_list("text", "kind"))
    assert kinds["Alice: I'm allergic to shellfish, sadly."] == "user_profile"
    text = _context(api, "any dinner ideas?", user_id="alice")["context"]
    assert "allergic to shellfish" in text and "harbour" not in text


def test_the_profile_holds_who_one_is_not_how_one_feels_today(api, kb):
    """Offline, "About this user" is what the user states of themselves (their work, their home, a state of life
    such as being retired, in any language it reads), not every sentence that says "I'm" ("I'm wiped out today",
    "I'm on a roll"), nor one that asks ("Remind me what I'm allergic to?")."""
    said = {
        "t1": "I'm wiped out today, barely slept.",
        "t2": "Ok i'm on a roll now lol",
        "t3": "Remind me what I'm allergic to? filling in a form at the dentist",
        "t4": "I'm a joiner, mostly kitchens.",
        "t5": "I'm retired now, since the spring.",
        "t6": "We bought a house in Leith last week!",
    }
    turns = [{"external_id": ref, "speaker": "Ewan", "content": text} for ref, text in said.items()]
    api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "user_id": "ewan", "messages": turns})
    run_queued_tasks()
    kinds = {text.removeprefix("Ewan: "): kind for text, kind in Memory.objects.values_list("text", "kind")}
    assert {text for text, kind in kinds.items() if kind == "user_profile"} == {said["t4"], said["t5"], said["t6"]}
    profile = _context(api, "anything new?", user_id="ewan")["context"].split("### About this user")[1]
    assert "joiner" in profile and "wiped out" not in profile.split("###")[0]


def test_one_fact_from_two_kbs_and_a_document_is_one_entry_with_its_sources(api, kb, bot):
    work = KnowledgeBaseFactory(bot=bot, name="work")
    a = MemoryFactory(kb=kb, text="Alice is allergic to shellfish.")
    b = MemoryFactory(kb=work, text="Alice is allergic to shellfish!")
    doc = api.request(
        "PUT",
        "/api/v1/kbs/notes/documents/allergies/",
        json={"content": "# Allergies\n\nAlice is allergic to shellfish.\n"},
    )
    assert doc.status_code == 201, doc.text
    run_queued_tasks()
    memories_embed_missing()
    text = _context(api, "Is Alice allergic to shellfish?")["context"]
    assert text.count("allergic to shellfish") == 1, text
    line = next(line for line in text.splitlines() if "allergic to shellfish" in line)
    assert f"memory {a.pk}" in line and f"memory {b.pk}" in line and "doc allergies#0" in line


def test_an_entry_that_holds_an_earlier_one_and_says_more_is_kept(api, kb):
    """Only what says the same is folded into an earlier entry: an insight that holds a memory's words and goes on
    with more (where Alice moved next) keeps its place."""
    lisbon = MemoryFactory(kb=kb, text="Alice moved to Lisbon in May.", entities=["alice", "lisbon"])
    insight = InsightFactory(kb=kb, text="Alice moved to Lisbon in May, then moved on to Porto in November.")
    insight.memories.set([lisbon])
    memories_embed_missing()
    text = _context(api, "Where did Alice move to?")["context"]
    assert f"[memory {lisbon.pk}] " in text and f"[insight {insight.pk}] " in text, text


def test_an_insight_shows_the_days_its_memories_were_said(api, kb):
    """An insight quotes its memories, and one may be what held before a change: it shows the days they were said,
    first to last, as a memory shows its own day."""
    said = [datetime(2024, 1, 2, tzinfo=UTC), datetime(2024, 6, 2, tzinfo=UTC)]
    cello = MemoryFactory(kb=kb, text="Alice took up the cello.", valid_from=said[0])
    orchestra = MemoryFactory(kb=kb, text="Alice joined an amateur orchestra as a cellist.", valid_from=said[1])
    insight = InsightFactory(kb=kb, text="Alice's cello lessons led her to an orchestra.")
    insight.memories.set([cello, orchestra])
    alone = InsightFactory(kb=kb, text="Alice practises the cello most evenings.")
    alone.memories.set([cello])
    memories_embed_missing()
    text = _context(api, "What instrument does Alice play?")["context"]
    assert f"[insight {insight.pk}] (2024-01-02 – 2024-06-02) Alice's cello lessons" in text, text
    assert f"[insight {alone.pk}] (2024-01-02) Alice practises" in text, text


def test_a_match_on_a_name_alone_does_not_let_a_memory_in(api, kb):
    home = MemoryFactory(kb=kb, text="Alice lives in Paris.", entities=["alice", "paris"])
    taxes = MemoryFactory(kb=kb, text="Alice: the quarterly tax report is due in March.", entities=["alice"])
    memories_embed_missing()
    body = _context(api, "Where does Alice live?")
    ids = [h["id"] for h in body["memories"]]
    assert home.pk in ids and taxes.pk not in ids
    # A word of the question that is not a name still lets it in.
    assert taxes.pk in [h["id"] for h in _context(api, "When is Alice's tax report due?")["memories"]]


def test_operators_see_the_profile_on_the_users_page(admin_client, kb, bot):
    alice = EndUser.objects.create(bot=bot, external_id="alice")
    allergy = MemoryFactory(kb=kb, end_user=alice, text="Alice is allergic to shellfish.", kind="user_profile")
    MemoryFactory(kb=kb, end_user=alice, text="Alice went to Lisbon.", kind="event")
    page = admin_client.get(f"/admin/kbsite/enduser/{alice.pk}/change/").content.decode()
    assert "Alice is allergic to shellfish." in page and f"/admin/memories/memory/{allergy.pk}/change/" in page
    assert "Alice went to Lisbon." not in page


def test_the_block_reads_a_question_once_in_its_own_language(api, kb, monkeypatch):
    """A Spanish question about a relative ("¿A qué se dedica mi hermana?") lets in the fact that names her (Lucía);
    the question is read once for recall and the block's filter (issue 40: parsed once), so the user's facts are
    searched for her name once: it was twice, once by recall and again, after it, by the block's filter."""
    from memories.recall import relatives

    turns = [
        "Mi hermana se llama Lucía y vive en Valencia.",
        "Lucía trabaja de dentista en una clínica del centro.",
        "Hoy ha llovido toda la tarde y no he salido de casa.",
    ]
    messages = [{"external_id": f"t{n}", "role": "user", "content": t} for n, t in enumerate(turns)]
    response = api.post(
        "/api/v1/kbs/notes/messages/", json={"session_id": "s1", "user_id": "marta", "messages": messages}
    )
    assert response.status_code == 202, response.text
    run_queued_tasks()
    searched = []
    named = relatives.relatives_named
    monkeypatch.setattr(relatives, "relatives_named", lambda *args: searched.append(args) or named(*args))
    block = _context(api, "¿A qué se dedica mi hermana?", user_id="marta")["context"]
    assert "dentista" in block, block
    assert len(searched) == 1, searched
