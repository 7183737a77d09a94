"""German, French and Portuguese read offline as far as their words go (kbsite/languages/de, fr, pt): small talk
says nothing, a short fact is kept, a question's period and subjects are read, a relative is found by name.
Statements and changes they do not read yet. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.statements import statement
from memories.recall.concepts import concept_words, slots_asked
from memories.recall.query import query_period
from memories.text import content_words, is_salient


@pytest.mark.parametrize(
    ("code", "small_talk", "fact", "words"),
    [
        ("de", "ok danke dir!", "ich bin Vegetarierin", ["wohne", "köln", "freundin"]),
        ("fr", "ok merci beaucoup !", "je suis végétarienne", ["habite", "lyon", "copine"]),
        ("pt", "ok obrigada!", "sou vegetariana", ["moro", "porto", "namorada"]),
    ],
)
def test_small_talk_says_nothing_a_short_fact_is_kept_and_function_words_are_left_out(code, small_talk, fact, words):
    """Each language's own stop and chat words: thanks are skipped, "I am vegetarian" is kept, and a sentence's
    content words are its names and nouns."""
    sentence = {
        "de": "Ich wohne jetzt mit meiner Freundin in Köln",
        "fr": "J'habite maintenant à Lyon avec ma copine",
        "pt": "Agora moro no Porto com a minha namorada",
    }[code]
    with languages.override(code):
        assert not is_salient(small_talk)
        assert is_salient(fact)
        assert set(words) <= set(content_words(sentence))
        assert not {"ich", "mit", "meiner", "in", "j'", "à", "avec", "ma", "no", "com", "a", "minha"} & set(
            content_words(sentence)
        )


@pytest.mark.parametrize(
    ("code", "question"),
    [("de", "Welches Hobby hat sie im Moment?"), ("de", "Was macht er gerade beruflich?"),
     ("fr", "Qu'est-ce qu'il fait ces temps-ci ?"), ("pt", "Onde trabalha de momento?")],
)  # fmt: skip
def test_a_question_asks_how_things_stand_now_in_its_own_words(code, question):
    """ "Im Moment", "gerade", "ces temps-ci", "de momento": the question asks how things stand now, and ask prefers
    what was said last."""
    with languages.override(code):
        assert languages.current().words.NOW.search(question)


@pytest.mark.parametrize(
    ("code", "before", "now"),
    [("en", "Which bank did he work for before the move?", "Which bank does he work for?"),
     ("es", "¿En qué banco trabajaba antes de mudarse?", "¿En qué banco trabaja?"),
     ("de", "Bei welcher Bank war er vorher?", "Bei welcher Bank ist er?"),
     ("fr", "Dans quelle banque travaillait-il auparavant ?", "Dans quelle banque travaille-t-il ?"),
     ("pt", "Em que banco ele trabalhava antes?", "Em que banco ele trabalha?")],
)  # fmt: skip
def test_a_question_asks_how_things_were_before_in_its_own_words(code, before, now):
    """ "before", "antes", "vorher", "auparavant": the question asks how things were before a change, and ask quotes
    what was said before of the same thing; one that does not ask so is not read as asking it."""
    with languages.override(code):
        assert languages.current().words.BEFORE.search(before)
        assert not languages.current().words.BEFORE.search(now)


@pytest.mark.parametrize(
    ("code", "question", "month"),
    [("de", "Was war am 3. März 2024?", 3), ("fr", "Que s'est-il passé le 3 mars 2024 ?", 3),
     ("pt", "O que houve em março de 2024?", 3)],
)  # fmt: skip
def test_a_question_names_its_period_in_its_language(code, question, month):
    """A date in the question's language is read as its period."""
    with languages.override(code):
        start, _ = query_period(question)
    assert (start.year, start.month) == (2024, month) or (start.year, start.month, start.day) == (2024, 3, 2)


