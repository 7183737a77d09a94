"""The truth benchmark's scorer (benchmarks/truth_score.py): what counts as holding a fact, and as a replaced value
presented as current."""

from __future__ import annotations

from benchmarks.truth_score import holds, stale_units

BLOCK = """## Memory
- [memory 3] (earlier, until 2025-03-02) Rosa: I rent a flat in Leeds with two friends.
- [memory 9] (2025-03-02) Rosa: Finally got the keys to our place in Glasgow!
- [memory 4] (2024-11-20) Rosa: Leeds is freezing today."""


def test_a_fact_on_a_line_marked_earlier_is_not_held():
    """Only an unmarked line holds a fact: a block whose one line naming the value says it held until then does not
    hold it as current (the old scorer counted any line)."""
    block = "- [memory 3] (earlier, until 2025-03-02) Rosa: I rent a flat in Leeds."
    assert not holds(block, ["Leeds"])
    assert holds(block, ["Leeds"], history=True)
    assert holds(BLOCK, ["Glasgow"])


def test_history_wording_of_the_chat_does_not_exempt_a_line():
    """A chat's own words ('until', 'sold', 'left') are no mark: the line still presents the value as current.
    The old scorer let any history word anywhere on a line exempt it."""
    block = "- [memory 5] (2024-01-10) Omar: I drive a Golf until the lease ends in spring."
    assert stale_units(block, ["Golf"], ["Tesla"]) == [block]


def test_a_replaced_value_beside_a_later_dated_statement_of_the_fact_is_not_stale():
    """An unmarked old value is outdated by a newer dated line holding the fact; an undated or older one is not."""
    assert stale_units(BLOCK, ["Leeds"], ["Glasgow"]) == []
    older_new = "- (2024-01-01) Rosa: Glasgow is lovely.\n- (2024-06-01) Rosa: I live in Leeds."
    assert stale_units(older_new, ["Leeds"], ["Glasgow"]) == ["- (2024-06-01) Rosa: I live in Leeds."]
    undated = "- Rosa: I live in Leeds.\n- (2025-03-02) Rosa: Glasgow now!"
    assert stale_units(undated, ["Leeds"], ["Glasgow"]) == ["- Rosa: I live in Leeds."]


def test_a_marked_line_a_change_on_one_line_and_no_new_value_at_all():
    """A line marked earlier and a line naming the new value too are not stale; the old value alone, with nothing
    newer in the text, is."""
    marked = "- [memory 3] (earlier, until 2025-03-02) Rosa: I rent a flat in Leeds."
    assert stale_units(marked, ["Leeds"], ["Glasgow"]) == []
    assert stale_units("- Rosa swapped Leeds for Glasgow.", ["Leeds"], ["Glasgow"]) == []
    assert stale_units("- (2024-06-01) Rosa: I rent a flat in Leeds.", ["Leeds"], ["Glasgow"]) != []


def test_an_answer_is_judged_by_sentence_and_whole_words():
    """In an answer each sentence is a unit: the old value in one sentence is stale though the next names the new
    one undated; 'cat' is not found in 'category'."""
    answer = "Rosa lives in Leeds. She mentioned Glasgow once."
    assert stale_units(answer, ["Leeds"], ["Glasgow"], sentences=True) == ["Rosa lives in Leeds."]
    assert holds(answer, ["glasgow"], sentences=True)
    assert not holds("A category of its own.", ["cat"])


def test_a_day_written_as_an_ordinal_does_not_end_a_sentence():
    """German writes the day of a date with a period ("am 12. November"): the answer's sentence goes on past it, so
    the date is found whole; a sentence that ends on a number followed by a capital still ends there."""
    answer = "Jonas: mein geburtstag war am 12. november, mit 42 fühl ich mich alt. Morgen ist Montag."
    assert holds(answer, ["12. November"], sentences=True)
    assert holds("Wir sind seit 1. November in Augsburg.", ["1. November"], sentences=True)
    assert stale_units("Ich wohne in Köln. Seit 2020. Berlin war davor.", ["Köln"], ["Berlin"], sentences=True) == [
        "Ich wohne in Köln."
    ]


def test_a_sentence_of_an_answer_is_dated_and_marked_by_the_quote_it_is_in():
    """An answer quotes statements, each opening on its date or the product's mark: the sentences after the opening
    one were said that day too, and held until then too. The newer quote's second sentence outdates the older."""
    answer = "(2025-03-02) Rosa: Big week. Got the keys in Glasgow! (2024-06-01) Rosa: I rent in Leeds. It's cold."
    assert stale_units(answer, ["Leeds"], ["Glasgow"], sentences=True) == []
    older = "(2024-06-01) Rosa: Hi. I rent in Leeds. (2025-03-02) Rosa: Busy. Glasgow next year maybe."
    assert stale_units(older, ["Leeds"], ["Glasgow"], sentences=True) == []
    marked = "(earlier, until 2025-03-02) Rosa: Hello. I rent in Leeds."
    assert not holds(marked, ["Leeds"], sentences=True)
    assert holds(marked, ["Leeds"], history=True, sentences=True)


