"""Places (kbsite/languages/places.py): the places a text names, in any language, found as names and not as words;
asked where, recall brings the end user's latest memories that name one, and ask prefers a statement naming one,
whatever words it says it in. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from kbsite.languages.places import places_named
from memories.models import Memory
from tests.memories.recall.test_truth import ask, context, say


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
