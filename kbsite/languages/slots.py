"""Reading one-valued attributes by a language's patterns: the machinery the Spanish and German readers share
(``es/statements.py``, ``de/statements.py``), each giving its own words. Each clause of a sentence is matched against
the language's patterns in turn; a value runs to the end of its clause, or to the first word that says something
else of it (a time, a place, a manner: the language's ``value_stop``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from kbsite.languages.reading import Statement


@dataclass(frozen=True)
class Pattern:
    slot: str  # the attribute; "{0}" takes the pattern's "what" group
    regex: re.Pattern
    value: str | None = None  # a fixed value; None: the "v" group
    strict: bool = False  # the value must end its clause
    hints: tuple[str, ...] = ()  # words a statement of it contains (to find one by full text)
    negated: bool = False  # the value is said to hold no more
    mapped: dict | None = None  # the value read through this mapping


@dataclass(frozen=True)
class SlotReader:
    """A language's reader of statements: its patterns and the words around them."""

    patterns: list[Pattern]
    sentences: re.Pattern  # where a sentence ends
    clauses: re.Pattern  # where a clause of a sentence ends
    value_stop: re.Pattern  # where a value ends inside its clause
    article: re.Pattern  # an article or possessive opening a value, left out
    not_things: frozenset[str]  # words that name no value ("that", "everything")
    conditional: re.Pattern  # a wish or a condition states nothing
    subject: re.Pattern  # a fact in the third person: its subject ("who") and the rest
    not_subjects: frozenset[str]  # words that open a sentence and are nobody
    first_person_verbs: dict[str, str]  # the third person's verb read as the first's
    first_person: re.Pattern  # a text in the first person
    not_homes: frozenset[str] = frozenset()  # a place of work is no home ("moved to the office in Madrid")
    normal: dict[str, Callable[[str], str]] = field(default_factory=dict)  # a slot's values made one ("vegana")
    opening: str = ""  # marks opening a sentence, left out ("¡¿")

    def statement(self, text: str) -> Statement:
        """What ``text`` states of one person ("Lucía: Vivo en Valencia." or "Lucía vive en Valencia.")."""
        speaker, _, said = text.partition(": ")
        first_person = bool(said) and len(speaker.split()) <= 3 and not re.search(r"[.!?]", speaker)
        if not first_person:
            speaker, said = "", text
            first_person = self.first_person.search(text) is not None
        found = Statement(speaker=speaker.strip().lower())
        covered = True
        for sentence in (s.strip() for s in self.sentences.split(said)):
            if not sentence:
                continue
            if not first_person:
                who, sentence = self._in_first_person(sentence)
                if who and found.speaker and who != found.speaker:
                    covered = False  # another person: this text is not about one
                    continue
                found.speaker = found.speaker or who
            slots, whole = self._sentence_slots(sentence, found.hints)
            found.slots.update(slots)
            covered = covered and whole
        found.whole = covered and bool(found.slots)
        return found

    def _in_first_person(self, sentence: str) -> tuple[str, str]:
        """("lucía", "vivo en Valencia") for "Lucía vive en Valencia"; no person named: ("", the sentence)."""
        match = self.subject.match(sentence)
        if not match or match.group("who").split()[0].lower() in self.not_subjects:
            return "", sentence
        words = match.group("rest").split(" ")
        for i, word in enumerate(words[:3]):
            words[i] = self.first_person_verbs.get(word.lower(), word)
        return match.group("who").lower(), " ".join(words)

    def _sentence_slots(self, sentence: str, found_hints: set[str]) -> tuple[dict[str, str], bool]:
        """The attributes a sentence states, and whether that is all it says."""
        sentence = sentence.strip().lstrip(self.opening)
        if sentence.endswith("?") or self.conditional.search(sentence):
            return {}, False
        slots: dict[str, str] = {}
        whole = True
        for clause in self.clauses.split(sentence.rstrip(".!")):
            stated = self._clause_slot(clause.strip())
            if stated is None:
                whole = False
                continue
            slot, value, hints, rest = stated
            slots[slot] = value
            found_hints.update(hints)
            whole = whole and not rest.strip()
        return slots, whole and bool(slots)

    def _clause_slot(self, clause: str) -> tuple[str, str, tuple[str, ...], str] | None:
        """(attribute, value, words a statement of it contains, what follows the value) of the first pattern the
        clause states, if any."""
        for pattern in self.patterns:
            match = pattern.regex.match(clause)
            if not match:
                continue
            rest = clause[match.end() :]
            if pattern.value is not None and "v" not in pattern.regex.groupindex:
                return pattern.slot, pattern.value, pattern.hints, rest
            raw = match.group("v").strip()
            stop = self.value_stop.search(raw)
            value, more = (raw[: stop.start()], raw[stop.start() :]) if stop else (raw, "")
            if pattern.strict and (more.strip() or rest.strip()):
                continue  # "no me gusta el café por la noche" says nothing of coffee
            words = self.article.sub("", value.strip()).lower().split()
            if not 0 < len(words) <= 4 or words[0] in self.not_things:
                continue
            value = " ".join(words)
            if pattern.slot == "residence" and words[0] in self.not_homes:
                continue
            if pattern.mapped is not None:
                value = pattern.mapped.get(value, value)
            if pattern.slot in self.normal:
                value = self.normal[pattern.slot](value)
            what = (match.groupdict().get("what") or "").lower().strip()
            slot = pattern.slot.format(value if pattern.value else what)
            if pattern.negated:
                value = f"not {value}"
            hints = pattern.hints or tuple((value if pattern.value else what).split())
            return slot, pattern.value or value, hints, more + rest
        return None
