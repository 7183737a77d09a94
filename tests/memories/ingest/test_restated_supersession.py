"""Supersession of restated attributes: a person restating a one-valued attribute (where they live or work, their
age, a favourite, whether they like a thing) retires their earlier statement of it, offline (the only way there) and
with an LLM (what the model did not name); nothing else is retired, and facts that only look alike are both kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbsite import languages
from kbsite.models import JobRun
from memories.ingest.statements import one_each, statement
from memories.ingest.supersession import SUPERSEDED
from memories.models import Memory, ReviewItem
from tests.conftest import run_queued_tasks
from tests.memories.ingest.test_ingest_llm import add, post_turns


def say(api, *texts, speaker="Alice", session="s1", when="2024-03-01T10:00:00Z", user=None, start=0):
    messages = [
        {"external_id": f"{session}-{start + i}", "speaker": speaker, "content": text, "created_at": when}
        for i, text in enumerate(texts)
    ]
    body = {"session_id": session, "messages": messages, **({"user_id": user} if user else {})}
    response = api.post("/api/v1/kbs/notes/messages/", json=body)
    assert response.status_code == 202, response.text
    run_queued_tasks()


def live() -> set[str]:
    return set(Memory.objects.live().values_list("text", flat=True))


def test_a_restated_home_retires_the_old_one_dated_and_linked(api, kb):
    say(api, "I live in Berlin.", when="2023-01-10T09:00:00Z")
    say(api, "I moved to Munich last month!", session="s2", when="2024-03-01T10:00:00Z")
    berlin = Memory.objects.get(text="Alice: I live in Berlin.")
    munich = Memory.objects.get(text="Alice: I moved to Munich last month!")
    assert berlin.retired_at is not None and berlin.superseded_by == munich
    assert berlin.retired_reason == f"{SUPERSEDED} (restated: residence)"
    assert berlin.valid_to == datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
    assert munich.retired_at is None
    assert JobRun.objects.order_by("id").last().facts_superseded == 1
    context = api.get("/api/v1/context/", params={"query": "Where does Alice live?"}).json()["context"]
    assert "Munich" in context and "Berlin" not in context
    # The retired statement is kept, and said to be replaced, in the memory's history.
    history = api.get(f"/api/v1/kbs/notes/memories/{munich.pk}/history/").json()
    assert [version["id"] for version in history] == [berlin.pk, munich.pk]


@pytest.mark.parametrize(
    "old, new",
    [
        ("I work at Google.", "I'm working for Microsoft now."),
        ("I am 31 years old.", "I am 32 years old."),
        ("My favourite colour is blue.", "My favorite color is green now."),
        ("I love sushi.", "I don't like sushi anymore."),
        ("I stopped playing guitar.", "I love playing guitar again."),
        ("My birthday is May 3.", "My birthday is June 9."),
        ("I live in Lisbon.", "We moved from Lisbon to Porto in November."),
        # Chat leaves the "I" out.
        ("I work at Google.", "Got a job at Boots last week."),
        ("I work as a nurse.", "Work as a paramedic now."),
    ],
)
def test_restated_attributes_replace_the_earlier_statement(api, kb, old, new):
    """One batch or two: the earlier statement is retired, the newer one kept (the age is not taken for a
    near-duplicate of the old one, though the two are 0.98 similar)."""
    say(api, old, new)
    assert live() == {f"Alice: {new}"}
    assert Memory.objects.get(text=f"Alice: {old}").superseded_by.text == f"Alice: {new}"


@pytest.mark.parametrize(
    "old, new",
    [
        # Not the same attribute, or not a plain statement of it.
        ("I live in Berlin.", "Do you live in Munich?"),
        ("I live in Berlin.", "If I moved to Munich I would miss my friends."),
        ("I love sushi.", "I don't like sushi for breakfast."),
        ("I love sushi.", "I love ramen."),
        ("I live in Berlin.", "My sister lives in Munich."),
        # The same value, said again.
        ("I live in New York.", "I live in New York City now."),
        # The old fact says more than the attribute restated: it is kept.
        ("I moved to Berlin with my whole family.", "I moved to Munich."),
    ],
)
def test_what_is_not_a_restatement_retires_nothing(api, kb, old, new):
    say(api, old, new)
    assert f"Alice: {old}" in live()
    assert not Memory.objects.filter(retired_at__isnull=False).exists()


def test_a_turn_is_stored_as_its_statements_so_a_move_keeps_the_allergy(api, kb):
    """Offline, a turn that says two things is two memories citing the turn: the one the user restates is retired,
    the other stays live (before, the whole turn was one memory, kept whole or retired whole)."""
    say(api, "I moved to Lisbon in May. I am allergic to peanuts, and I have two cats.", "Big news: I moved to Berlin!")
    assert live() == {"Alice: I am allergic to peanuts", "Alice: I have two cats.", "Alice: I moved to Berlin!"}
    lisbon = Memory.objects.get(text="Alice: I moved to Lisbon in May.")
    assert lisbon.retired_reason == f"{SUPERSEDED} (restated: residence)"
    allergy = Memory.objects.get(text__contains="peanuts")
    assert list(allergy.source_messages.values_list("external_id", flat=True)) == ["s1-0"]
    assert list(lisbon.source_messages.values_list("external_id", flat=True)) == ["s1-0"]


def test_a_sentence_stating_two_attributes_is_two_memories_so_a_move_keeps_the_name(api, kb):
    """ "My name is Dev and I live in Norwich" states a name and a home: offline it is two memories of the turn, so
    the move to Exeter retires the home and the name stays live (before, "My name is Dev and" was read as a
    companion's, "my boyfriend Hugo and I…": the sentence stayed one memory, and what the move did to it, it did to
    the name).
    "I live in Norwich, England" states one thing and stays whole."""
    say(api, "My name is Dev and I live in Norwich.", "I live in Norwich, England, near the river.")
    assert live() == {
        "Alice: My name is Dev",
        "Alice: I live in Norwich.",
        "Alice: I live in Norwich, England, near the river.",
    }
    say(api, "We moved to Exeter last week.", session="s2", when="2024-09-01T10:00:00Z")
    assert "Alice: My name is Dev" in live() and "Alice: I live in Norwich." not in live()
    name, home = Memory.objects.get(text="Alice: My name is Dev"), Memory.objects.get(text="Alice: I live in Norwich.")
    assert list(name.source_messages.values_list("external_id", flat=True)) == ["s1-0"]
    assert home.retired_reason == f"{SUPERSEDED} (restated: residence)"


def test_a_job_said_after_a_home_with_the_same_i_is_read_and_kept_apart_from_it(api, kb):
    """ "I live in Bath and work as a midwife at Royal United Hospital": the job goes on with the same "I" (before,
    only the home was read, and it stayed one memory), so it is a memory of its own, and "I work as a paramedic now"
    opens a review item on it alone: the home is no side of it."""
    say(api, "I live in Bath and work as a midwife at Royal United Hospital.")
    assert live() == {"Alice: I live in Bath", "Alice: Work as a midwife at Royal United Hospital."}
    job = Memory.objects.get(text__contains="midwife")
    assert job.reading["slots"] == {"occupation": "midwife", "employer": "royal united hospital"}
    say(api, "I work as a paramedic now.", session="s2", when="2024-09-01T10:00:00Z")
    (item,) = ReviewItem.objects.all()
    assert item.attribute == "occupation" and item.older == job


def test_what_an_earlier_release_read_nothing_in_is_read_again_by_the_migration(api, kb):
    """Migration 0023 reads again the offline facts of users' English turns: "Got a job at Boots last week." was read
    as stating nothing (chat leaves the "I" out); a reading that does not change is left as it is."""
    import importlib

    from django.db import connection

    say(api, "I live in Lisbon, near the river.", "Got a job at Boots last week.")
    moved, home = Memory.objects.get(text__contains="Boots"), Memory.objects.get(text__contains="Lisbon")
    released = {**moved.reading, "slots": {}, "whole": False, "hints": []}
    Memory.objects.filter(pk=moved.pk).update(reading=released)  # as the release before read it
    migration = importlib.import_module("memories.migrations.0023_english_subject_dropped_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    moved.refresh_from_db()
    assert moved.reading["slots"] == {"employer": "boots"}
    assert Memory.objects.get(pk=home.pk).reading == home.reading


def test_what_an_earlier_release_read_as_leaving_a_job_is_read_again_by_the_migration(api, kb):
    """Migration 0024 reads again the memories read as stating an attribute: "I quit smoking in March" was read as no
    longer working at "smoking"; leaving a job stays read as it was."""
    import importlib

    from django.db import connection

    say(api, "I quit smoking in March, day 40 without a cigarette.", "I quit my job at Ocado in June.")
    habit, job = Memory.objects.get(text__contains="smoking"), Memory.objects.get(text__contains="Ocado")
    assert job.reading["slots"] == {"employer": "not ocado"}
    Memory.objects.filter(pk=habit.pk).update(reading={**habit.reading, "slots": {"employer": "not smoking"}})
    migration = importlib.import_module("memories.migrations.0024_attributes_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    assert Memory.objects.get(pk=habit.pk).reading == habit.reading
    assert Memory.objects.get(pk=job.pk).reading == job.reading


def test_a_home_rented_then_a_new_one_named_mid_sentence_is_a_move_and_the_migration_reads_it(api, kb):
    """ "We rent a flat in Chorlton" is where one lives; months later "…from the window of our new house in Sale we
    can see…" is a move: the block shows the rented flat as earlier (it says more than the home: not retired).
    Migration 0025 reads an earlier release's memory of it again (that release read no home in it)."""
    import importlib

    from django.db import connection

    say(api, "We rent a flat in Chorlton, so no drilling please.", when="2024-01-10T09:00:00Z")
    rented = Memory.objects.get(text__contains="Chorlton")
    assert rented.reading["slots"] == {"residence": "chorlton"}
    Memory.objects.filter(pk=rented.pk).update(reading={**rented.reading, "slots": {}})
    migration = importlib.import_module("memories.migrations.0025_homes_and_starts_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    assert Memory.objects.get(pk=rented.pk).reading == rented.reading
    say(
        api,
        "Boxes everywhere, but from the window of our new house in Sale we can see the canal.",
        session="s2",
        when="2024-09-01T10:00:00Z",
    )
    context = api.get("/api/v1/context/", params={"query": "Where does Alice live?"}).json()["context"]
    (flat,) = [line for line in context.splitlines() if "Chorlton" in line]
    assert "earlier, until 2024-09-01" in flat


def test_dropping_the_kids_at_school_leaves_what_was_said_of_them_current(api, kb):
    """ "I dropped the kids at school." ends nothing: the block showed "My kids Mia and Leo are 5 and 7." as earlier."""
    say(api, "My kids Mia and Leo are 5 and 7.", when="2023-01-10T09:00:00Z")
    say(api, "I dropped the kids at school.", session="s2", when="2024-03-01T10:00:00Z")
    context = api.get("/api/v1/context/", params={"query": "What are Alice's kids called?"}).json()["context"]
    (kids,) = [line for line in context.splitlines() if "Mia and Leo" in line]
    assert "earlier" not in kids and "(2023-01-10)" in kids


def test_another_speaker_or_another_user_retires_nothing(api, kb):
    say(api, "I live in Berlin.", user="u-1")
    say(api, "I live in Munich.", speaker="Bob", session="s2", user="u-1")
    say(api, "I live in Rome.", session="s3", user="u-2")
    assert live() == {"Alice: I live in Berlin.", "Bob: I live in Munich.", "Alice: I live in Rome."}


def test_an_older_statement_imported_late_is_retired_itself(api, kb):
    """Valid time decides: last year's "I live in Berlin", posted after this year's "I live in Munich", is the one
    replaced, its validity ending where Munich's began."""
    say(api, "I live in Munich.", session="new", when="2024-06-01T08:00:00Z")
    say(api, "I live in Berlin.", session="old", when="2023-02-01T08:00:00Z")
    berlin = Memory.objects.get(text="Alice: I live in Berlin.")
    assert live() == {"Alice: I live in Munich."}
    assert berlin.superseded_by.text == "Alice: I live in Munich."
    assert berlin.valid_to == datetime(2024, 6, 1, 8, 0, tzinfo=UTC)


def test_a_restored_statement_comes_back_and_retires_its_replacement(api, kb):
    """An operator who disagrees restores the old statement; it is live again and its replacement retired."""
    say(api, "I live in Berlin.", "I live in Munich.")
    berlin = Memory.objects.get(text="Alice: I live in Berlin.")
    assert api.post(f"/api/v1/kbs/notes/memories/{berlin.pk}/restore/").status_code == 200
    assert live() == {"Alice: I live in Berlin."}


def test_statements_are_read_whole_or_not_at_all():
    assert statement("Alice: I'm now living in Paris, France.").slots == {"residence": "paris"}
    assert statement("Alice: I'm now living in Paris, France.").whole
    assert statement("Alice: I love painting, it's so relaxing.").whole is False
    assert statement("Alice: I love you so much!").slots == {}
    assert statement("I work as a nurse.").speaker == "" and statement("I work as a nurse.").slots == {
        "occupation": "nurse"
    }


@pytest.mark.parametrize(
    "language,text,parts",
    [
        ("en", "I'm 34, I live in Leeds and I work at Acme.", ["I'm 34", "I live in Leeds", "I work at Acme."]),
        ("es", "Vivo en Cádiz y trabajo en el puerto.", ["Vivo en Cádiz", "Trabajo en el puerto."]),
        ("pt", "Me chamo Rita e moro em Braga.", ["Me chamo Rita", "Moro em Braga."]),
        ("de", "Ich heiße Jana und wohne in Leipzig.", ["Ich heiße Jana", "Wohne in Leipzig."]),
        # A short part is cut too: it states an attribute, so it is kept however few its words.
        ("en", "I am Tom, 71, living in Hull.", ["I am Tom, 71", "Living in Hull."]),
        # One attribute, said with more: whole.
        ("en", "I live in Paris, France.", ["I live in Paris, France."]),
        ("en", "My sister Ana and I live in Leeds.", ["My sister Ana and I live in Leeds."]),
        # No reader of French statements (yet): nothing tells what each clause states, so whole.
        ("fr", "Je m'appelle Jeanne et j'habite à Lyon.", ["Je m'appelle Jeanne et j'habite à Lyon."]),
    ],
)
def test_a_statement_is_cut_where_a_clause_states_an_attribute_of_its_own(language, text, parts):
    with languages.override(language):
        assert one_each(text, own=True) == parts


# --- With an LLM: the same reading catches what the model did not name -------------------------------------------


def test_with_an_llm_a_restatement_it_did_not_name_is_retired_too(api, kb, fake_llm):
    """The model adds "Alice moved to Munich" but names nothing to supersede: her Berlin is retired all the same;
    a fact about another person, or one that says more, is not."""
    fake_llm.reply_json(add("Alice lives in Berlin.", "Bob lives in Hamburg.", "Alice works at BMW as an engineer."))
    post_turns(api, [("m1", "I live in Berlin, I work at BMW as an engineer, Bob lives in Hamburg.")])
    run_queued_tasks()
    fake_llm.reply_json(add("Alice moved to Munich in March 2024.", "Alice works at Siemens."))
    post_turns(api, [("m2", "I moved to Munich in March and I work at Siemens now.")], session="s2")
    run_queued_tasks()
    assert live() == {
        "Bob lives in Hamburg.",
        "Alice works at BMW as an engineer.",
        "Alice moved to Munich in March 2024.",
        "Alice works at Siemens.",
    }
    berlin = Memory.objects.get(text="Alice lives in Berlin.")
    assert berlin.superseded_by.text == "Alice moved to Munich in March 2024."


def test_an_offline_statement_is_replaced_by_a_later_llm_fact(api, kb, settings, fake_llm):
    """A KB that ran offline, then with an LLM: the model's fact about Alice replaces her own earlier words."""
    llm_url = settings.LLM_BASE_URL
    settings.LLM_BASE_URL = ""
    say(api, "My favourite colour is blue.")
    assert Memory.objects.get().mode == "heuristic"
    settings.LLM_BASE_URL = llm_url
    fake_llm.reply_json(add("Alice's favourite color is green."))
    post_turns(api, [("m9", "Green is my favourite colour now.")], session="s2")
    run_queued_tasks()
    assert live() == {"Alice's favourite color is green."}
