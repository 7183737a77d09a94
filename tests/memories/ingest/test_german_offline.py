"""A German user's memory offline, end to end, posted as the README posts (``user_id`` only): a move and a new job
each open a review item, the block shows the old values as what held until then, and ask answers with the new home.
Sentences of our own."""

from __future__ import annotations

import pytest

from memories.models import ReviewItem
from tests.memories.recall.test_truth import say


def test_a_german_move_and_a_new_job_are_read_as_changes(api, kb):
    """Before German statements were read, "Im Sommer sind wir nach Kassel umgezogen." changed nothing: Rostock
    stayed current in the block and ask answered with it."""
    say(api, "s1", "Hallo, ich heiße Greta und wohne in Rostock.", "Ich arbeite bei der Telekom.", user="greta",
        when="2024-03-01T10:00:00Z")  # fmt: skip
    say(api, "s2", "Es hat den ganzen Tag geregnet, ich habe Serien geschaut.", user="greta",
        when="2024-03-02T10:00:00Z")  # fmt: skip
    say(api, "s3", "Im Sommer sind wir nach Kassel umgezogen.", "Seit August arbeite ich bei Wintershall.",
        user="greta", when="2024-09-01T10:00:00Z")  # fmt: skip
    assert {"residence", "employer"} <= set(ReviewItem.objects.values_list("attribute", flat=True))
    block = api.get("/api/v1/context/", params={"query": "Wo wohnt sie jetzt?", "user_id": "greta"}).json()["context"]
    assert all("(earlier, until 2024-09-01)" in line for line in block.splitlines() if "Rostock" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Wo wohnt Greta jetzt?", "user_id": "greta"}).json()
    assert "Kassel" in answer["answer"].splitlines()[0]


def test_german_memories_stored_before_get_their_reading_from_the_migration(api, kb):
    """Migration 0026 reads every German memory again: those stored before German had a reader of statements get
    the attributes they state."""
    import importlib

    from django.db import connection

    from memories.models import Memory

    say(api, "s1", "Ich wohne seit 2019 in Rostock.", user="greta", when="2024-03-01T10:00:00Z")
    home = Memory.objects.get(text__contains="Rostock")
    released = {"speaker": "", "slots": {}, "whole": False, "hints": [], "changes": [], "places": ["Rostock"]}
    Memory.objects.filter(pk=home.pk).update(reading=released)  # as the release before read it
    migration = importlib.import_module("memories.migrations.0026_german_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    home.refresh_from_db()
    assert home.reading["slots"] == {"residence": "rostock"}


def test_a_new_home_of_ones_own_named_in_passing_is_a_move(api, kb):
    """ "Vom Balkon unserer neuen Wohnung in Kassel sieht man den Herkules": where she lives now, said in passing,
    as English ("my new flat in Hove") and Spanish ("mi piso nuevo en Gijón") are read; Rostock becomes what held
    until then, and ask answers with Kassel."""
    say(api, "s1", "Ich wohne in Rostock.", user="greta", when="2024-03-01T10:00:00Z")
    say(api, "s2", "Vom Balkon unserer neuen Wohnung in Kassel sieht man den Herkules.", user="greta",
        when="2024-09-01T10:00:00Z")  # fmt: skip
    assert "residence" in set(ReviewItem.objects.values_list("attribute", flat=True))
    block = api.get("/api/v1/context/", params={"query": "Wo wohnt sie jetzt?", "user_id": "greta"}).json()["context"]
    assert all("(earlier, until 2024-09-01)" in line for line in block.splitlines() if "Rostock" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Wo wohnt Greta jetzt?", "user_id": "greta"}).json()
    assert "Kassel" in answer["answer"].splitlines()[0]


@pytest.mark.parametrize(
    "text",
    [
        "Unsere neue Wohnung in der Nähe vom Park ist leider laut.",
        "Mein neuer Hausarzt in Pankow ist sehr nett.",
        "Unsere neue Ferienwohnung in Kroatien war ein Traum.",
        "Meine neue Wohnung im dritten Stock hat keinen Aufzug.",
    ],
)
def test_a_new_home_named_by_no_place_or_no_home_is_no_move(text):
    """An article or a floor after "in", a doctor, a holiday flat: none says where one lives."""
    from memories.ingest.statements import statement_read

    assert "residence" not in statement_read(f"Greta: {text}", "de", None).slots


def test_two_words_of_a_place_only_where_the_first_is_said_of_it():
    """ "Prenzlauer Berg", "Bad Homburg" are one place; in "in Kassel Freunde zu Gast" the next noun is no part of it
    (every German noun has a capital)."""
    from memories.ingest.statements import statement_read

    def home(text: str) -> str:
        return statement_read(f"Greta: {text}", "de", None).slots["residence"]

    assert home("Meine neue Wohnung in Prenzlauer Berg hat Dielen.") == "prenzlauer berg"
    assert home("Unser neues Haus in Bad Homburg ist fertig.") == "bad homburg"
    assert home("In unserer neuen Wohnung in Kassel Freunde zu Gast gehabt.") == "kassel"
