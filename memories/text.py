"""Reading plain text: its content words and sentences, whether it says anything (salience), the names and topics it
mentions.

Shared by ingest (the salience gate, the offline extractor, the restated-statement reader), the context block,
ask's extractive answers and archived conversations. No database, no LLM.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here hers
    herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
    once only or other our ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves also really yeah yes yep okay ok oh hey hi
    hello thanks thank bye lol wow sure cool great nice good awesome well much many one get got going go like just
    i'm it's that's you're i've i'll don't can't didn't won't let's there's what's""".split()
)
TRIVIAL = frozenset(
    "hi hello hey thanks thank you ok okay bye goodbye sure yes no yeah yep lol haha cool great nice good awesome wow "
    "morning evening night welcome please sorry np ty thx cheers".split()
)
# Words that make even a short turn worth keeping: the speaker says something about themselves.
DURABLE = re.compile(
    r"\b(i|we)\s+(?:[\w']+\s+)?(am|was|have|had|live|lived|work|worked|like|love|prefer|hate|dislike|enjoy|use|want|"
    r"need|own|moved|started|stopped|finished|bought|adopted|got|went|visited|play|joined|quit|married|"
    r"relocated|left|switched|became|retired|divorced|graduated|sold|lost|cancell?ed|gave|promoted|transferred)\b|"
    r"\b(i'm|i've|my|our|call me|name is|born|birthday)\b|"
    # A change of state is never small talk, however short: "We just relocated to Rome.", "Not vegan anymore!"
    r"\b(no longer|anymore|any more|not \w+ now|big news|news:|relocat\w*|moved (?:to|in|out|back|away))\b",
    re.I,
)
MIN_CONTENT_WORDS = 3
# Words of any script ("Pitié", "Müller"), of two characters or more, and numbers.
WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-])+|\d+")
NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-])+")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
# Where a sentence ends, read more widely: lower case too ("Mainly food. my girlfriend Ama says…": people chat in
# lower case), but not after a title or an abbreviation ("Dr. Lena", "e.g. pasta"). For reading what a text states;
# a memory is not cut there (a short answer in lower case says nothing without what it answers).
ANY_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!Mrs\.)"
    r"(?<!\bSt\.)(?<!\bNo\.)\s+(?=\S)"
)


def stems(words: list[str]) -> frozenset[str]:
    """Words cut to their first five letters, a possessive or an apostrophe off: "moved" and "move", "allergic"
    and "allergy", "Clio's" and "Clio" meet."""
    return frozenset(re.sub(r"['’]s$|['’]", "", w)[:5] for w in words)


def content_words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in WORD.finditer(text)) if w not in STOPWORDS and w not in TRIVIAL]


@lru_cache(maxsize=4096)  # a job asks of each turn, then of each of its segments (mostly the turn itself)
def is_salient(text: str) -> bool:
    """Greetings, thanks and turns that assert nothing are skipped without an LLM call."""
    words = len(content_words(text))
    return words >= MIN_CONTENT_WORDS or (words >= 1 and DURABLE.search(text) is not None)


def entities_guess(text: str, speaker: str) -> list[str]:
    found: list[str] = []
    if speaker:
        found.append(speaker.lower())
    for sentence in SENTENCE.split(text):
        for i, run in enumerate(_capitalised_runs(sentence)):
            name = sentence[run[0].start() : run[-1].end()]
            # The first word of a sentence is capitalised anyway; keep it only if it is a multi-word name.
            if (i == 0 and run[0].start() == 0 and len(run) == 1) or name.lower() in STOPWORDS:
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


