"""The language package (kbsite/languages): the language in force, chosen at run time, and each language's
full-text configuration."""

from __future__ import annotations

import pytest
from django.db import connection

from kbsite import languages
from kbsite.languages.text import content_words


def test_the_language_in_force_is_set_for_a_block_and_restored_after():
    """override sets the language read in a block and restores the one before; None keeps it."""
    assert languages.current_code() == "en"
    with languages.override("es"):
        assert languages.current_code() == "es"
        with languages.override(None):
            assert languages.current_code() == "es"
    assert languages.current_code() == "en"


@pytest.mark.django_db
def test_a_language_without_a_package_is_read_as_the_default_and_searched_under_its_own_configuration():
    """A language PostgreSQL stems gets its configuration (with accents folded) even before it is read offline;
    others are simple, and a row of no language told is searched as the default's."""
    assert languages.get("xx") is languages.get("en")
    with connection.cursor() as cursor:
        cursor.execute("SELECT kbsite_fts_config(code)::text FROM unnest(ARRAY['es', 'de', 'ja', '', 'en']) AS code")
        configs = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT to_tsvector(kbsite_fts_config('es'), 'Me mudé a Múnich con mis gatos')::text")
        spanish = cursor.fetchone()[0]
    assert configs == ["kbsite_spanish", "kbsite_german", "kbsite_simple", "kbsite_english", "kbsite_english"]
    assert "'munich'" in spanish and "'gat'" in spanish and "'con'" not in spanish


def test_english_words_come_from_the_english_package():
    """The stop words of the text reader are English's, read from its package."""
    assert "the" in languages.get("en").words.STOPWORDS
    assert content_words("The cat sat on the mat") == ["cat", "sat", "mat"]


def test_a_speaker_name_is_a_label_of_capitalised_words_and_a_label_of_other_words_is_said():
    """One reading of the name a statement opens with, for every reader (changes, ask's words shared with a
    question): a name of up to three capitalised words; a label of other words is what was said."""
    from kbsite.languages.reading import speaker_label, speaker_name

    assert speaker_name("Ana María: Me mudé a Oviedo.") == ("Ana María", "Me mudé a Oviedo.")
    assert speaker_name("New address: 12 Park Lane") is None
    assert speaker_label("New address: 12 Park Lane") == ("New address", "12 Park Lane")
    assert speaker_name("Big news. Update: we moved") is None
    assert speaker_name("Jean Paul Marie Dupont: salut") is None
    assert speaker_name("no label here") is None


def test_a_words_lemma_is_read_in_its_language_and_a_language_of_no_lemmas_keeps_the_word():
    """simplemma's dictionaries, loaded offline from the wheel: a word's forms meet in its lemma; a language it does
    not read keeps the word as it is."""
    from kbsite.languages.lemmas import lemma
    from kbsite.languages.text import stems

    assert lemma("wohnt", "de") == lemma("gewohnt", "de") == "wohnen"
    assert lemma("cães", "pt") == "cão"
    assert stems(["lived"], "en") == stems(["live"], "en")
    assert lemma("喜欢", "zz") == "喜欢"
