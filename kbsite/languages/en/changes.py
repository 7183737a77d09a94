"""English: reading what a text says has changed: a thing ended, called off, put to another time or done without (no
database).

"We sold the Clio", "I don't drink coffee anymore", "packed in the coffee job", "Chloe and I split up", a baby born, a
test passed, a retirement (what one said of one's work); "the Dublin trip got cancelled"; "we pushed the trip to
September", "Change of plan: Manila is happening in December now"; "walked to the pier without the stick". Each is a
:class:`Change` naming the thing by its words, which says which older texts it makes a thing of the past.
"""

from __future__ import annotations

import re

from kbsite.languages.en.statements import CONJUNCTIONS, NAME_RUN, NOT_THINGS
from kbsite.languages.reading import Change, speaker_name

# What a speaker says has ended: "we sold the Clio", "I gave up on guitar", "no more nights", "I don't drink coffee
# anymore", "we've cancelled the Norway cruise", "we lost Luna last week".
_ENDED = (
    re.compile(
        r"\b(?:sold|gave up(?: on)?|given up(?: on)?|quit|lost|cancell?ed|dropped(?: out of)?|broke up with|no more|"
        r"packed in|jacked in|goodbye(?: to)?|bye bye)\s+"
        r"(?:my |our |the |a |an |his |her |their )?(?P<thing>[\w'’-]+(?: [\w'’-]+){0,2})",
        re.I,
    ),
    re.compile(
        r"\b(?:don't|do not|doesn't|does not|am not|'m not|is not|isn't|no longer|no)\s+(?:\w+\s+)?"
        r"(?:an? )?(?P<thing>[\w'’-]+)\s+(?:anymore|any more)\b",
        re.I,
    ),
    re.compile(r"(?:\b(?:am|is|are)|'m|'s|'re) no longer\s+(?:an? )?(?P<thing>[\w'’-]+)", re.I),
    # "I've stopped playing five-a-side", "stopped driving for Uber", "Left Pintxo at the end of August" (a name:
    # "left the office at six" ends nothing).
    re.compile(
        r"\bstopped\s+(?:\w+ing\s+)?(?:(?:for|at|with|to|in)\s+)?(?:my |our |the |a |an )?"
        r"(?P<thing>[\w'’-]+(?: [\w'’-]+){0,2})",
        re.I,
    ),
    re.compile(r"\b(?:left|leaving)\s+(?:my job (?:at|with)\s+)?(?P<thing>(?-i:[A-Z])[\w'’-]+(?: [\w'’-]+)?)", re.I),
    # Ended with someone: "Chloe and I split up", "we broke up".
    re.compile(
        r"\b(?P<thing>(?-i:[A-Z])[\w'’-]+) and (?:i|me)(?: just| finally| have| 've)? (?:split|broke) up\b", re.I
    ),
    re.compile(
        r"\bno longer (?:drinks?|eats?|smokes?|plays?|owns?|has|have|drives?|works? (?:at|for)|lives? in)\s+"
        r"(?:the |my |a |an |his |her )?(?P<thing>[\w'’-]+(?: [\w'’-]+)?)",
        re.I,
    ),
)
# Words of an ended thing that name nothing of its own.
_GENERIC = frozenset("job work place one thing things stuff it that this".split())
# Words that end the naming of a thing: what follows is another clause or a time, place or manner.
_THING_ENDS = frozenset(
    "and but or so because since to for with in at on from as after before when while until then about of".split()
)
_ARTICLES = frozenset("the an".split())
_TIME_WORDS = frozenset("last this next yesterday today ago week weeks month months year years now".split())


# Studies ended: "I defended!", "I graduated in May", "I finished my PhD" (no longer a student).
_GRADUATED = re.compile(
    r"\b(?:i|we)(?: just| finally| officially)* (?:defended|graduated|passed my (?:viva|defen[cs]e)|"
    r"(?:finished|completed) my (?:phd|doctorate|degree|studies|master'?s|thesis))\b",
    re.I,
)


