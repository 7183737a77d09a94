"""Reading what a text states: the one-valued attributes of one person it gives a value (no database).

An attribute has one value at a time: where a person lives, where and as what they work, their name or age, a
favourite, a value of theirs such as a birthday or an address, or whether they like a thing ("I love sushi" → "I
don't like sushi anymore"). Statements are plain sentences about one person, in their own words ("Alice: I live in
Berlin", an offline fact) or the LLM's ("Alice lives in Berlin"); questions and conditionals state nothing. A text
is ``whole`` when everything it says is such a statement, so retiring it retires nothing else it says.

The same reading keeps two facts apart that only look alike: texts with other numbers, or other values of one
attribute, are never near-duplicates of each other ("I am 31 years old" / "I am 32 years old" are 0.98 similar).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memories.text import SENTENCE

_END = r"(?P<v>[^,.;:!?()\"]+)"
_FILLER = (
    r"now|currently|still|already|again|too|also|anymore|any more|these days|lately|recently|today|"
    r"at the moment|for now|so much|a lot|very much"
)
# Where a value ends: the next clause, or a time, place or manner said of it.
_VALUE_STOP = re.compile(
    r"\s+(?:and|but|because|since|with|for|from|in|on|at|by|last|this|next|after|before|when|while|so|as|"
    r"to|until|ago|yesterday|about|" + _FILLER + r")\b.*$|\s+\d.*$",
    re.I,
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some)\s+", re.I)
_NOT_THINGS = frozenset(
    "it that this them these those you your him her me us everything anything something all to for how what why when "
    "where who see have be".split()
)
_VERB = (
    r"(?:like|love|enjoy|adore|eat|drink|play|watch|do|"
    r"liking|loving|enjoying|eating|drinking|playing|watching|doing)"
)
_DIETS = r"vegetarian|vegan|pescatarian|carnivore|keto|paleo|gluten-free|dairy-free|lactose-free|kosher|halal"
_DIET_HINTS = ("vegetarian", "vegan", "pescatarian", "meat", "diet", "keto")
_ATTRIBUTES = (
    "name|birthday|email|email address|e-mail|phone number|number|address|home address|job|job title|title|role|"
    "employer|boss|manager|salary|age|hometown|home town|diet|pronouns|timezone|time zone|team|school|university|"
    "major|car"
)


@dataclass(frozen=True)
class _Pattern:
    slot: str  # the attribute; "{0}" takes the pattern's "what" group
    regex: re.Pattern
    value: str | None = None  # a fixed value (likes: yes or no); None: the "v" group
    strict: bool = False  # the value must end its clause (a qualifier after it changes what is said)
    entire: bool = False  # the value runs to the clause's end ("May 3", "Alice Smith")
    hints: tuple[str, ...] = ()  # words a statement of it contains (to find one by full text); none: its words
    negated: bool = False  # the value is said to hold no more ("no longer vegetarian": "not vegetarian")


_LEAD = r"^(?:so |well |oh |yeah |actually |and |but |now |also |anyway |finally )*"


def _p(slot: str, pattern: str, **kwargs) -> _Pattern:
    return _Pattern(slot, re.compile(_LEAD + pattern, re.I), **kwargs)


_PATTERNS = [
    _p(
        "residence",
        # "we" too: where the speaker's family lives is where they live ("We moved from Lisbon to Porto").
        r"(?:i|we)(?:'m| am|'re| are|'ve| have)?(?: now| currently| just)* (?:live|living|moved|relocated)"
        r"(?: back)?(?: from [^,.;:!?]+?)? (?:in|to) " + _END,
        hints=("live", "living", "moved", "relocated"),
    ),
    _p(
        "employer",
        r"i(?:'m| am)?(?: now| currently| still)* (?:work|working) (?:at|for) " + _END,
        hints=("work", "working"),
    ),
    _p("occupation", r"i(?: now| currently| still)* work as (?:an? )?" + _END, hints=("work",)),
    _p("name", r"(?:my name is|call me) " + _END, hints=("name", "call"), entire=True),
    _p("age", r"i(?: am|'m) (?P<v>\d{1,3}) years? old", hints=("old",)),
    _p(
        "favourite {0}",
        r"my (?:new |current |all-time )?favou?rite (?P<what>[\w' -]{2,30}?) (?:is|are|has become) " + _END,
        hints=("favourite", "favorite"),
    ),
    _p("{0}", r"my (?:new |current )?(?P<what>" + _ATTRIBUTES + r") is " + _END, entire=True),
    _p(
        "likes {0}",
        r"i (?:really |absolutely |still |just |totally )?(?:like|love|enjoy|adore) (?:" + _VERB + r" )?" + _END,
        value="yes",
        strict=True,
    ),
    _p(
        "likes {0}",
        r"i (?:really )?(?:(?:don't|do not|no longer)(?: really)? " + _VERB + r"|(?:can't stand|cannot stand|hate|"
        r"dislike|stopped|quit|gave up)(?: " + _VERB + r")?) " + _END,
        value="no",
        strict=True,
    ),
    # Where one works, changed: "I joined Globex", "I quit my job at Acme" (then: not at Acme).
    _p(
        "employer",
        r"(?:i|we)(?: just| recently| finally)* "
        r"(?:joined|started (?:working |a new job )?at|got a job at|was hired by) " + _END,
        hints=("joined", "started", "job", "hired", "work"),
    ),
    _p(
        "employer",
        r"i(?: just| finally)* (?:quit|left)(?: my job| my position| working)?(?: at| with)? " + _END,
        hints=("quit", "left", "job", "work"),
        negated=True,
    ),
    # A new title: "I got promoted to QA lead".
    _p(
        "occupation",
        r"i(?: just| finally)* (?:got |was |have been |'ve been )?promoted to (?:an? )?" + _END,
        hints=("promoted", "work"),
    ),
    # Where one is now: "I'm based in Bergen", "I'm in Bergen now".
    _p(
        "residence",
        r"(?:i|we)(?:'m| am|'re| are)(?: now)? (?:based|living|settled) in " + _END,
        hints=("live", "living", "moved", "relocated", "based"),
    ),
    _p(
        "residence",
        r"(?:i|we)(?:'m| am|'re| are) in (?P<v>[^,.;:!?()\"]+?) now\b",
        hints=("live", "living", "moved", "relocated", "based"),
    ),
    # A diet: "I am vegetarian", "I'm vegan now", "I am no longer vegetarian", "I eat meat again".
    _p(
        "diet",
        r"i(?:'m| am|'ve been| have been|'ve gone| have gone|'ve become| have become|'m now)"
        r"(?: now| currently| strictly| fully| completely)* (?:an? )?(?P<v>" + _DIETS + r")\b",
        hints=_DIET_HINTS,
    ),
    _p(
        "diet",
        r"i(?:'m| am) (?:no longer|not(?: \w+)?) (?:an? )?(?P<v>" + _DIETS + r")\b",
        hints=_DIET_HINTS,
        negated=True,
    ),
    _p("diet", r"i (?:eat|started eating) (?P<v>meat|fish) again", hints=("eat", "meat", "fish"), value="omnivore"),
    # A state of the speaker, said to have ended: "I am no longer married", "I'm not a student anymore" (then
    # what said it held is restated).
    _p("is {0}", r"i(?:'m| am) (?:no longer|not) (?:an? )?" + _END, value="no", strict=True),
    _p("is {0}", r"i(?:'m| am)(?: now| currently)* (?:an? )?" + _END, value="yes", strict=True),
]
_QUALIFIER = re.compile(r"^\s*(?:(?:" + _FILLER + r")\b\s*)*$", re.I)
# What may follow a value without stating more: time words, a date, a place.
_COVERED = re.compile(
    r"^\s*(?:(?:" + _FILLER + r")\b\s*|(?:last|this|next) \w+\s*|(?:in|since|on|from|at) [\w ]{1,24}?\s*"
    r"|for (?:about |over |almost |nearly |the (?:last|past) )?(?:a|an|one|two|three|four|five|six|seven|eight|"
    r"nine|ten|\d+|a few|several|many) (?:days?|weeks?|months?|years?)\s*"
    r"|(?:a|an|one|two|three|a few|\d+) (?:days?|weeks?|months?|years?) ago\s*)*$",
    re.I,
)
_NAME_ONLY = re.compile(r"(?:[A-Z][\w'.-]*\s*){1,3}")
_CONDITIONAL = re.compile(r"\b(?:if|would|could|might|maybe|perhaps|wish|hope|unless)\b", re.I)


@dataclass
class Statement:
    """What a text states of its speaker's one-valued attributes: ``slots`` maps an attribute to its value;
    ``whole`` when every sentence states one and says no more (retiring the text then retires nothing else it
    says)."""

    speaker: str
    slots: dict[str, str] = field(default_factory=dict)
    hints: set[str] = field(default_factory=set)
    whole: bool = False


def statement(text: str) -> Statement:
    """Read ``text`` for the attributes it states of one person: "Speaker: I live in Berlin." (offline facts are
    the speaker's own words) or "Alice lives in Berlin." (the LLM's facts name their subject; "she" goes on with
    it)."""
    speaker, _, said = text.partition(": ")
    first_person = bool(said) and len(speaker.split()) <= 3 and not re.search(r"[.!?]", speaker)
    if not first_person:
        speaker, said = "", text
        # A turn of no named speaker, in their own words ("I live in Leeds. Boxes everywhere."): first person too,
        # so that a capitalised word opening a sentence is not taken for someone else.
        first_person = _FIRST_PERSON.search(text) is not None
    found = Statement(speaker=speaker.strip().lower())
    covered = True
    for sentence in (s.strip() for s in SENTENCE.split(said)):
        if not sentence:
            continue
        if not first_person:
            who, sentence = _in_first_person(sentence)
            if who and found.speaker and who != found.speaker:
                covered = False  # another person: this text is not about one
                continue
            found.speaker = found.speaker or who
        slots, whole = _sentence_slots(sentence, found.hints)
        found.slots.update(slots)
        covered = covered and whole
    found.whole = covered and bool(found.slots)
    return found


_FIRST_PERSON = re.compile(r"(?:^|[.!?]\s+)(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b", re.I)
_SUBJECT = re.compile(r"^(?P<who>She|He|They|[A-Z][\w-]+(?: [A-Z][\w-]+){0,2})(?P<poss>['’]s)?\s+(?P<rest>.+)$")
_NOT_SUBJECTS = frozenset(
    "i my the a an our this that it we you in on at since after before when if last yesterday today his her their "
    "there here so then".split()
)
_PRONOUNS = frozenset(["she", "he", "they"])
_FIRST_PERSON_VERBS = {
    "lives": "live", "works": "work", "is": "am", "has": "have", "does": "do", "doesn't": "don't", "likes": "like",
    "loves": "love", "enjoys": "enjoy", "adores": "adore", "hates": "hate", "dislikes": "dislike", "eats": "eat",
    "drinks": "drink", "plays": "play", "watches": "watch",
}  # fmt: skip


def _in_first_person(sentence: str) -> tuple[str, str]:
    """("alice", "I live in Berlin") for "Alice lives in Berlin", ("alice", "my birthday is May 3") for "Alice's
    birthday is May 3"; a pronoun subject gives "" for the person. No person: ("", the sentence)."""
    match = _SUBJECT.match(sentence)
    if not match or match.group("who").split()[0].lower() in _NOT_SUBJECTS:
        return "", sentence
    who = match.group("who").lower()
    words = match.group("rest").split(" ")
    if match.group("poss"):
        return ("" if who in _PRONOUNS else who), "my " + " ".join(words)
    for i, word in enumerate(words[:3]):
        words[i] = _FIRST_PERSON_VERBS.get(word.lower(), word)
    return ("" if who in _PRONOUNS else who), "I " + " ".join(words)


