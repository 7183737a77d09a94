"""What came after (memories/recall/after.py): an end user's later statement about the same thing comes with the one
the block shows, dated, whatever words the change was said in, found by the attribute both state or by meaning; a
later statement about something else does not. Sentences of our own."""

from __future__ import annotations

import pytest

from memories.models import Memory
from memories.recall.after import later_statements
from memories.recall.hits import Hit
from tests.memories.recall.test_truth import ask, context, say


def _shown(text: str) -> list[Hit]:
    memory = Memory.objects.get(text__contains=text)
    return [Hit(id=memory.pk, type="memory", text=memory.text, kind=memory.kind)]


def test_a_later_statement_of_the_same_attribute_comes_with_the_one_shown_however_unlike_in_words(api, notes):
    """ "I live in Porto" and, months later, "I moved to Leeds in June, closer to my daughter" (the same attribute
    in their stored readings, not close in meaning): the later comes with the earlier, though the earlier is retired;
    the chat about the rain said in between does not."""
    say(api, "s1", "I live in Porto.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "It rained all afternoon so I stayed in with a film.", when="2024-03-02T10:00:00Z")
    say(api, "s3", "I moved to Leeds in June, closer to my daughter.", when="2024-07-02T10:00:00Z")
    end_user = Memory.objects.get(text__contains="Porto").end_user_id
    later = later_statements(_shown("Porto"), end_user, {})
    (after,) = later.values()
    assert "Leeds" in after.text and after.signals == ["after"]


@pytest.mark.parametrize("embedding_model", ["all-MiniLM-L6-v2", "multilingual-e5-small"], indirect=True)
def test_a_later_statement_close_in_meaning_comes_with_the_one_shown_and_unrelated_chat_does_not(
    api, notes, embedding_model
):
    """ "My car is an old Golf" and later "The Golf is gone, I'm on an e-bike now" (no reading of either says so; 0.76
    close in meaning): the later comes with it; of "I'm learning the cello", only burnt toast was said after, and
    nothing comes with it. With multilingual-e5-small too, whose two statements of one speaker are all close
    (unrelated chat 0.82-0.86, the Golf and the e-bike 0.91): read on the product's scale for two statements."""
    say(api, "s1", "My car is an old Golf.", "I'm learning the cello.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "The Golf is gone, I'm on an e-bike now.", "Just burnt the toast again, classic me.",
        when="2024-06-02T10:00:00Z")  # fmt: skip
    end_user = Memory.objects.get(text__contains="Golf.").end_user_id
    (after,) = later_statements(_shown("old Golf"), end_user, {}).values()
    assert "e-bike" in after.text
    assert later_statements(_shown("cello"), end_user, {}) == {}


def test_in_german_unrelated_statements_do_not_come_with_each_other_in_a_short_history(api, notes):
    """A German user's first two chats: all-MiniLM-L6-v2 puts any two of her German sentences 0.5-0.6 close (English
    ones: 0.03), above the floor that alone judges a short history, so the move to Dresden came with her peanut
    allergy and led ask's answer about it. Compared by their multilingual vectors, nothing comes with the allergy,
    and the change of school comes with the school."""
    say(api, "s1", "Ich bin allergisch gegen Erdnüsse, das ist wichtig.",
        "Ich arbeite als Lehrer an einer Grundschule.", when="2024-01-02T10:00:00Z")  # fmt: skip
    say(api, "s2", "Wir sind gerade nach Dresden umgezogen!", "Ich habe die Schule gewechselt, jetzt unterrichte ich "
        "an einem Gymnasium.", when="2024-06-02T10:00:00Z")  # fmt: skip
    end_user = Memory.objects.get(text__contains="Erdnüsse").end_user_id
    assert later_statements(_shown("Erdnüsse"), end_user, {}) == {}
    (after,) = later_statements(_shown("Grundschule"), end_user, {}).values()
    assert "Gymnasium" in after.text
    answer = ask(api, "Worauf ist er allergisch?")["answer"]
    assert "Erdnüsse" in answer and "Dresden" not in answer


def test_a_change_told_over_two_turns_comes_with_each_statement_it_follows_not_with_one_only(api, notes):
    """Two statements about the car, and a change told over two turns of one later day: each of the two brings one of
    that day's statements (before, both wanted the latest, the first got it and the second came alone); one shown in
    the block already does not keep the other out."""
    say(api, "s1", "My car is an old Golf.", "I drive my Golf to work every day.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "Sold the Golf last week, I ride an e-bike now.",
        "My old Golf is gone, the e-bike takes me everywhere.", when="2024-06-02T10:00:00Z")  # fmt: skip
    end_user = Memory.objects.get(text__contains="car is an old Golf").end_user_id
    shown = _shown("car is an old Golf") + _shown("drive my Golf")
    later = later_statements(shown, end_user, {})
    assert sorted(hit.text for hit in later.values()) == [
        "My old Golf is gone, the e-bike takes me everywhere.",
        "Sold the Golf last week, I ride an e-bike now.",
    ]
    later = later_statements(_shown("car is an old Golf") + _shown("takes me everywhere"), end_user, {})
    assert "Sold the Golf" in later[shown[0].id].text


def test_the_block_shows_the_later_statement_dated_and_ask_answers_with_it_when_asked_how_things_stand_now(api, notes):
    """ "What car does she drive these days?": the block shows the Golf and, dated after it, once, what was said of it
    later; ask quotes the later, once."""
    say(api, "s1", "My car is an old Golf.", "I'm learning the cello.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "We went to the coast with the kids.", "The Golf is gone, we cycle everywhere on e-bikes now.",
        when="2024-06-02T10:00:00Z")  # fmt: skip
    block = context(api, "What car does she drive these days?")
    lines = [line for line in block.splitlines() if line.startswith("- [")]
    (golf,) = [n for n, line in enumerate(lines) if "old Golf" in line]
    (bikes,) = [n for n, line in enumerate(lines) if "e-bikes" in line]
    assert "(2024-01-02)" in lines[golf] and "(2024-06-02)" in lines[bikes]
    answer = ask(api, "What car does she drive these days?")["answer"]
    assert answer.count("e-bikes") == 1 and "old Golf" not in answer


def test_shared_facts_bring_nothing_after_them(api, notes):
    """Facts of no end user are about anyone: nothing said later is joined to them."""
    from tests.memories.ingest.test_restated_supersession import say as say_shared

    say_shared(api, "My car is an old Golf.", when="2024-01-02T10:00:00Z")
    say_shared(api, "The Golf is gone, I'm on an e-bike now.", session="s2", when="2024-06-02T10:00:00Z")
    assert later_statements(_shown("old Golf"), None, {}) == {}


def test_ask_quotes_the_later_statement_first_and_dates_both_when_not_asked_how_things_stand_now(api, notes):
    """ "Which car has she got?" does not ask how things stand now, and ask's best statement is the Golf, which
    names the car. What she said of it later comes with it into the answer, read first: "(2024-06-02) The
    Golf is gone, I'm on an e-bike now", then "(2024-01-02) My car is an old Golf". The reader sees which is newer,
    whatever words the change was said in."""
    say(api, "s1", "My car is an old Golf.", "I'm learning the cello.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "The Golf is gone, I'm on an e-bike now.", "Just burnt the toast again, classic me.",
        when="2024-06-02T10:00:00Z")  # fmt: skip
    answer = ask(api, "Which car has she got?")["answer"]
    assert answer.index("(2024-06-02)") < answer.index("e-bike") < answer.index("(2024-01-02)")
    assert answer.index("(2024-01-02)") < answer.index("old Golf")


def test_ask_quotes_each_statement_on_a_line_of_its_own_opening_with_its_date(api, notes):
    """Chat ends its sentences without a full stop ("my car is an old golf lol"): quoted on one line, the next quote's
    date ran on from it ("...golf lol (2024-01-02) my car is..."), as if it were that sentence's. Each quote is a line
    of its own, its date first."""
    say(api, "s1", "my car is an old Golf lol", "learning the cello these days", when="2024-01-02T10:00:00Z")
    say(api, "s2", "the Golf is gone, I'm on an e-bike now haha", "burnt the toast again, classic me",
        when="2024-06-02T10:00:00Z")  # fmt: skip
    lines = ask(api, "Which car has she got?")["answer"].splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("(2024-06-02)") and "e-bike" in lines[0] and "old Golf" not in lines[0]
    assert lines[1].startswith("(2024-01-02)") and "old Golf" in lines[1]


def test_ask_does_not_quote_a_later_question_as_what_came_after(api, notes):
    """ "Do you think the Golf would sell for much?" was said after "My car is an old Golf." and is about it, but
    asks: it states no newer value, and ask quotes the Golf alone."""
    say(api, "s1", "My car is an old Golf.", "I'm learning the cello.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "Do you think the Golf would sell for much?", when="2024-06-02T10:00:00Z")
    end_user = Memory.objects.get(text__contains="old Golf").end_user_id
    (after,) = later_statements(_shown("old Golf"), end_user, {}).values()  # about the same thing, by meaning
    assert "sell" in after.text
    answer = ask(api, "Which car has she got?")["answer"]
    assert "old Golf" in answer and "sell" not in answer


def test_a_profile_fact_comes_with_what_the_user_said_later_of_it(api, notes):
    """ "I'm a nurse at the Royal Infirmary." is who she is ("About this user"); months later "Handed in my notice
    at the Infirmary, the hospice wants me from March." says otherwise in words no reading takes for a change, so
    both stay live. Asked anything, the profile shows the later statement right after the fact, dated."""
    say(api, "s1", "I'm a nurse at the Royal Infirmary.", when="2024-01-02T10:00:00Z")
    say(
        api, "s2", "Handed in my notice at the Infirmary, the hospice wants me from March.", when="2024-06-02T10:00:00Z"
    )
    assert Memory.objects.get(text__contains="Royal").kind == "user_profile"
    assert Memory.objects.filter(retired_at__isnull=True).count() == 2
    block = context(api, "What music does she listen to?")
    profile = block.split("### About this user")[1].split("###")[0]
    lines = [line for line in profile.splitlines() if line.startswith("- [")]
    (nurse,) = [n for n, line in enumerate(lines) if "Royal" in line]
    assert "hospice" in lines[nurse + 1] and "(2024-06-02)" in lines[nurse + 1]


def test_ask_reads_the_first_memories_found_each_with_what_came_after_it_not_fewer():
    """Ask reads the block's first k memories found for the question: a later statement brought with one of them
    comes too, and takes no found memory's place (three found with one later each, k=3: all six)."""
    from memories.recall.answers import _first

    found = [Hit(id=n, type="memory", text=f"found {n}", kind="fact") for n in range(1, 5)]
    later = [Hit(id=10 + n, type="memory", text=f"later {n}", kind="fact", signals=["after"]) for n in range(1, 4)]
    block = [found[0], later[0], found[1], later[1], found[2], later[2], found[3]]
    assert [hit.id for hit in _first(block, 3)] == [1, 11, 2, 12, 3, 13]


@pytest.mark.parametrize(
    ("code", "question", "shown", "update", "aside"),
    [
        ("en", "Where does Omar live?", "Omar: I live in Leeds.", "Omar: I live in Hull now.", "Omar: Still raining."),
        ("pt", "Onde o Omar mora?", "Omar: Moro em Braga.", "Omar: Agora moro no Porto.", "Omar: O meu time perdeu."),
    ],
)
def test_ask_opens_with_what_answers_a_later_statement_that_does_not_answer_comes_after_the_one_it_follows(
    code, question, shown, update, aside
):
    """What the end user said later of the same thing is read first when it answers the question by what it says
    ("I live in Hull now"); one judged the same thing that answers nothing of it (an aside about the rain or a
    football result) comes after the statement it follows, dated, so that the answer opens with what answers. The
    speaker's name each statement opens with is no word it shares with the question."""
    from kbsite import languages
    from memories.recall.answer_ranking import Question
    from memories.recall.answers import _answering, _with_later

    with languages.override(code):
        answers = _answering(Question.read(question))
        hits = [Hit(id=n, type="memory", text=text, kind="fact", language=code)
                for n, text in enumerate((shown, update, aside), start=1)]  # fmt: skip
        assert [h.id for h in _with_later(hits[:1], {1: hits[1]}, answers)] == [2, 1]
        assert [h.id for h in _with_later(hits[:1], {1: hits[2]}, answers)] == [1, 3]


@pytest.mark.django_db
def test_offline_ask_quotes_a_later_aside_after_the_statement_it_follows_and_a_later_answer_before_it(monkeypatch):
    """Through offline ask's answer: with what came after judged the same thing (memories.recall.after, given here),
    an aside that answers nothing of the question is read after the statement it follows; an update that answers it
    is read first. Each is dated, said on another day."""
    from datetime import UTC, datetime

    from memories.recall import answers

    def hit(pk: int, text: str, month: int) -> Hit:
        return Hit(id=pk, type="memory", text=text, kind="fact", language="en", end_user=1,
                   created_at=datetime(2024, month, 1, tzinfo=UTC))  # fmt: skip

    shown = hit(1, "Omar: I live in Leeds.", 1)
    for later, first in (
        (hit(2, "Omar: Still raining, typical.", 6), "Leeds"),
        (hit(3, "Omar: I live in Hull now.", 6), "Hull"),
    ):
        monkeypatch.setattr(answers, "later_statements", lambda chosen, *args, later=later: {1: later})
        text, cited = answers._extractive("Where does Omar live?", [shown], end_user_id=1)
        lines = text.splitlines()
        assert len(lines) == 2 and first in lines[0] and all(line.startswith("(2024-0") for line in lines)
        assert set(cited) == {1, later.id}


def test_asked_how_things_were_before_ask_quotes_what_was_said_before_of_the_same_thing(api, notes):
    """ "Where did I work before the startup?": the best statement names the startup; what the user said before of
    the same thing (a retired one too) comes first, dated; asked how things stand, it does not come."""
    say(api, "s1", "I work as a tester at Northwind in Leeds.", "Lovely sunny morning for a walk.",
        when="2024-01-02T10:00:00Z")  # fmt: skip
    say(api, "s2", "I left Northwind and now I work as a tester at a fintech startup.", when="2024-06-02T10:00:00Z")
    answer = ask(api, "Where did I work before the startup?")["answer"]
    assert answer.index("(2024-01-02) I work as a tester at Northwind") < answer.index("(2024-06-02)"), answer
    assert "Northwind in Leeds" not in ask(api, "Where do I work at the moment?")["answer"]


def test_a_later_statement_of_the_same_attribute_comes_before_later_chat_close_in_meaning(api, notes):
    """ "I work as a barista at the Kettle", then "I work as a designer at Pixelhaus now" (the same attributes), then,
    later still, coffee chat close in meaning to the first: the statement of the same attribute is what came after
    (before, the latest close in meaning was, and the new job was left out)."""
    say(api, "s1", "I work as a barista at the Kettle.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "I work as a designer at Pixelhaus now.", when="2024-05-02T10:00:00Z")
    say(api, "s3", "Made a flat white at home, I miss the espresso machine at the Kettle.", when="2024-08-02T10:00:00Z")
    end_user = Memory.objects.get(text__contains="barista").end_user_id
    (after,) = later_statements(_shown("barista"), end_user, {}).values()
    assert "Pixelhaus" in after.text


def test_asked_how_things_stand_a_later_statement_of_another_thing_does_not_go_before_the_one_that_states_it():
    """ "Welche Rolle hat er inzwischen im Job?": the statement of his role ("ich bin seit april teamlead") answers.
    What he said after it, judged the same thing by meaning but stating no role ("lea kommt aufs gymnasium"), does
    not go before it (it did, and the role, said earlier, was left out of the answer); a later statement that
    states the role does, and so does one after a statement that states none."""
    from memories.recall.answer_ranking import Candidate
    from memories.recall.answers import _later_first

    def candidate(pk: int, score: float, answered: set[str], follows: int | None = None) -> Candidate:
        hit = Hit(id=pk, type="memory", text=str(pk), kind="fact", follows=follows)
        return Candidate(hit=hit, pk=pk, text=str(pk), rank=0, answered=frozenset(answered), answers=True, score=score)

    role, school = candidate(1, 9.5, {"occupation", "job"}), candidate(2, 6.3, {"schul"}, follows=1)
    _later_first([role, school], frozenset({"occupation", "employer"}))
    assert school.score < role.score
    promoted = candidate(3, 6.0, {"occupation"}, follows=1)
    _later_first([role, promoted], frozenset({"occupation", "employer"}))
    assert promoted.score > role.score
    chat, news = candidate(4, 8.0, {"arbeit"}), candidate(5, 5.0, set(), follows=4)
    _later_first([chat, news], frozenset({"occupation", "employer"}))
    assert news.score > chat.score
    # where one works, then as what one works there: attributes of one kind (kbsite.languages.reading.SAME_THING)
    where, title = candidate(6, 9.0, {"employer"}), candidate(7, 6.0, {"occupation"}, follows=6)
    _later_first([where, title], frozenset({"occupation", "employer"}))
    assert title.score > where.score


def test_what_came_after_any_statement_a_hit_shows_comes_with_it(api, notes):
    """A turn shown as one hit by the statement the search matched ("It has 180,000 km on the clock."), with the
    turn's other statement joined in ("My car is an old Golf."): the later "The Golf is gone" comes with the hit,
    for the block shows the whole turn (nothing came after the matched one). Before, only the matched statement was
    compared, and nothing came."""
    say(api, "s1", "My car is an old Golf. It has 180,000 km on the clock.", when="2024-01-02T10:00:00Z")
    say(api, "s2", "The Golf is gone, I'm on an e-bike now.", when="2024-06-02T10:00:00Z")
    km, golf = Memory.objects.get(text__contains="180,000"), Memory.objects.get(text__contains="old Golf")
    assert km.pk != golf.pk
    shown = Hit(id=km.pk, type="memory", text=km.text, kind=km.kind, parts=[(golf.pk, golf.text)])
    assert later_statements([Hit(id=km.pk, type="memory", text=km.text, kind=km.kind)], km.end_user_id, {}) == {}
    (after,) = later_statements([shown], km.end_user_id, {}).values()
    assert "e-bike" in after.text
    assert list(later_statements([shown], km.end_user_id, {})) == [km.pk]


def test_a_later_statement_of_another_attribute_of_the_same_kind_comes_with_the_one_shown(api, notes):
    """Where one works told first by the employer ("I work at the Copper Kettle café on weekends") and months later
    by the title alone ("I work as a junior architect now"): their readings state two attributes of one kind (where
    and as what one works: kbsite.languages.reading.SAME_THING), and the later comes with the earlier. Before, only
    the same attribute did, and meaning alone, judged against the ten chats said between them, brought nothing; so
    does a new address after where one lived."""
    say(api, "s1", "I work at the Copper Kettle café on weekends.", "I live in Porto.", when="2024-01-02T10:00:00Z")
    chat = [
        "The rain kept me in all afternoon, so I watched an old film.",
        "My sister sent me a recipe for lemon cake and it was a disaster.",
        "I finally fixed the squeaky door in the hallway.",
        "The neighbours' dog barked all night again.",
        "I've been reading a thriller set in Iceland, very gloomy.",
        "Bought new running shoes but my knees still complain.",
        "The tomatoes on the balcony are finally turning red.",
        "I burnt the toast again this morning, classic me.",
        "Had a long phone call with my grandmother about her garden.",
        "Tried a yoga class, I could barely touch my knees.",
    ]
    for n, text in enumerate(chat):
        say(api, f"c{n}", text, when=f"2024-{n + 2:02d}-03T10:00:00Z")
    say(api, "s2", "I work as a junior architect now.", "My new address is 4 Mill Road, Leeds.",
        when="2024-12-02T10:00:00Z")  # fmt: skip
    end_user = Memory.objects.get(text__contains="Copper Kettle").end_user_id
    (after,) = later_statements(_shown("Copper Kettle"), end_user, {}).values()
    assert "junior architect" in after.text
    (after,) = later_statements(_shown("Porto"), end_user, {}).values()
    assert "Mill Road" in after.text