# A plan called off, said of the plan: "the Dublin trip got cancelled", "the wedding's been called off".
_CALLED_OFF = re.compile(
    r"\b(?:the |our |my )(?P<thing>[\w'’-]+(?: [\w'’-]+)?)(?:'s| got| was| has been|'s been| is| were| have been)"
    r" (?:cancell?ed|called off|scrapped|off)\b",
    re.I,
)
# A baby born: no longer expecting ("Eleni arrived on 2 November", "our son was born").
_BORN = re.compile(
    r"\b(?:was born|were born|gave birth|had (?:the|a|our) baby|baby (?:is here|arrived)|"
    r"(?-i:[A-Z])[\w'-]+ arrived (?:on|last|yesterday|this|early|safely|at))\b",
    re.I,
)
# Retired: one's work is a thing of the past ("I retired on Friday", "Officially a retiree").
_RETIRED = re.compile(
    r"\b(?:i(?:'m| am|'ve| have)?|officially|finally|now)(?: just| finally| officially| now)* (?:a |been )?"
    r"(?:retired|retiree)\b",
    re.I,
)
# What says one works somewhere, at something: what a retirement makes a thing of the past.
WORK_WORDS = (
    "work works working job teach teaching coach coaching shift shifts employed office colleague colleagues boss"
).split()
WORK_SAID = re.compile(r"\b(?:i|i'm|i am)\b.*\b(?:" + "|".join(WORK_WORDS) + r")\b", re.I)
# A test passed: no more lessons for it ("I passed my driving test": driving lessons).
_PASSED = re.compile(r"\bpassed (?:my|her|his|the|our) (?P<what>[\w'-]+) (?:test|exam)\b", re.I)


def ended(text: str) -> list[frozenset[str]]:
    """The things ``text`` says have ended, each as the words that name it ("the Norway cruise": norway, cruise)."""
    found: list[frozenset[str]] = []
    for pattern in _ENDED:
        for match in pattern.finditer(text):
            if _not_ended(match):
                continue
            named = _named(match.group("thing"))
            if named and named not in found:
                found.append(named)
    extra = []
    if _GRADUATED.search(text):
        extra.append(frozenset({"student"}))
    if _BORN.search(text):
        extra += [frozenset({"expecting"}), frozenset({"pregnant"})]
    extra += [frozenset({m.group("what").lower(), "lessons"}) for m in _PASSED.finditer(text)]
    return found + [thing for thing in extra if thing not in found]


def _not_ended(match: re.Match) -> bool:
    """Whether a thing "dropped" or "lost" is only put down or mislaid: dropped somewhere ("dropped the kids at
    school", "dropped my phone in the bath"), or lost as one loses keys, a match or track of time."""
    verb = match.group(0).split(None, 1)[0].lower()
    if verb not in ("dropped", "lost"):
        return False
    words = match.group("thing").lower().split()
    if verb == "lost":
        return words[0] in _MISLAID
    after = match.string[match.end("thing") :].split()
    return any(w in _PUT_SOMEWHERE for w in [*words[1:], *after[:1]])


# Where a thing dropped is put ("dropped the kids at school", "dropped off the parcel", "dropped my phone in the bath").
_PUT_SOMEWHERE = frozenset("at in on off into onto by down under behind".split())
# What one loses for a while, or in a game: keys, a phone, one's voice, a match, track of time, weight.
_MISLAID = frozenset(
    "keys key phone wallet purse glasses voice temper way track weight match game bet race sleep mind patience "
    "signal connection count touch sight balance time".split()
)


