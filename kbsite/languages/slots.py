"""How a Spanish or Portuguese reader of statements reads a sentence's attributes: the language gives its patterns
(a verb of the attribute and what follows it) and its words; a clause and a sentence are read alike in both.

A clause states the first attribute whose pattern it opens with, its value running to where the language's
``value_stop`` ends it; a sentence is read clause by clause, parted where the language parts them, and "as what one
works" may be followed by where ("trabajo de enfermera en el Hospital La Fe", "trabalho como motorista numa
frota").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbsite.languages.dates import a_month
from kbsite.languages.reading import Statement, read_statement


@dataclass(frozen=True)
class Pattern:
    slot: str  # the attribute; "{0}" takes the pattern's "what" group
    regex: re.Pattern
    value: str | None = None  # a fixed value; None: the "v" group
    strict: bool = False  # the value must end its clause
    hints: tuple[str, ...] = ()  # words a statement of it contains (to find one by full text)
    negated: bool = False  # the value is said to hold no more
    mapped: dict | None = None  # the value read through this mapping
    not_first: frozenset[str] = frozenset()  # a value opening on one of these is none of this attribute's


def patterns_led_by(lead: str):
    """A maker of patterns, each opening on the language's ``lead`` (what may come before a statement's verb: "pues",
    "então"…), matched in any case."""

    def pattern(slot: str, regex: str, **kwargs) -> Pattern:
        return Pattern(slot, re.compile(lead + regex, re.I), **kwargs)

    return pattern


@dataclass(frozen=True)
class SlotReader:
    """One language's patterns and words, read the same way."""

    sentences: re.Pattern  # where a text's sentences part
    first_person: re.Pattern  # a text in its speaker's own words ("me", "mi", "soy"…)
    subject: re.Pattern  # an LLM's fact opening on whom it is about ("Lucía vive en…"): "who" and "rest" groups
    not_subjects: frozenset[str]  # capitalised openings that name no one ("El", "Hoy")
    first_person_verbs: dict[str, str]  # the third person's forms and the first's ("vive": "vivo")
    patterns: list[Pattern]
    value_stop: re.Pattern  # where a value ends (the next clause, or a time, place or manner said of it)
    article: re.Pattern  # an article or possessive opening a value, left out of it
    not_things: frozenset[str]  # what is no value ("eso", "isso")
    work_nouns: frozenset[str]  # places of work, no home ("la oficina de Madrid")
    conditional: re.Pattern  # a condition or a wish: the sentence states nothing
    clauses: re.Pattern  # where a sentence's clauses part
    works_at: re.Pattern  # where one works, said after as what ("… en el Hospital La Fe")
    job_hints: tuple[str, ...]
    openers: str = ""  # marks opening a sentence ("¡¿")

    def statement(self, text: str, own: bool | None = None) -> Statement:
        """What ``text`` states of one person, in their own words ("Lucía: Vivo en Valencia.") or an LLM's
        ("Lucía vive en Valencia."); ``own`` as :func:`~kbsite.languages.reading.read_statement` takes it."""
        return read_statement(
            text,
            sentences=self.sentences,
            first_person=self.first_person,
            in_first_person=self.in_first_person,
            sentence_slots=self.sentence_slots,
            own=own,
        )

    def in_first_person(self, sentence: str) -> tuple[str, str]:
        """("lucía", "vivo en Valencia") for "Lucía vive en Valencia"; no person named: ("", the sentence)."""
        match = self.subject.match(sentence)
        if not match or match.group("who").split()[0].lower() in self.not_subjects:
            return "", sentence
        words = match.group("rest").split(" ")
        for i, word in enumerate(words[:3]):
            words[i] = self.first_person_verbs.get(word.lower(), word)
        return match.group("who").lower(), " ".join(words)

    def sentence_slots(self, sentence: str, found_hints: set[str]) -> tuple[dict[str, str], bool]:
        """The attributes a sentence states, and whether that is all it says."""
        sentence = sentence.strip().lstrip(self.openers)
        if sentence.endswith("?") or self.conditional.search(sentence):
            return {}, False
        slots: dict[str, str] = {}
        whole = True
        for clause in self.clauses.split(sentence.rstrip(".!")):
            stated = self.clause_slot(clause.strip())
            if stated is None:
                whole = False
                continue
            slot, value, hints, rest = stated
            slots[slot] = value
            found_hints.update(hints)
            if slot == "occupation" and (where := self.works_at.match(rest)):
                # "trabajo de enfermera en el Hospital La Fe": as what, then where.
                place = self.article.sub("", where.group("v").strip())
                slots["employer"] = self.value_stop.sub("", place).lower()
                found_hints.update(self.job_hints)
                rest = rest[where.end() :]
            whole = whole and not rest.strip()
        return slots, whole and bool(slots)

    def clause_slot(self, clause: str) -> tuple[str, str, tuple[str, ...], str] | None:
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
            if not 0 < len(words) <= 4 or words[0] in self.not_things or a_month(words[0]):
                continue  # "empiezo en septiembre": a time, no employer
            if words[0] in pattern.not_first:
                continue  # "vivo en las nubes": an idiom, no home
            value = " ".join(words)
            if pattern.slot == "residence" and words[0] in self.work_nouns:
                continue
            if pattern.mapped is not None:
                value = pattern.mapped.get(value, value)
            if pattern.slot == "diet":
                value = re.sub(r"[ao]s?$", "o", value)  # "vegetariana", "vegetarianos": one diet
            what = (match.groupdict().get("what") or "").lower().strip()
            slot = pattern.slot.format(value if pattern.value else what)
            if pattern.negated:
                value = f"not {value}"
            hints = pattern.hints or tuple((value if pattern.value else what).split())
            return slot, pattern.value or value, hints, more + rest
        return None
