"""The shapes every language's readers give: what a text states of one person's one-valued attributes
(:class:`Statement`) and what it says has changed (:class:`Change`), how two statements compare, and the walk a
reader of statements takes over a text (:func:`read_statement`), with the speaker's name a text opens with
(:func:`speaker_label`, :func:`speaker_name`). No language's words: each language's package reads
texts into these with its own parts (``<code>/statements.py``, ``<code>/changes.py``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kbsite import languages
from kbsite.languages.places import places_named
from kbsite.languages.text import content_words


@dataclass
class Statement:
    """What a text states of its speaker's one-valued attributes: ``slots`` maps an attribute to its value;
    ``whole`` when every sentence states one and says no more (retiring the text then retires nothing else it
    says)."""

    speaker: str
    slots: dict[str, str] = field(default_factory=dict)
    hints: set[str] = field(default_factory=set)
    whole: bool = False


# The most words of the speaker's name a statement opens with, as ingest writes a turn's ("Ana María: …").
SPEAKER_WORDS = 3


def speaker_label(text: str) -> tuple[str, str] | None:
    """The speaker's name ``text`` opens with, as ingest writes a turn's speaker ("Ana María: I moved to Lisbon."),
    and what they said; None when it opens with none: a name is at most ``SPEAKER_WORDS`` words and ends no sentence
    ("Big news. Update: …" is said)."""
    speaker, colon, said = text.partition(": ")
    if colon and said and len(speaker.split()) <= SPEAKER_WORDS and not re.search(r"[.!?]", speaker):
        return speaker.strip(), said
    return None


def speaker_name(text: str) -> tuple[str, str] | None:
    """:func:`speaker_label`, when the label is a name: each of its words capitalised ("Ana María: …"). "New
    address: 12 Park Lane" opens with none: it is said, and its words are the statement's own."""
    label = speaker_label(text)
    return label if label and all(word[:1].isupper() for word in label[0].split()) else None


def read_statement(
    text: str,
    *,
    sentences: re.Pattern,
    first_person: re.Pattern,
    in_first_person: Callable[[str], tuple[str, str]],
    sentence_slots: Callable[[str, set[str]], tuple[dict[str, str], bool]],
    across: Callable[[str], tuple[dict[str, str], tuple[str, ...]]] | None = None,
    own: bool | None = None,
) -> Statement:
    """The walk every language's reader of statements takes over ``text``, "Speaker: I live in Berlin." (offline
    facts are the speaker's own words) or "Alice lives in Berlin." (the LLM's facts name their subject), with the
    language's own parts: ``sentences`` splits it; ``first_person`` tells a turn of no named speaker in their own
    words ("I live in Leeds. Boxes everywhere."), so that a capitalised word opening a sentence is not taken for
    someone else; ``in_first_person`` turns a sentence naming its subject into its words in the first person (and
    whom); ``sentence_slots`` reads a sentence's attributes (and whether that is all it says); ``across``, what a
    first-person text states across its sentences. ``own``: the text is known to be its speaker's own words (an
    offline fact of a user's turn, the speaker named or not), so that no sentence is taken for someone else's
    ("Trabajo de enfermera…": Spanish drops the "I", and "Trabajo" is no one); None: told from the text."""
    named = (label := speaker_label(text)) is not None
    speaker, said = label or ("", text)
    own = named or (first_person.search(text) is not None if own is None else own)
    found = Statement(speaker=speaker.lower())
    covered = True
    for sentence in (s.strip() for s in sentences.split(said)):
        if not sentence:
            continue
        if not own:
            who, sentence = in_first_person(sentence)
            if who and found.speaker and who != found.speaker:
                covered = False  # another person: this text is not about one
                continue
            found.speaker = found.speaker or who
        slots, whole = sentence_slots(sentence, found.hints)
        found.slots.update(slots)
        covered = covered and whole
    if own and across is not None:
        slots, hints = across(said)
        found.slots.update(slots)
        found.hints.update(hints)
    found.whole = covered and bool(found.slots)
    return found