@pytest.mark.parametrize(
    ("code", "question", "word", "slot"),
    [("de", "Wo wohnt sie jetzt?", "wohnung", "residence"), ("fr", "Où habite-t-elle ?", "appartement", "residence"),
     ("pt", "Onde mora agora?", "apartamento", "residence")],
)  # fmt: skip
def test_a_vague_question_is_searched_for_its_subjects_words(code, question, word, slot):
    """ "Where does she live?" in each language asks for where one lives, and searches its words too."""
    with languages.override(code):
        assert word in concept_words(question) and slot in slots_asked(question)


@pytest.mark.parametrize(
    ("code", "question", "word", "english"),
    [("de", "Was für ein Auto hat sie?", "fahrrad", "bike"), ("de", "Macht er Sport?", "schwimmen", "yoga"),
     ("fr", "Elle conduit quelle voiture ?", "vélo", "bike"), ("fr", "Il fait du sport ?", "natation", "yoga"),
     ("pt", "Que carro ela tem agora?", "bicicleta", "bike"), ("pt", "Ele faz exercício?", "natação", "yoga"),
     ("en", "What car does she drive?", "bike", "bus")],
)  # fmt: skip
def test_a_question_about_sport_or_getting_around_wants_their_words_in_each_language(code, question, word, english):
    """Sport and how one gets around are subjects in German, French and Portuguese as in English and Spanish: the
    question wants their words, and an English fact about them is found by a question in any of them."""
    with languages.override(code):
        assert word in concept_words(question)
        assert english in concept_words(question, also=["en"])


def test_a_question_about_a_trip_is_not_read_as_asking_how_one_gets_around():
    """ "Wohin fährt sie im Urlaub?" asks about travel, not what she drives."""
    with languages.override("de"):
        assert "fahrrad" not in concept_words("Wohin fährt sie im Urlaub?")


def test_statements_in_a_language_without_readers_state_nothing_but_their_speaker():
    """French has no statement reader yet: a fact gives its speaker and no attribute."""
    with languages.override("fr"):
        said = statement("Julie: J'habite maintenant à Rennes.")
    assert said.speaker == "julie" and said.slots == {}


def test_a_relative_is_named_in_each_language():
    """ "meine Schwester Lena", "ma sœur Léa", "a minha irmã Rita": each gives the sister's name."""
    cases = [("de", "Meine Schwester Lena wohnt in Graz.", "schwester", "lena"),
             ("fr", "Ma sœur Léa habite à Nantes.", "sœur", "léa"),
             ("pt", "A minha irmã Rita mora em Braga.", "irmã", "rita")]  # fmt: skip
    for code, text, relation, name in cases:
        assert languages.get(code).relations.names_given(text, relation) == [name]


@pytest.mark.parametrize(
    ("code", "question", "sport"),
    [("en", "Which sport does he play?", "rugby"), ("en", "Does she keep fit?", "pilates"),
     ("es", "¿Qué deporte practica?", "baloncesto"), ("de", "Welchen Sport macht er?", "handball"),
     ("fr", "Elle fait quel sport ?", "aviron"), ("pt", "Que esporte ele pratica?", "vôlei")],
)  # fmt: skip
def test_a_question_about_sport_wants_the_sports_people_play_in_each_language(code, question, sport):
    """ "Which sport does he play?" wanted running, swimming and football only: "The rugby season's over" answered
    nothing of it. The sports played widely are the subject's words in each language."""
    with languages.override(code):
        assert sport in concept_words(question)


@pytest.mark.parametrize(
    ("code", "question", "also", "word"),
    [("en", "What is her cat called?", "fr", "chat"), ("en", "What's his dog's name?", "de", "hund"),
     ("en", "How old is her son?", "es", "hijo"), ("fr", "Comment s'appelle son chien ?", "en", "dog"),
     ("de", "Wie heißt ihre Katze?", "es", "gato")],
)  # fmt: skip
def test_a_subject_named_by_one_of_its_words_wants_its_words_in_the_facts_languages(code, question, also, word):
    """ "What is her cat called?" names no subject ("pets?") but one of its words: the facts in another language are
    searched for the subject's words in theirs ("Biscotte le chat dort sur mon clavier" shares no word with "cat")."""
    with languages.override(code):
        assert word in concept_words(question, also=[also])
        assert word not in concept_words(question)
