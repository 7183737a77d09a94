"""Places (kbsite/languages/places.py): the places a text names, in any language, found as names and not as words;
asked where, recall brings the end user's latest memories that name one, and ask prefers a statement naming one,
whatever words it says it in. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from kbsite.languages.places import places_named
from kbsite.languages.reading import reading_of
from memories.models import Memory
from tests.memories.ingest.test_restated_supersession import say as say_named
from tests.memories.recall.test_truth import ask, context, say


def say_as(api, session: str, when: str, *texts: str) -> None:
    """``texts`` said by alice on the day ``when``, her bot naming her Ella Preston."""
    say_named(api, *texts, speaker="Ella Preston", session=session, user="alice", when=f"{when}T10:00:00Z")


@pytest.mark.parametrize(
    ("code", "text", "places"),
    [
        ("en", "We drove down to Porto for the weekend and ate too much.", ["Porto"]),
        ("en", "took the night train to mumbai, zero sleep", ["mumbai"]),  # a big city, in lower case
        ("en", "Nice idea, we can split it.", []),  # words, not the towns Nice and Split
        ("en", "Reading is what I do on Sundays.", []),  # at a sentence's start: a word
        ("en", "My cousin Florence lives in New York.", ["Florence", "New York"]),  # names, as written
        ("es", "Nos mudamos a Sevilla en primavera.", ["Sevilla"]),
        ("de", "Wir wohnen jetzt in München, direkt am Park.", ["München"]),
        ("fr", "On a enfin déménagé à Lyon !", ["Lyon"]),
        ("en", "The dog is called Mochi and the cat Biscuit.", []),
    ],
)
def test_the_places_a_text_names_and_only_those(code, text, places):
    with languages.override(code):
        assert places_named(text) == places


SMALL_TALK = [
    "The toast burnt again this morning.",
    "It rained all day so I stayed in with a film.",
    "Finally tidied the cupboard under the stairs.",
    "My neighbour plays the drums on Sunday mornings.",
    "We bought strawberries at the market on Saturday.",
    "I can't decide between the blue mug and the green one.",
    "The printer jammed twice before lunch.",
    "I watched three episodes of that baking show.",
]


def test_asked_where_ask_answers_with_the_statement_that_names_a_place(api, notes):
    """ "Where does alice live?" shares no word with "Walked along the river in Leipzig after work again": naming a
    place, asked where, it is the answer (before, ask quoted small talk)."""
    say(api, "s1", *SMALL_TALK[:4], "Walked along the river in Leipzig after work again, my favourite hour.")
    say(api, "s2", *SMALL_TALK[4:])
    assert "Leipzig" in ask(api, "Where does alice live?")["answer"]


def test_asked_where_the_block_brings_the_users_latest_memories_that_name_a_place(api, notes, settings):
    """A place found by no word of the question nor by meaning: asked where, recall's place list brings the end
    user's latest memories naming one into the block; asked anything else, it does not."""
    say(api, "s1", *SMALL_TALK[:4], "the commute from Bremen takes ages with all the roadworks")
    say(api, "s2", *SMALL_TALK[4:])
    memory = Memory.objects.get(text__contains="Bremen")
    assert memory.reading["places"] == ["Bremen"]
    assert "Bremen" in context(api, "Where is alice based these days?")
    assert "Bremen" not in context(api, "What does alice like to eat?")


def test_memories_read_before_readings_held_places_get_theirs_from_the_migration(api, notes):
    """Migration 0020 fills the places of every stored reading written before readings held them."""
    import importlib

    from django.db import connection

    say(api, "s1", "We finally moved to Bremen last spring.", *SMALL_TALK[:2])
    with connection.cursor() as cursor:
        cursor.execute("UPDATE memories_memory SET reading = reading - 'places'")
    assert not any("places" in m.reading for m in Memory.objects.all())
    migration = importlib.import_module("memories.migrations.0020_reading_places")
    with connection.schema_editor() as editor:
        migration.places_add(None, editor)
    readings = {m.text: m.reading for m in Memory.objects.all()}
    assert readings["We finally moved to Bremen last spring."]["places"] == ["Bremen"]
    assert all(r["places"] == [] for text, r in readings.items() if "Bremen" not in text)


@pytest.mark.parametrize(
    ("code", "text", "places"),
    [
        ("en", "Ella Preston: The printer jammed twice before lunch.", []),  # Preston, the town, is her name
        ("en", "Ella Preston: We finally moved to Leeds.", ["Leeds"]),
        ("en", "Ella Preston moved to Leeds.", ["Leeds"]),  # an LLM's fact, in the third person
        ("es", "Sofía: Mañana vuelvo a Sevilla.", ["Sevilla"]),  # Sofía, the city, is her name
        # Said as a place, her name's town is one.
        ("en", "Ella Preston: I grew up in Preston and moved to Leeds.", ["Preston", "Leeds"]),
        ("en", "Sofia: I was born in Sofia.", ["Sofia"]),
    ],
)
def test_the_name_of_whom_a_statement_is_said_by_is_no_place_it_names(code, text, places):
    with languages.override(code):
        assert reading_of(text)["places"] == places


def test_asked_where_a_user_named_like_a_town_is_answered_by_the_place_she_names(api, notes):
    """Every statement of Ella Preston opens with her name, and Preston is a town: each counted as naming a place,
    so asked where, ask quoted her latest small talk (seen on a set read at stop 69, with another town's name)."""
    say_as(api, "s1", "2024-03-01", "Walked along the river in Leipzig after work again, my favourite hour.")
    say_as(api, "s2", "2024-04-01", *SMALL_TALK)
    assert "Leipzig" in ask(api, "Where does Ella live?")["answer"]
    assert not Memory.objects.get(text__contains="printer jammed").reading["places"]


def test_readings_that_took_a_speakers_name_for_a_place_lose_it_in_the_migration(api, notes):
    """Migration 0027 reads again the places of readings stored before: the speaker's name goes, a place stays."""
    import importlib

    from django.db import connection

    say_as(api, "s1", "2024-03-01", "We finally moved to Leeds.", "The printer jammed twice before lunch.")
    with connection.cursor() as cursor:
        cursor.execute(
            """UPDATE memories_memory
               SET reading = jsonb_set(reading, '{places}', reading -> 'places' || '["Preston"]'::jsonb)"""
        )
    migration = importlib.import_module("memories.migrations.0027_places_without_speaker")
    with connection.schema_editor() as editor:
        migration.places_again(None, editor)
    places = {m.text.split(": ", 1)[-1]: m.reading["places"] for m in Memory.objects.all()}
    assert places == {"We finally moved to Leeds.": ["Leeds"], "The printer jammed twice before lunch.": []}