def _same(a: str, b: str) -> bool:
    return a == b or a.startswith(b + " ") or b.startswith(a + " ")


def contradicts(old: Statement, new: Statement) -> bool:
    """``new`` states otherwise everything ``old`` states (same speaker; ``old`` states nothing else)."""
    return (
        old.whole
        and old.speaker == new.speaker
        and bool(old.slots)
        and all(slot in new.slots and not _same(value, new.slots[slot]) for slot, value in old.slots.items())
    )


def values_agree(a: str, b: str) -> bool:
    """Whether two values of one attribute say the same ("berlin" / "berlin germany")."""
    return _same(a, b)


def clash(old: Statement, new: Statement) -> str | None:
    """The first attribute both state of the same person with different values, if any."""
    if old.speaker != new.speaker:
        return None
    return next(
        (slot for slot, value in old.slots.items() if slot in new.slots and not _same(value, new.slots[slot])), None
    )


@dataclass(frozen=True)
class Concept:
    """An everyday subject a question may ask about ("any pets?"), and the words that state facts of it."""

    name: str
    asks: re.Pattern  # a question about the subject
    words: tuple[str, ...]  # words a statement of it holds (full-text terms, stemmed by the search itself)
    slots: tuple[str, ...] = ()  # the one-valued attributes it asks for (ingest.statements' slots)


def kin(relations: dict[str, str]) -> dict[str, str]:
    """Each word of ``relations`` (a relation, by the words of a language that name it) by the relation it names."""
    return {word: relation for relation, words in relations.items() for word in words.split()}


def kin_words(kin_: dict[str, str], relation: str) -> frozenset[str]:
    """The words of ``kin_`` (as :func:`kin` gives it) that name ``relation``."""
    return frozenset(word for word, named in kin_.items() if named == relation)


def concept(name: str, asks: str, words: str, slots: tuple[str, ...] = ()) -> Concept:
    """A subject: ``asks``, the alternatives of a question about it (a regex, whole words); ``words``, those that
    state its facts; ``slots``, the one-valued attributes it asks for."""
    return Concept(name, re.compile(r"\b(?:" + asks + r")\b", re.I), tuple(words.split()), slots)


# What a retirement makes a thing of the past: where, as what and in which team one works.
RETIRED_SLOTS = frozenset({"employer", "occupation", "workplace", "team"})
# Attributes that tell one thing between them: a later statement of one is what came after an earlier statement of
# another ("I work at the Copper Kettle café": employer; "I work as a junior architect now": occupation; where one
# lives, then a new address).
SAME_THING = (RETIRED_SLOTS | {"job", "job title", "role"}, frozenset({"residence", "address", "home address"}))


def of_a_kind(one: Iterable[str], other: Iterable[str]) -> bool:
    """Whether an attribute of ``one`` is one of ``other`` or of its kind (:data:`SAME_THING`)."""
    other = set(other)
    return any(a in other or any(a in kind and kind & other for kind in SAME_THING) for a in one)


def same_thing_pairs() -> tuple[list[str], list[str]]:
    """Each attribute of :data:`SAME_THING` beside each attribute of its kind (itself too), as two lists."""
    pairs = [(a, b) for kind in SAME_THING for a in kind for b in kind]
    return [a for a, _ in pairs], [b for _, b in pairs]


def _own_in(text: str, thing: frozenset[str]) -> bool:
    """Whether ``text`` names the thing with a capital ("the Clio", "Pintxo": a name, not a common word) or as the
    speaker's own (the language's ``OWN`` words: "on my bike")."""
    own = "|".join(languages.current().changes.OWN)
    return any(
        re.search(r"(?<![\w'])" + re.escape(word) + r"(?![\w'])", text, re.I)
        and re.search(rf"(?<![\w']){re.escape(word.capitalize())}|(?i:\b(?:{own}) {re.escape(word)}\b)", text)
        for word in thing
    )


