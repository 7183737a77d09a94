"""A statement's reading is stored on its memory when it is written (what it states of an attribute, what it says
has changed), and recall compares the stored readings instead of reading every hit again."""

from __future__ import annotations

from memories.models import Memory
from tests.memories.ingest.test_restated_supersession import say


def test_a_memory_keeps_what_it_states_and_says_has_changed_read_in_its_language(api, kb):
    """An English home, a Spanish sale: each memory's reading holds its attribute or its change."""
    say(api, "I live in Porto with my partner.", "Vendimos la furgoneta en abril.")
    home = Memory.objects.get(text__contains="Porto")
    sale = Memory.objects.get(text__contains="furgoneta")
    assert home.reading["slots"] == {"residence": "porto"} and home.reading["speaker"] == "alice"
    assert sale.language == "es" and sale.reading["changes"] == [["ended", ["furgoneta"]]]


def test_the_block_compares_stored_readings_not_the_text_read_again(api, kb):
    """Two statements whose stored readings give one attribute two values: the older is shown as held earlier,
    though their texts, read again, state nothing alike (the block reads what was stored)."""
    say(api, "The garden is finally full of tulips.", when="2024-03-01T10:00:00Z")
    say(api, "The garden is all roses this year.", session="s2", when="2024-06-01T10:00:00Z")
    for memory, flower in zip(Memory.objects.order_by("id"), ["tulips", "roses"], strict=True):
        memory.reading = {**memory.reading, "slots": {"garden": flower}, "speaker": "alice"}
        memory.save(update_fields=["reading"])
    block = api.get("/api/v1/context/", params={"query": "What grows in the garden?"}).json()["context"]
    (tulips,) = [line for line in block.splitlines() if "tulips" in line]
    assert "(earlier, until 2024-06-01)" in tulips


def test_homes_said_on_the_way_are_read_in_memories_stored_before_by_the_migration(api, kb):
    """Migration 0028 reads the English, German and Portuguese memories again: "We've moved up the coast to
    Skerries", stored when no home was read in it (and, as an earlier release stored English, with no language),
    gets its residence."""
    import importlib

    from django.db import connection

    say(api, "We've moved up the coast to Skerries, the commute is grim.")
    home = Memory.objects.get(text__contains="Skerries")
    stored = {**home.reading, "slots": {}, "hints": []}
    Memory.objects.filter(pk=home.pk).update(reading=stored, language="")  # as stored before
    migration = importlib.import_module("memories.migrations.0028_homes_on_the_way_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    home.refresh_from_db()
    assert home.reading["slots"] == {"residence": "skerries"}