def _sentence_slots(sentence: str, found_hints: set[str]) -> tuple[dict[str, str], bool]:
    """The attributes a sentence states, and whether that is all it says (each clause a statement, followed by no
    more than a time or a place)."""
    if sentence.endswith("?") or _CONDITIONAL.search(sentence):
        return {}, False
    slots: dict[str, str] = {}
    whole = True
    for clause in re.split(r",\s+|;\s+|\s+but\s+|\s+and\s+(?=i\b)", sentence.rstrip(".!"), flags=re.I):
        stated = _clause_slot(clause.strip())
        if stated is None:
            # "I live in Paris, France": a name going on with the value says no more.
            whole = whole and bool(slots) and bool(_NAME_ONLY.fullmatch(clause.strip()))
            continue
        slot, value, rest, hints = stated
        slots[slot] = value
        found_hints.update(hints)
        whole = whole and bool(_COVERED.match(rest))
    return slots, whole


def _clause_slot(clause: str) -> tuple[str, str, str, tuple[str, ...]] | None:
    """(attribute, value, what follows the value, words a statement of it contains) of the first pattern the clause
    states, if any."""
    for pattern in _PATTERNS:
        match = pattern.regex.match(clause)
        if not match:
            continue
        raw = match.group("v").strip()
        stop = None if pattern.entire else _VALUE_STOP.search(raw)
        value, rest = (raw[: stop.start()], raw[stop.start() :]) if stop else (raw, "")
        rest += clause[match.end() :]  # "I live in Munich: the capital of Bavaria" says more
        if pattern.strict and rest and not _QUALIFIER.match(rest):
            continue  # "I don't like sushi for breakfast" says nothing of sushi
        words = _ARTICLE.sub("", value.strip()).lower().split()
        if not 0 < len(words) <= 4 or (pattern.value and words[0] in _NOT_THINGS):
            continue
        value = " ".join(words)
        what = (match.groupdict().get("what") or "").lower().strip().replace("color", "colour")
        slot = pattern.slot.format(value if pattern.value else what)
        if pattern.negated:
            value = f"not {value}"
        return slot, pattern.value or value, rest, pattern.hints or tuple((value if pattern.value else what).split())
    return None


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