@dataclass(frozen=True)
class Change:
    """A thing a text says has changed, as the words that name it: ``ended`` ("we sold the Clio", "I don't drink
    coffee anymore"), ``called off`` ("the Dublin trip got cancelled"), ``rescheduled`` ("we pushed the trip to
    September") or ``done without`` ("walked to the pier without the stick")."""

    how: str
    thing: frozenset[str]

    def replaces(self, older: str) -> bool:
        """Whether an older text says what this change makes a thing of the past: it names the thing (or a use of
        it: "no car anymore" replaces "I drive my Golf") and, for a thing put to another time, a time of it ("a trip
        to Japan for April"); for one done without, a state held for a while only ("with a stick for now"). A text
        that says itself the thing ended is not replaced; nor a long statement naming the thing by a common word not
        as one's own ("goodbye nights" ends "mostly night shifts", not a long turn that goes "on free nights…"). A
        retirement replaces what says where or as what one works. Read in the language in force."""
        lang = languages.current()
        changes = lang.changes
        if self.how == "retired":
            said = lang.statements.statement(older)
            return bool(RETIRED_SLOTS & set(said.slots)) or bool(changes.WORK_SAID.search(older))
        uses = changes.USED.get(self.thing, ())
        if not mentions(older, self.thing) and not any(mentions(older, use) for use in uses):
            return False
        long = len(content_words(older)) > changes.LONG_STATEMENT
        if len(self.thing) == 1 and long and not _own_in(older, self.thing):
            return False
        if self.how in ("rescheduled", "called off"):
            return changes.TIME_NAMED.search(older) is not None  # a plan: "booked Dublin for the rugby in November"
        if self.how == "done without" and not changes.TEMPORARY.search(older):
            return False
        return not changes.ended(older)


def mentions(text: str, thing: frozenset[str]) -> bool:
    """Whether ``text`` names every word of ``thing``, or a longer word it begins ("fuji": "Fujifilm")."""
    said = text.lower().replace("’", "'")
    words = frozenset(re.sub(r"'s$", "", w) for w in re.findall(r"[\w']+", said) + re.findall(r"[\w'-]+", said))
    return all(
        w in words or (len(w) >= 4 and any(o.startswith(w) for o in words)) or (w.endswith("s") and w[:-1] in words)
        for w in thing
    )


def reading_of(text: str, own: bool | None = None) -> dict:
    """What ``text`` states and says has changed, read once (in the language in force) and stored on its memory:
    ``{"speaker", "slots", "whole", "hints", "changes": [[how, [thing words]], …], "places": [name, …]}`` (the places
    it names: kbsite.languages.places)."""
    lang = languages.current()
    said = lang.statements.statement(text, own=own)
    return {
        "speaker": said.speaker,
        "slots": said.slots,
        "whole": said.whole,
        "hints": sorted(said.hints),
        "changes": [[change.how, sorted(change.thing)] for change in lang.changes.changes(text)],
        "places": places_said(text, said.speaker),
    }


def places_said(text: str, speaker: str) -> list[str]:
    """The places ``text`` names (kbsite.languages.places), but in the name of whom it is said by where it opens with
    it: "Ella Preston: …" and "Ella Preston moved to Leeds" do not name Preston the town, nor "Sofia: …" the city;
    "Ella Preston: I grew up in Preston" does."""
    if speaker:
        label, colon, said = text.partition(": ")
        if colon and label.strip().lower() == speaker:
            text = said
        elif text[: len(speaker)].lower() == speaker and text[len(speaker) : len(speaker) + 1].isspace():
            text = text[len(speaker) :]
    return places_named(text)


def statement_of(reading: dict) -> Statement:
    """The Statement a stored reading holds."""
    return Statement(
        speaker=reading.get("speaker", ""),
        slots=dict(reading.get("slots", {})),
        hints=set(reading.get("hints", ())),
        whole=bool(reading.get("whole")),
    )


def changes_of(reading: dict) -> list[Change]:
    """The Changes a stored reading holds."""
    return [Change(how, frozenset(thing)) for how, thing in reading.get("changes", ())]
