"""Reading plain text: its content words and sentences, whether it says anything (salience), the names and topics it
mentions.

Shared by ingest (the salience gate, the offline extractor, the restated-statement reader), the context block,
ask's extractive answers and archived conversations. No database, no LLM.
"""

from __future__ import annotations

import re
from collections import Counter

from kbsite import languages
from kbsite.languages.text import (  # noqa: F401 - read from here by ingest, recall and archives
    MIN_CONTENT_WORDS,
    NAME_WORD,
    SENTENCE,
    WORD,
    any_sentences,
    content_words,
    is_salient,
    stems,
)

# How an offline fact that is a short answer keeps the bot's question it answers ("Kiwi fruit (answering: Any
# allergies?)"): the question is the bot's, not the user's statement.
ANSWERING = " (answering: "


def entities_guess(text: str, speaker: str) -> list[str]:
    found: list[str] = []
    if speaker:
        found.append(speaker.lower())
    for sentence in SENTENCE.split(text):
        for i, run in enumerate(_capitalised_runs(sentence)):
            name = sentence[run[0].start() : run[-1].end()]
            # The first word of a sentence is capitalised anyway; keep it only if it is a multi-word name.
            opening = i == 0 and run[0].start() == 0 and len(run) == 1
            if opening or name.lower() in languages.current().words.STOPWORDS:
                continue
            found.append(name.lower())
    out: list[str] = []
    for name in found:
        if name not in out:
            out.append(name)
    return out[:8]


def _capitalised_runs(sentence: str):
    """Runs of capitalised words (a capital of any script) with only spaces between them: "New York",
    "Pitié-Salpêtrière"."""
    run: list[re.Match] = []
    for match in NAME_WORD.finditer(sentence):
        capital = match.group(0)[0].isupper()
        if capital and run and sentence[run[-1].end() : match.start()].isspace():
            run.append(match)
            continue
        if run:
            yield run
        run = [match] if capital else []
    if run:
        yield run


def topics_guess(text: str) -> list[str]:
    counts = Counter(w for w in content_words(text) if len(w) >= 4 and not w.isdigit())
    return [w for w, _ in counts.most_common(3)]


def _clauses(sentence: str) -> list[tuple[str, str]]:
    """The sentence cut where a clause with its own subject begins, each clause with the words it was cut at (none
    for the first), unless what comes before is too short to be a clause or only names who does it with the speaker
    ("Kasia and I got engaged", "My boyfriend Hugo and I have been together three years" stay whole)."""
    out: list[tuple[str, str]] = []
    start, cut = 0, ""
    words = languages.current().words
    for match in words.CLAUSE.finditer(sentence):
        before = sentence[start : match.start()]
        if len(before.split()) >= 3 and not words.COMPANION.search(before):
            out.append((cut, before))
            start, cut = match.end(), match.group(0)
    return [*out, (cut, sentence[start:])]


def _goes_on(before: str, part: str) -> bool:
    """Whether ``part`` says nothing without the statement before it: it says who or what one named there is ("We
    adopted a kitten! Her name is Pixel."), names a favourite without saying what ("…Severance is incredible. My
    favourite show now."), or it is the short answer to the question that one asked ("Can gluten intolerance show
    up in your 30s? I just got diagnosed.")."""
    words = languages.current().words
    if words.BACK_REFERENCE.match(part):
        return True
    if words.FAVOURITE_ALONE.match(part) and not words.VERB_OF_FAVOURITE.search(part):
        return True
    return before.rstrip().endswith("?") and len(content_words(part)) < MIN_CONTENT_WORDS


# A run of sentences longer than this, opening in lower case ("te cuento: primera semana en Nubaria y estoy reventada.
# me han metido en el rediseño de la app…"), is cut at each sentence's end too: it says several things. Shorter
# chat in lower case stays whole ("Kiwi, weirdly. throat gets itchy."): a short answer says nothing alone.
LONG_SENTENCE = 160


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``: where one opens with a capital, and a long run of them (LONG_SENTENCE) where one
    opens in lower case too (the language's own sentence ends, not after a title or an abbreviation)."""
    return [
        part
        for sentence in SENTENCE.split(text)
        for part in (any_sentences(sentence) if len(sentence) > LONG_SENTENCE else [sentence])
    ]


def statements_of(text: str) -> list[str]:
    """The statements a text makes, each saying one thing: its sentences, and the clauses of a sentence with a
    subject of their own, without an opener that says nothing ("Big news:"). What is too slight to stand alone
    ("Yes, in May.") stays with the statement before it (or, first, the one after), so nothing said is lost; so does
    what opens on a person named before it ("Her name is Pixel.") and the short answer to a question asked before
    it ("…in your 30s? I just got diagnosed.")."""
    parts: list[tuple[str, str, str]] = []  # (the words it was cut at, as stated, as written)
    for sentence in _sentences(text.strip()):
        for n, (cut, clause) in enumerate(_clauses(sentence.strip())):
            written = clause.strip()
            clause = languages.current().words.OPENER.sub("", written).strip()
            if clause:
                # Cut from what it was said with, it opens as a sentence; a sentence stays as written.
                cut_from = n or clause != written
                said = clause[0].upper() + clause[1:] if clause[0].islower() and cut_from else clause
                parts.append((cut if n else " ", said, written))
    out: list[str] = []
    pending = ""
    for cut, part, written in parts:
        if is_salient(part) and not (out and _goes_on(out[-1], part)):
            out.append(f"{pending} {part}" if pending else part)
            pending = ""
        elif out:
            out[-1] = f"{out[-1]}{cut}{written}"  # back with the words it was cut at: "…Biarritz and I said yes!!"
        else:
            pending = f"{pending} {part}".strip()
    return out or ([text.strip()] if text.strip() else [])
