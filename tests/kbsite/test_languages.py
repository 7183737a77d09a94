"""The language package (kbsite/languages): the language in force, chosen at run time, and each language's
full-text configuration."""

from __future__ import annotations

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


def test_a_language_without_a_package_is_read_as_the_default_and_searched_under_its_own_configuration():
    """A language PostgreSQL stems gets its configuration even before it is read offline; others are simple."""
    assert languages.get("xx") is languages.get("en")
    assert languages.fts_config("es") == "spanish" and languages.fts_config("de") == "german"
    assert languages.fts_config("ja") == "simple" and languages.fts_config(None) == "simple"


def test_english_words_come_from_the_english_package():
    """The stop words of the text reader are English's, read from its package."""
    assert "the" in languages.get("en").words.STOPWORDS
    assert content_words("The cat sat on the mat") == ["cat", "sat", "mat"]