def test_a_quotes_date_is_not_a_value_of_the_sentences_that_follow_it():
    """A sentence takes its quote's date for when it was said, not as words of its own: "30" said nowhere is not
    named by the sentence after "(2024-05-30) …"; the quote's own first sentence is judged as written, its date
    included (a birthday answered by the day it was said)."""
    answer = "(2024-05-30) Rosa: Cake! I turned 31 last week."
    assert stale_units(answer, ["30"], ["31"], sentences=True) == ["(2024-05-30) Rosa: Cake!"]
    assert holds("(2024-03-14) Lena: It's my birthday today!", ["03-14"], sentences=True)


def test_in_a_language_that_writes_compounds_as_one_word_a_value_names_the_compound_it_opens():
    """German writes "Rudersaison", "Birkenpollen", "Lateinlehrerin" as one word: each names the sport, the pollen
    and the subject asked for (the whole-word match missed them). Not in English ("cat" is not in "category"), nor
    where the rest is a capitalised word of its own, and a replaced value in a compound is stale the same way."""
    answer = "(2026-08-16) Seraina: Die Rudersaison geht bis Oktober."
    assert holds(answer, ["Ruder"], sentences=True, compounds=True)
    assert not holds(answer, ["Ruder"], sentences=True)
    assert holds("- Als Lateinlehrerin liegt mir diese Fahrt am Herzen.", ["Latein"], compounds=True)
    assert not holds("- The category was wrong.", ["cat"])
    assert not holds("- Wir fahren nach KölnBonn.", ["Köln"], compounds=True)
    block = "- (2025-03-01) Seraina: Das Unihockeytraining ist am Dienstag."
    assert stale_units(block, ["Unihockey"], ["Ruder"], compounds=True) == [block]
    assert stale_units(block, ["Unihockey"], ["Ruder"]) == []


def test_a_quote_dated_in_words_is_dated_as_one_dated_in_digits():
    """Asked when, ask dates its quotes in words of the question's language: "(March 2, 2025)", "(2 de marzo de
    2025)", "(2. März 2025)". Each is a date as "(2025-03-02)" is: a sentence after it takes it, and a newer value so
    dated outdates an older one."""
    from benchmarks.truth_score import dated

    assert dated("(March 2, 2025) Rosa: Big week.") == dated("(2 de marzo de 2025) Rosa: ¡Qué semana!")
    assert dated("(2. März 2025) Rosa: Was für eine Woche.") == dated("(2025-03-02) Rosa: Big week.")
    answer = "(March 2, 2025) Rosa: Big week. Got the keys in Glasgow!\n(June 1, 2024) Rosa: I rent in Leeds."
    assert stale_units(answer, ["Leeds"], ["Glasgow"], sentences=True) == []
    older = "(June 1, 2024) Rosa: Hi. I rent in Glasgow.\n(March 2, 2025) Rosa: Busy. Leeds next year maybe."
    assert stale_units(older, ["Glasgow"], ["Leeds"], sentences=True) == []
    assert stale_units(older, ["Leeds"], ["Glasgow"], sentences=True) == ["Leeds next year maybe."]


def test_a_bracket_the_chat_opens_a_sentence_with_is_no_date_of_its_quote():
    """ "(Honestly, since 2019) I rent in Leeds." inside a quote dated 2024-06-01 is that quote's sentence, said then:
    the newer quote naming Glasgow outdates it. Before, any bracket ending in a year opened a quote of its own, and
    the sentence, undated, was never outdated. A date in words or the product's mark still opens one."""
    from benchmarks.truth_score import opening_of

    answer = "(2024-06-01) Rosa: Hi. (Honestly, since 2019) I rent in Leeds.\n(2025-03-02) Rosa: Keys in Glasgow!"
    assert stale_units(answer, ["Leeds"], ["Glasgow"], sentences=True) == []
    assert opening_of("(Honestly, since 2019) I rent in Leeds.") == ""
    assert opening_of("(July 14, 2024) Rosa: Hi.") == "(July 14, 2024)"
    assert opening_of("- [memory 3] (earlier, until 2024-07-14) Rosa: Hi.") == "(earlier, until 2024-07-14)"
