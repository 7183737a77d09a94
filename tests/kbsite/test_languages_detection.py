"""Telling a text's language (kbsite/languages/detection.py): sure or unknown, and short turns taking their chat's."""

from __future__ import annotations

from kbsite.languages.detection import detect, detect_all


def test_chat_in_five_languages_is_told_and_a_short_or_wordless_turn_is_unknown():
    """Turns of a few words in each language read offline are told; "ok", "👍" and two words are not."""
    assert detect("me he mudado a Valencia con mi novia") == "es"
    assert detect("ich arbeite jetzt bei einer kleinen Firma in Köln") == "de"
    assert detect("je suis crevée ce soir, grosse journée") == "fr"
    assert detect("moro em Lisboa desde o ano passado") == "pt"
    assert detect("tbh idk what to cook tonight") == "en"
    assert detect("ok") == detect("👍 👍") == detect("gracias amigo!") == ""


def test_an_unknown_turn_takes_the_language_of_the_turn_before_and_the_first_that_of_the_first_known():
    """In a chat, "sí, claro" after Spanish is Spanish; a chat of none known falls back."""
    turns = ["vale!", "me he mudado a Valencia con mi novia", "sí, claro", "ich arbeite jetzt in Köln bei Siemens"]
    assert detect_all(turns) == ["es", "es", "es", "de"]
    assert detect_all(["ok", "👍"], fallback="fr") == ["fr", "fr"]