def apart(old_text: str, new_text: str) -> bool:
    """Two texts that must not count as near-duplicates however similar: other numbers, or another value of an
    attribute both state."""
    if sorted(re.findall(r"\d+", old_text)) != sorted(re.findall(r"\d+", new_text)):
        return True
    old, new = statement(old_text), statement(new_text)
    return old.speaker == new.speaker and any(
        slot in new.slots and not _same(value, new.slots[slot]) for slot, value in old.slots.items()
    )


# What a speaker says has ended: "we sold the Clio", "I gave up on guitar", "no more nights", "I don't drink coffee
# anymore", "we've cancelled the Norway cruise", "we lost Luna last week".
_ENDED = (
    re.compile(
        r"\b(?:sold|gave up(?: on)?|given up(?: on)?|quit|lost|cancell?ed|dropped|broke up with|no more)\s+"
        r"(?:my |our |the |a |an |his |her |their )?(?P<thing>[\w'’-]+(?: [\w'’-]+){0,2})",
        re.I,
    ),
    re.compile(
        r"\b(?:don't|do not|doesn't|does not|am not|'m not|is not|isn't|no longer)\s+(?:\w+\s+)?"
        r"(?:an? )?(?P<thing>[\w'’-]+)\s+(?:anymore|any more)\b",
        re.I,
    ),
    re.compile(r"(?:\b(?:am|is|are)|'m|'s|'re) no longer\s+(?:an? )?(?P<thing>[\w'’-]+)", re.I),
    re.compile(
        r"\bno longer (?:drinks?|eats?|smokes?|plays?|owns?|has|have|drives?|works? (?:at|for)|lives? in)\s+"
        r"(?:the |my |a |an |his |her )?(?P<thing>[\w'’-]+(?: [\w'’-]+)?)",
        re.I,
    ),
)
# Words of an ended thing that name nothing of its own.
_GENERIC = frozenset("job work place one thing things stuff it that this".split())
_TIME_WORDS = frozenset("last this next yesterday today ago week weeks month months year years now".split())


def ended(text: str) -> list[frozenset[str]]:
    """The things ``text`` says have ended, each as the words that name it ("the Norway cruise": norway, cruise)."""
    found: list[frozenset[str]] = []
    for pattern in _ENDED:
        for match in pattern.finditer(text):
            words: list[str] = []
            for word in match.group("thing").lower().replace("’", "'").split():
                if word in _TIME_WORDS:
                    break
                words.append(re.sub(r"'s$", "", word))
            named = frozenset(w for w in words if w not in _GENERIC and len(w) > 2 and w not in _NOT_THINGS)
            if named and named not in found:
                found.append(named)
    return found