# What opens a sentence without stating anything: "Big news: I moved to Berlin!", "Guess what, I quit."
_OPENER = re.compile(
    r"^(?:(?:(?:big|good|great|some|exciting|sad|bad|happy) news|guess what|update|fyi|btw|by the way|anyway|"
    r"oh|so|well|hey|ok|okay|yes|yeah|no|wow|haha|lol|ugh)\s*[:!,.\-–—]+|"
    # A heading of one to three words and a colon ("Confession:", "Random update:", "Change of plans:").
    r"[A-Za-z][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
# Where a sentence holds two statements: a new clause with its own subject ("…, and I am allergic to nuts", "…, so
# I'm learning Japanese").
_CLAUSE = re.compile(r";\s+|,?\s+(?:and|but)\s+(?=(?:i|we)\b)|,\s+so\s+(?=(?:i|i'm|we|we're)\b)", re.I)


def _clauses(sentence: str) -> list[tuple[str, str]]:
    """The sentence cut where a clause with its own subject begins, each clause with the words it was cut at (none
    for the first), unless what comes before is too short to be a clause or only names who does it with the speaker
    ("Kasia and I got engaged", "My boyfriend Hugo and I have been together three years" stay whole)."""
    out: list[tuple[str, str]] = []
    start, cut = 0, ""
    for match in _CLAUSE.finditer(sentence):
        before = sentence[start : match.start()]
        if len(before.split()) >= 3 and not _COMPANION.search(before):
            out.append((cut, before))
            start, cut = match.end(), match.group(0)
    return [*out, (cut, sentence[start:])]


# Who does something with the speaker, named just before "and I" ("My boyfriend Hugo", "Me and my mate Kev", "Also
# random but my girlfriend Chloe", "Kasia").
_COMPANION = re.compile(r"(?:^|\s)(?:[Mm]y|[Oo]ur) (?:[\w'-]+ ){1,2}?[A-Z][\w'-]+$|^[A-Z][\w'-]+$")


# A sentence saying who or what someone named before is ("He's my golden retriever", "Her name is Pixel"): alone, it
# names no one. LoCoMo offline R@5 / R@10: 0.620 / 0.721 so; 0.611 / 0.721 keeping every sentence that opens on a
# pronoun with the one before; 0.613 / 0.724 keeping none.
_BACK_REFERENCE = re.compile(
    r"^(?:(?:his|her|their|its) name(?:'s| is)|(?:he|she|it)(?:'s| is) (?:my|our|a|an|the|called|named)\b)", re.I
)


# A favourite named without a verb: what it is, the statement before says ("Severance is incredible. My favourite
# show now!").
_FAVOURITE_ALONE = re.compile(r"^(?:my|our) (?:new |current |all-time )?(?:favou?rite|fave)\b", re.I)
_VERB_OF_FAVOURITE = re.compile(r"\b(?:is|are|was|were|has|have|remains|stays|became)\b", re.I)


def _goes_on(before: str, part: str) -> bool:
    """Whether ``part`` says nothing without the statement before it: it says who or what one named there is ("We
    adopted a kitten! Her name is Pixel."), names a favourite without saying what ("…Severance is incredible. My
    favourite show now."), or it is the short answer to the question that one asked ("Can gluten intolerance show
    up in your 30s? I just got diagnosed.")."""
    if _BACK_REFERENCE.match(part):
        return True
    if _FAVOURITE_ALONE.match(part) and not _VERB_OF_FAVOURITE.search(part):
        return True
    return before.rstrip().endswith("?") and len(content_words(part)) < MIN_CONTENT_WORDS


def statements_of(text: str) -> list[str]:
    """The statements a text makes, each saying one thing: its sentences, and the clauses of a sentence with a
    subject of their own, without an opener that says nothing ("Big news:"). What is too slight to stand alone
    ("Yes, in May.") stays with the statement before it (or, first, the one after), so nothing said is lost; so does
    what opens on a person named before it ("Her name is Pixel.") and the short answer to a question asked before
    it ("…in your 30s? I just got diagnosed.")."""
    parts: list[tuple[str, str, str]] = []  # (the words it was cut at, as stated, as written)
    for sentence in SENTENCE.split(text.strip()):
        for n, (cut, clause) in enumerate(_clauses(sentence.strip())):
            written = clause.strip()
            clause = _OPENER.sub("", written).strip()
            if clause:
                said = clause[0].upper() + clause[1:] if clause[0].islower() else clause
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