def _named(thing: str, generic: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words that name a thing, up to where another clause or a time begins ("my Fuji and switched": fuji)."""
    words: list[str] = []
    said = thing.lower().replace("’", "'").split()
    if said and said[0] in CONJUNCTIONS:
        return frozenset()  # "quit while you're ahead": a clause, no thing
    for word in said:
        if word in _TIME_WORDS or word in _THING_ENDS:
            if any(w not in _GENERIC for w in words):
                break  # "sold my Fuji and switched…": the Fuji
            continue  # "quit my job at Acme": Acme
        words.append(re.sub(r"'s$", "", word))
    return frozenset(
        w for w in words if w not in _GENERIC and w not in generic and len(w) > 2 and w not in NOT_THINGS | _ARTICLES
    )


# A thing put to another time: "we pushed the trip to September", "we moved the wedding to 9 August", "the
# dentist is rescheduled" is not read (no one did it).
_RESCHEDULED = re.compile(
    r"\b(?:pushed|moved|postponed|rescheduled|delayed|shifted|brought|put)\s+(?:back\s+|forward\s+|off\s+)?"
    r"(?:the|our|my|his|her|their)\s+(?P<thing>[\w'’-]+(?: [\w'’-]+)?)\s+(?:back\s+|forward\s+|off\s+)?"
    r"(?:to|till|until|for|into)\s+(?P<when>[\w ]+)",
    re.I,
)
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
# A time named: a month, a weekday, a season, a date.
TIME_NAMED = re.compile(
    r"\b(?:(?:next |this |the )?(?:" + _MONTHS + r"|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)(?= \d)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|spring|summer|"
    r"autumn|fall|winter)|"
    r"next (?:week|weekend|month|year)|tomorrow|\d{1,2}(?:st|nd|rd|th)?(?: of)? (?:" + _MONTHS + r")|"
    r"\d{4}-\d\d-\d\d)\b",
    re.I,
)
_WHEN_WORDS = frozenset("date day time plan plans".split())
# What a speaker now does without: "walked to the pier without the stick" (an older "with a stick for now" held
# for a while only).
_WITHOUT = re.compile(r"\bwithout (?:the|my|a|an|his|her|their|any) (?P<thing>[\w'’-]+)", re.I)
TEMPORARY = re.compile(
    r"\b(?:for now|for the moment|at the moment|for the time being|temporarily|for a while|"
    r"for (?:a|two|three|a few|several) (?:days|weeks|months))\b",
    re.I,
)


# A thing, and the words saying one uses it: "no car anymore" ends "I drive my Golf to the depot".
USED = {
    frozenset({"car"}): (frozenset({"drive"}), frozenset({"drives"}), frozenset({"driving"})),
    frozenset({"bike"}): (frozenset({"cycle"}), frozenset({"cycles"}), frozenset({"cycling"})),
}


# A statement saying this many things or more is not about one thing ending that it names by a common word.
LONG_STATEMENT = 16
# Words that make a thing one's own ("on my bike"): a common word so named is the thing ended.
OWN = ("my", "our")


# Words saying a plan is now for another time, where no verb does ("Change of plan: Manila is in December now").
_REPLANNED = re.compile(r"\b(?:change of plans?|plans? (?:have |has )?changed|new date|instead)\b", re.I)
_NOT_NAMES = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday christmas easter".split() + _MONTHS.split("|")
)


def _names_in(text: str) -> list[str]:
    """The names in ``text`` (capitalised words not opening a sentence, nor times), lower-cased; its speaker's
    ("Sofia: …") not among them."""
    if label := speaker_name(text):
        text = label[1]
    return [
        word.lower()
        for match in NAME_RUN.finditer(text)
        for word in match.group(0).split()
        if match.start() > 0 and not re.search(r"[.!?]\s*$", text[: match.start()]) and word.lower() not in _NOT_NAMES
    ]


def changes(text: str) -> list[Change]:
    """Every thing ``text`` says has ended, been called off, been put to another time, or is done without now."""
    found = [Change("ended", thing) for thing in ended(text)]
    if _RETIRED.search(text):
        found.append(Change("retired", frozenset({"work"})))
    for match in _CALLED_OFF.finditer(text):
        # Named by its proper names alone where it has some ("the Dublin trip": Dublin).
        names = frozenset(w.lower() for w in match.group("thing").split() if w[0].isupper())
        if thing := names or _named(match.group("thing")):
            found += [Change("called off", named) for named in _also_named(thing)]
    for match in _RESCHEDULED.finditer(text):
        thing = _named(match.group("thing"), _WHEN_WORDS)
        if thing and TIME_NAMED.match(match.group("when")):
            found += [Change("rescheduled", named) for named in _also_named(thing)]
    if _REPLANNED.search(text) and TIME_NAMED.search(text):
        # "Change of plan: Manila is happening in December now": each plan named is put to another time.
        found += [Change("rescheduled", frozenset([name])) for name in _names_in(text)]
    for match in _WITHOUT.finditer(text):
        if thing := _named(match.group("thing")):
            found.append(Change("done without", thing))
    return list(dict.fromkeys(found))


# Words a plan goes by, one for another: "the family trip's scrapped" calls off "a family holiday to Lagos".
_PLAN_WORDS = ("trip", "holiday", "vacation", "getaway")


def _also_named(thing: frozenset[str]) -> list[frozenset[str]]:
    """The thing, and the thing named by another word a plan goes by ("family trip": "family holiday" too)."""
    plan = thing & set(_PLAN_WORDS)
    return [thing] + [(thing - plan) | {other} for word in plan for other in _PLAN_WORDS if other != word]


def names_a_time(text: str) -> bool:
    """Whether ``text`` names a time: a month, a weekday, a season, a date."""
    return TIME_NAMED.search(text) is not None
