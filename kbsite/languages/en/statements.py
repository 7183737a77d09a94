"""English: reading what a text states: the one-valued attributes of one person it gives a value (no database).

An attribute has one value at a time: where a person lives, where, in which city and as what they work, their name
or age, where they stand with a partner ("my girlfriend Kasia" → "Kasia and I got engaged"), a favourite, a value
of theirs such as a birthday or an address, or whether they like a thing ("I love sushi" → "I don't like sushi
anymore"). What a text says has changed otherwise (ended, called off, put to another time, done without) is read by
:mod:`kbsite.languages.en.changes`.

Statements are plain sentences about one person, in their own words ("Alice: I live in Berlin", an offline fact) or
the LLM's ("Alice lives in Berlin"); questions and conditionals state nothing (a condition after a value, "…if you
need it", does not undo it). A text is ``whole`` when everything it says is such a statement, so retiring it
retires nothing else it says.

The same reading keeps two facts apart that only look alike: texts with other numbers, or other values of one
attribute, are never near-duplicates of each other ("I am 31 years old" / "I am 32 years old" are 0.98 similar).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbsite.languages.dates import a_month
from kbsite.languages.en.words import ANY_SENTENCE
from kbsite.languages.reading import Statement, read_statement

_END = r"(?P<v>[^,.;:!?()\"]+)"
# A value run to its clause's end, a full stop inside it too ("liz@example.com", "example.org").
_END_ENTIRE = r"(?P<v>(?:[^,.;:!?()\"]|\.(?=\w))+)"
_FILLER = (
    r"now|currently|still|already|again|too|also|anymore|any more|these days|lately|recently|today|"
    r"at the moment|for now|so much|a lot|very much|obviously|honestly|though|anyway|btw|tbh|lol|haha|early|late"
)
# Where a value ends: the next clause, or a time, place or manner said of it.
_VALUE_STOP = re.compile(
    r"\s+(?:and|but|because|since|bc|cos|coz|cuz|with|w/?|for|from|in|on|at|by|last|this|next|after|before|when|while|so|as|"
    r"to|until|ago|yesterday|about|full time|part time|i|we|" + _FILLER + r")\b.*$|\s+\d.*$|"
    r"\s+(?:one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many) (?:days?|weeks?|months?|years?)\b.*$",
    re.I,
)
# Words a statement of where one lives contains (one of them finds an older statement of it by full text; "I've been
# in Toronto six years" has none: a newer home does not retire it, but the block, read when it is made, shows it as
# earlier beside the newer).
_HOME_HINTS = (
    "live", "living", "moved", "relocated", "based", "flat", "flatshare", "house", "home", "keys", "apartment",
    "place",
)  # fmt: skip
# What one lives in.
_HOME_NOUNS = (
    r"flat|house|place|apartment|home|condo|room|studio|sharehouse|share house|houseshare|flatshare|annexe|annex|"
    r"bungalow|cottage|dorm"
)
# A home named before where it is: "(in) his flat in Small Heath", "my own place in Leith".
_HOME = (
    r"(?:(?:my|his|her|our|their|a|an|the)(?: own| new| first| little| rented| tiny)* (?:" + _HOME_NOUNS + r") in )?"
)
# Which way one moved, said before where to: "moved up the coast to…", "moved back home to…", "moved out west to…",
# "relocated across the country to…". Not "up", "down", "over" or "away" alone: "moved up to Senior Engineer",
# "moved down the road to the pub", "moved over to Slack", "moved away to university" name no home.
_WAY = (
    r"(?: (?:back(?: home)?|(?:(?:up|down|out|back|over) )?(?:north|south|east|west)|(?:up|down|across) the "
    r"(?:coast|country)|across the (?:state|border|pond)|overseas|abroad|upstate|downstate))"
)
# Where one lives or moved, and with whom: "moved back from Leeds to…", "live w 2 roommates in…", "by myself in…".
_LIVED = (
    r"(?:live|living|moved|relocated)" + _WAY + r"?(?: in)?"
    r"(?: from [^,.;:!?]+?| (?:with|w/?) [^,.;:!?]+?| by (?:myself|ourselves)| alone| on my own)? (?:in|to) "
    + _HOME
    + _END
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some)\s+", re.I)
NOT_THINGS = frozenset(
    "it that this them these those you your him her me us everything anything something all to for how what why when "
    "where who see have be yourself yourselves myself himself herself ourselves themselves itself".split()
)
_VERB = (
    r"(?:like|love|enjoy|adore|eat|drink|play|watch|do|"
    r"liking|loving|enjoying|eating|drinking|playing|watching|doing)"
)
_DIETS = (
    r"vegetarian|vegan|pescatarian|carnivore|keto|paleo|gluten-free|dairy-free|lactose-free|kosher|halal|"
    r"plant-based|plant based|coeliac|celiac"
)
_DIET_HINTS = ("vegetarian", "vegan", "pescatarian", "meat", "diet", "keto")
_RELATIONSHIP_HINTS = (
    "girlfriend", "boyfriend", "fiance", "fiancee", "fiancé", "fiancée", "wife", "husband", "engaged", "married",
    "divorced", "separated", "single", "broke", "split",
)  # fmt: skip
# A partner's title, or a change of it, read as where one stands ("my fiancée", "we got engaged": engaged).
_RELATIONSHIP = {
    "girlfriend": "dating", "boyfriend": "dating", "fiance": "engaged", "fiancé": "engaged", "fiancee": "engaged",
    "fiancée": "engaged", "engaged": "engaged", "wife": "married", "husband": "married", "married": "married",
    "divorced": "single", "separated": "single", "single": "single", "broke up": "single", "split up": "single",
}  # fmt: skip
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
    opening: bool = False  # only the clause opening a sentence ("My mum retired, moved to Spain": not the speaker)
    not_first: frozenset[str] = frozenset()  # a value opening on one of these is none of this attribute's
    not_last: frozenset[str] = frozenset()  # nor one ending on one of these
    not_after: re.Pattern | None = None  # nor one followed by this (a visit: "in London for a conference")


# Words that open a sentence without saying anything of its own ("Honestly my favourite show is…").
_OPENERS = "so well oh yeah actually and but now also anyway finally honestly seriously basically ok okay plus btw"
# Periods said with "next", "this" or "last" (not "this is…").
_PERIODS = (
    r"(?:week|weekend|month|year|summer|winter|spring|autumn|fall|term|semester|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|morning|evening|night)"
)
# A time said before the subject: "In August I begin as…", "From next semester I'm at…", "Since Monday we rent…".
_FRONTED = (
    r"(?:(?:(?:on|from|in|since|as of|starting|after|by) (?:[\w'-]+ ){0,4}?|(?:next|this|last) " + _PERIODS + r" )"
    r"(?=(?:i|we)(?:'\w+)? ))?"
)
_LEAD = r"^(?:(?:" + _OPENERS.replace(" ", "|") + r"),? )*" + _FRONTED


def _p(slot: str, pattern: str, **kwargs) -> _Pattern:
    return _Pattern(slot, re.compile(_LEAD + pattern, re.I), **kwargs)


# What one joins that is no employer: a club, a group, a class ("I joined a running club"), a call, the fun.
_NOT_JOINED = frozenset(
    "club group class classes choir band league gym community society course program programme meetup forum church "
    "call meeting chat "
    "zoom queue line fun party conversation discussion thread waitlist game protest".split()
)
# Where one lives, said of no place: "I live in fear of…", "living in the moment", "moved to tears", "moved in
# together", "based in reality", "moved to the couch for the night".
_NOT_HOMES = frozenset(
    "fear hope denial moment past present future reality fact peace harmony luxury style tears together silence "
    "shock bed couch sofa limbo theory practice debt".split()
)
# Where one works, said of no employer: a time ("at night", "at 7"), a place of the day ("at home"), oneself, a pay.
_NOT_EMPLOYERS = frozenset(
    "night nights home weekends times least first free peanuts minimum myself yourself ourselves himself herself "
    "themselves bottom top beginning scratch zero dawn noon midnight".split()
)
# As what one works, said of no title: "I work as hard as I can", "as a team", "it started as a joke".
_NOT_TITLES = frozenset(
    "hard fast much long well team usual normal always before planned expected joke hobby favour favor kid child teen "
    "teenager".split()
)
# What follows a place one is in on a visit, not a home: "I've been in London for a conference", "on business".
_VISIT = re.compile(
    r"^\s*(?:for (?:a|an|the)\s+(?!(?:last|past|next|few|couple|whole|entire)\b|"
    r"(?:days?|weeks?|months?|years?|decades?|while)\b)\w|on (?:business|holiday|vacation|a trip)\b|"
    r"(?:this|for the) (?:week|weekend)\b|today\b|tonight\b)",
    re.I,
)
# What one leaves that is no employer: a trip ("left for Rome"), home, a thing left somewhere ("left my keys there",
# "left a review"), a habit ("quit smoking"), a building left for the day ("left work at five", "left the office
# late"), school. A time alone ("left early") is a filler, no value.
_NOT_LEFT = (
    r"(?!(?:for|home|behind|it|them|him|her|me|us|that|this|my|his|our|their|your|a|an|some|work|"
    r"school|(?:the )?(?:house|office|building|party|pub|bar|gym|meeting))\b|(?-i:[a-z])\w*ing\b)"
)

_PATTERNS = [
    _p(
        "residence",
        # "we" too: where the speaker's family lives is where they live ("We moved from Lisbon to Porto").
        r"(?:i|we)(?:'m| am|'re| are|'ve| have)?(?: now| currently| just| still)* " + _LIVED,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
        not_after=_VISIT,
    ),
    # A move said after what else one did, the subject said once: "I quit my job and moved to Berlin", "we sold the
    # house and moved up the coast to Nelson" (not "My mum retired and moved to Spain": she moved).
    _p(
        "residence",
        r"(?:i|we)(?:'ve| have)? (?:[\w'-]+ ){1,5}?and (?:then |finally |just )?" + _LIVED,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
        not_after=_VISIT,
    ),
    # No subject, as people chat, opening a sentence: "live w 2 roommates in Logan Square", "moved in w jess in…".
    _p(
        "residence",
        r"(?:(?:now|currently|just|still) )*" + _LIVED,
        hints=_HOME_HINTS,
        opening=True,
        not_first=_NOT_HOMES,
        not_after=_VISIT,
    ),
    # A home of one's own: "Got the keys to my own flat in Moseley", "we bought a house in Leith", "we rent a flat
    # in Chorlton".
    _p(
        "residence",
        r"(?:(?:i|we)(?:'ve| have|'re| are|'m| am)? |guess who )?(?:just |finally |recently |now |still )*"
        r"(?:got the keys to|bought|rent|rented|renting|moved into|signed (?:the|a) lease (?:on|for)) "
        + _HOME.replace(")?", ")", 1)
        + _END,
        hints=_HOME_HINTS,
    ),
    # A new home of one's own named anywhere in a clause: "from the window of my new flat in Hove I can see…".
    _p(
        "residence",
        r"(?:.*?\b)?(?:my|our) (?:brand )?new (?:" + _HOME_NOUNS + r") in " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    _p(
        "employer",
        r"i(?:'m| am)?(?: now| currently| still)* (?:work|working) (?:at|for) " + _END,
        hints=("work", "working"),
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "occupation",
        r"i(?: now| currently| still)* work as (?:an? )?" + _END,
        hints=("work",),
        not_first=_NOT_TITLES,
    ),
    # "Call me Liz", a name; not "call me crazy", "call me when you can".
    _p("name", r"(?:my name is|call me (?=(?-i:[A-Z])))" + _END_ENTIRE, hints=("name", "call"), entire=True),
    _p("age", r"i(?: am|'m) (?P<v>\d{1,3}) years? old", hints=("old",)),
    _p(
        "favourite {0}",
        r"my (?:new |current |all-time )?favou?rite (?P<what>[\w' -]{2,30}?) (?:is|are|has become) " + _END,
        hints=("favourite", "favorite"),
    ),
    _p("{0}", r"my (?:new |current )?(?P<what>" + _ATTRIBUTES + r") is " + _END_ENTIRE, entire=True),
    _p(
        "likes {0}",
        r"i (?:really |absolutely |still |just |totally )?(?:like|love|enjoy|adore) (?:" + _VERB + r" )?" + _END,
        value="yes",
        strict=True,
    ),
    _p(
        "likes {0}",
        r"i (?:really )?(?:(?:don't|do not|no longer)(?: really)? " + _VERB + r"|(?:can't stand|cannot stand|hate|"
        r"dislike|stopped|quit|gave up(?: on)?)(?: " + _VERB + r")?) " + _END,
        value="no",
        strict=True,
    ),
    # Where one works, changed: "I joined Globex", "I quit my job at Acme" (then: not at Acme).
    _p(
        "employer",
        r"(?:i|we)(?:'m| am)?(?: just| recently| finally)* "
        r"(?:joined|(?:start|starting|started|begin|beginning|began) (?:working |work |a new job )?at|got a job at|"
        r"was hired by) " + _END,
        hints=("joined", "started", "job", "hired", "work"),
        not_first=_NOT_EMPLOYERS | {"in"},
        not_last=_NOT_JOINED,
    ),
    _p(
        "employer",
        r"i(?: just| finally)* (?:quit|left)(?: my job| my position| working)?(?: at| with)? " + _NOT_LEFT + _END,
        hints=("quit", "left", "job", "work"),
        negated=True,
    ),
    # A title one starts as: "I start as a junior developer at…", "in August I begin as an associate professor".
    _p(
        "occupation",
        r"i(?:'m| am)?(?: just| now)* (?:start|starting|started|begin|beginning|began) (?:work(?:ing)? )?as (?:an? )?"
        + _END,
        hints=("start", "started", "starting", "work"),
        not_first=_NOT_TITLES,
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
        r"(?:(?:i|we)(?:'m| am|'re| are)(?: now)? )?(?:based|living|settled) in " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
        not_after=_VISIT,
    ),
    # "I've been in Toronto six years now", "we've been living in Leith since May".
    _p(
        "residence",
        r"(?:i|we)(?:'ve| have) been (?:living |based )?in (?P<v>(?-i:[A-Z])[^,.;:!?()\"]*)",
        hints=_HOME_HINTS,
        not_after=_VISIT,
    ),
    _p(
        "residence",
        r"(?:i|we)(?:'m| am|'re| are) in (?P<v>[^,.;:!?()\"]+?) now\b",
        hints=_HOME_HINTS,
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
    # Where one stands with a partner: "my girlfriend Kasia…", "Kasia and I got engaged", "we split up".
    _p(
        "relationship",
        r"my (?P<v>girlfriend|boyfriend|fianc[eé]e?|wife|husband)\b",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r"(?:[\w'-]+ and )?(?:i|we)(?:'ve| have|'re| are|'m| am)?(?: just| finally| recently| officially)*"
        r" (?:got |are |were |am |is |getting )?(?P<v>engaged|married|divorced|separated|single)\b(?!-)"
        # Not "engaged in a lawsuit", "separated by an ocean", "married to my job".
        r"(?!(?<=engaged) in\b|(?<=separated) by\b| to (?:my|the|his|her) (?:job|work)\b)",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        # Not "we broke up the fight": what breaks up with an object is not a couple.
        r"(?:[\w'-]+ and )?(?:i|we)(?: just| finally| recently)* (?P<v>broke up|split up)\b"
        r"(?!\s+(?:the|a|an|this|that|my|our|some|it|them)\b)",
        hints=_RELATIONSHIP_HINTS,
    ),
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
_CONDITIONAL = re.compile(r"\b(?:if|would|could|might|maybe|perhaps|wish|hope|unless|in case)\b", re.I)


# Where a sentence's clauses part: a comma, "but", and "and" before "I" ("My name is Tom and I live in Leeds").
CLAUSES = re.compile(r",?\s+and\s+(?=i\b)|,\s+|;\s+|\s+but\s+", re.I)
# Where a statement of several attributes may be cut, each part stating its own (memories.ingest.statements.one_each
# tells): its clauses, and "and" going on with the same "I" ("I live in Bath and work as a midwife").
PARTS = re.compile(r",?\s+and\s+|,\s+|;\s+|\s+but\s+", re.I)


def statement(text: str, own: bool | None = None) -> Statement:
    """Read ``text`` for the attributes it states of one person: "Speaker: I live in Berlin." (offline facts are
    the speaker's own words) or "Alice lives in Berlin." (the LLM's facts name their subject; "she" goes on with
    it)."""
    return read_statement(
        text,
        sentences=ANY_SENTENCE,
        first_person=_FIRST_PERSON,
        in_first_person=_in_first_person,
        sentence_slots=_sentence_slots,
        across=_across,
        own=own,
    )


def _across(said: str) -> tuple[dict[str, str], tuple[str, ...]]:
    """What a first-person text states across its clauses or sentences: a proposal ("AMA SAID YES!!! 💍 asked
    her")."""
    return ({"relationship": "engaged"}, _RELATIONSHIP_HINTS) if _PROPOSAL.search(said) else ({}, ())


NAME_RUN = re.compile(r"\b[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*")


_FIRST_PERSON = re.compile(
    r"(?:^|[.!?]\s+)(?:(?:" + _OPENERS.replace(" ", "|") + r"),?\s+)*(?:[\w'-]+ and )?"
    r"(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our)\b",
    re.I,
)
_SUBJECT = re.compile(r"^(?P<who>She|He|They|[A-Z][\w-]+(?: [A-Z][\w-]+){0,2})(?P<poss>['’]s)?\s+(?P<rest>.+)$")
_NOT_SUBJECTS = frozenset(
    "i my the a an our this that it we you in on at since after before when if last yesterday today his her their "
    "there here so then".split()
    + _OPENERS.split()
)
# What opens a clause, not a value or a thing ("quit while you're ahead").
CONJUNCTIONS = frozenset("while when if because unless until so but and or then though although".split())
# The attributes that are people, named by a capitalised name.
_PEOPLE = frozenset(("boss", "manager"))
# Openings of a state said of a thing ("my boss is on holiday", "…still at work", "…so annoying").
_STATE_OPENINGS = frozenset(
    "off away out over under still not so very really such being down up closed open broken full empty busy fine ok "
    "okay great amazing awful terrible weird dead gone late".split()
)
# Words that do not follow a subject: a capitalised word before them opens a sentence without one ("Got the keys
# to my own flat", "Signed on at the hospital").
_NOT_AFTER_SUBJECT = frozenset(
    "the a an my our your his her their its this that these those to in on at for with from of into by".split()
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
    if not match.group("poss") and words[0].lower() in _NOT_AFTER_SUBJECT:
        return "", sentence  # a verb opening a sentence with no subject, as people chat: "Got the keys to…"
    if match.group("poss"):
        return ("" if who in _PRONOUNS else who), "my " + " ".join(words)
    for i, word in enumerate(words[:3]):
        words[i] = _FIRST_PERSON_VERBS.get(word.lower(), word)
    return ("" if who in _PRONOUNS else who), "I " + " ".join(words)


def _sentence_slots(sentence: str, found_hints: set[str]) -> tuple[dict[str, str], bool]:
    """The attributes a sentence states, and whether that is all it says (each clause a statement, followed by no
    more than a time or a place)."""
    sentence, condition = _without_condition(sentence)
    if sentence.endswith("?") or _CONDITIONAL.search(sentence):
        return {}, False
    slots: dict[str, str] = {}
    whole = not condition  # the condition says more than the value
    clauses = CLAUSES.split(sentence.rstrip(".!"))
    mine = True  # the sentence so far in one's own words: a clause leaving its subject out goes on with "I"
    for n, clause in enumerate(clauses):
        clause, going_on = clause.strip(), ""
        while clause:
            if going_on:  # "I live in Boston and work as a nurse": the clause goes on with the same "I"
                with_i = _with_i(clause)
                read = _clause_read(with_i, sentence, opening=n == 0) if with_i else (None, None, None)
                if not any(read):
                    whole = whole and bool(_COVERED.match(going_on))
                    break
                clause = with_i
            else:
                read = _clause_read(clause, sentence, opening=n == 0)
                if not any(read) and mine and (with_i := _with_i(clause)):
                    if any(read_i := _clause_read(with_i, sentence, opening=n == 0)):
                        clause, read = with_i, read_i
                if n == 0:  # "My mum retired last year, moved to Spain": she moved
                    mine = bool(_IN_OWN_WORDS.match(clause) or any(read))
            place, employer, stated = read
            if place:
                slots["workplace"] = place
                found_hints.update(_WORKPLACE_HINTS)
            if employer:
                slots["employer"] = employer
                found_hints.update(("work", "job"))
            if stated is None:
                # "I live in Paris, France": a name going on with the value says no more.
                whole = whole and bool(slots) and bool(_NAME_ONLY.fullmatch(clause))
                break
            slot, value, rest, hints = stated
            slots[slot] = value
            found_hints.update(hints)
            more = _GOES_ON.match(rest)
            if not more:
                whole = whole and bool(_COVERED.match(rest))
                break
            clause, going_on = more.group("rest"), rest
    return slots, whole


# A clause opening in one's own words.
_IN_OWN_WORDS = re.compile(r"^(?:i|i'm|i've|i'd|we|we're|we've)\b", re.I)
# What goes on after a value with "and" and another verb of the same subject ("… and work as a nurse").
_GOES_ON = re.compile(r"^,?\s*and\s+(?P<rest>[a-z].*)$", re.I)
# Words opening a clause that has a subject, or is no statement of one's own ("the", "you", "it"…).
_NOT_DROPPED = (
    _NOT_SUBJECTS
    | _NOT_AFTER_SUBJECT
    | frozenset("i you he she it they me him them us what who how why where which there here just really like".split())
)


def _with_i(clause: str) -> str | None:
    """A clause of one's own words with its "I" back, where chat leaves it out ("Moved to Leeds in May", "… and
    work as a nurse"): the first person's statements are read from "I …". None: it opens otherwise (on a subject,
    an article, a preposition, "like")."""
    first = clause.split(" ", 1)[0]
    if not first.isalpha() or first.lower() in _NOT_DROPPED:
        return None
    return f"I {first.lower()}{clause[len(first) :]}"


def _clause_read(clause: str, sentence: str, *, opening: bool) -> tuple[str | None, str | None, tuple | None]:
    """What a clause states: the city one works in, the employer, and the attribute its first pattern reads."""
    return _workplace(clause), _employer(clause, sentence), _clause_slot(clause, opening=opening)


# Places of work one moves to: "moved to the Tokyo office", "I moved to the outpatient clinic".
_WORK_NOUNS = frozenset(
    "office branch site campus plant lab team hq headquarters store studio clinic ward department unit hospital "
    "school depot shop".split()
)
# The city one works in: "an engineer at Panasonic in Osaka", "I teach at a school in Munich", "got transferred to
# the Tokyo office" (a name: "in the city centre" is no city).
_WORKPLACES = (
    re.compile(
        _LEAD + r"(?:i (?:work|teach|lecture|study)\b[\w' -]*? |(?:i(?:'m| am) )?an? (?:[\w'-]+ )?[\w'-]*?"
        r"(?:er|or|ist|ian|ant|ent|nurse|chef|lead|manager) )(?:at|for) "
        r"[\w&'’. -]+? in (?P<v>[\w' -]+)$",
        re.I,
    ),
    re.compile(
        _LEAD + r"(?:i |we )?(?:(?:just|recently|finally|got|was|have been|'ve been|am being|'m being|am|'m)\s+)*"
        r"(?:transferred|moved|relocated) to (?:the |our |my )?(?P<v>[\w' -]+?) "
        r"(?:" + "|".join(_WORK_NOUNS) + r")\b",
        re.I,
    ),
)
_WORKPLACE_HINTS = ("work", "works", "working", "office", "transferred", "branch")
# What one works as, by name (a closed list: a word's ending is no job, "tenant", "client", "member").
JOB_NOUNS = (
    r"manager|engineer|developer|dev|programmer|designer|analyst|consultant|director|lead|head|officer|assistant|"
    r"intern|nurse|doctor|surgeon|gp|dentist|pharmacist|paramedic|midwife|physio|therapist|carer|teacher|lecturer|"
    r"professor|tutor|researcher|scientist|accountant|lawyer|solicitor|barrister|architect|chef|cook|baker|barista|"
    r"waiter|waitress|bartender|cashier|clerk|receptionist|administrator|coordinator|executive|specialist|editor|"
    r"writer|journalist|producer|technician|electrician|plumber|mechanic|driver|pilot|porter|cleaner|librarian|"
    r"supervisor|sister|fisherman|farmer|builder|joiner|carpenter|tester|recruiter|planner|buyer|agent"
)
# A name said to be where one is now: "Intercom now".
_NAMED_NOW = r"(?P<v>(?-i:[A-Z])[\w&'’-]*(?: (?-i:[A-Z])[\w&'’-]*){0,3}) now\b"
# Where one works, named after what one works as ("I work as a backend developer at Stripe"), or said to be one's
# place now where the sentence speaks of a job ("new job btw, I'm at Intercom now").
_EMPLOYERS = (
    re.compile(
        _LEAD + r"i(?: now| currently| still)* work as (?:an? )?[\w' -]+? (?:at|for) (?P<v>(?-i:[A-Z])[\w&'’. -]*)",
        re.I,
    ),
    re.compile(_LEAD + r"i(?:'m| am) (?:now )?(?:at|with) " + _NAMED_NOW, re.I),
    # What one is, at where: "I am HR manager at Deloitte Hyderabad", "I'm a nurse at St James's" (a job named:
    # "a tenant with Peabody", "a lot better at Python" name none).
    re.compile(
        _LEAD + r"i(?:'m| am)(?: now| currently| still)* (?:an? |the )?(?:[\w'-]+ ){0,2}?(?:" + JOB_NOUNS + r") "
        r"(?:at|for|with) (?P<v>(?-i:[A-Z])[\w&'’. -]*)",
        re.I,
    ),
    # Where one starts, after as what: "I begin as a debt adviser at Shelter".
    re.compile(
        _LEAD + r"i(?:'m| am)?(?: just| now)* (?:start|starting|started|begin|beginning|began) (?:work(?:ing)? )?as "
        r"(?:an? )?[\w' -]+? (?:at|for|with) (?P<v>(?-i:[A-Z])[\w&'’. -]*)",
        re.I,
    ),
)
# A proposal said yes to: "Hugo proposed on the beach and I said yes!!", "AMA SAID YES!!! 💍 asked her today".
_PROPOSAL = re.compile(
    r"\b(?:proposed|popped the question)\b.*\b(?:i|we) said yes\b|"
    r"\b(?:she|he|[\w'-]+) said yes\b.*(?:💍|\bring\b|\bproposed\b|\basked (?:her|him)\b)",
    re.I,
)
_JOB_TALK = re.compile(r"\b(?:job|work|role|joined|hired|started|starting|position|contract|reorg\w*|team)\b", re.I)


def _named_value(raw: str, *, most: int) -> str | None:
    """A place or an employer named, up to where a time or another clause begins, lower case; none if it is empty or
    longer than ``most`` words."""
    stop = _VALUE_STOP.search(raw.strip())
    words = (raw.strip()[: stop.start()] if stop else raw.strip()).lower().split()
    return " ".join(words) if 0 < len(words) <= most else None


def _employer(clause: str, sentence: str) -> str | None:
    """The employer a clause names after what one works as, or as one's place now in a sentence about a job."""
    for n, pattern in enumerate(_EMPLOYERS):
        match = pattern.match(clause)
        if match and (n != 1 or _JOB_TALK.search(sentence)):
            if value := _named_value(match.group("v"), most=4):
                return value
    return None


def _workplace(clause: str) -> str | None:
    """The city a clause says the speaker works in, if it names one."""
    for pattern in _WORKPLACES:
        match = pattern.match(clause)
        if match and clause[match.start("v")].isupper():
            if value := _named_value(match.group("v"), most=3):
                return value
    return None


# A condition after what is stated ("My number is 07700 900123 if you ever need it"): it does not undo the statement.
_TRAILING_CONDITION = re.compile(r",?\s+(?:if|in case|whenever)\s+(?:you|u)\b.*$", re.I)


def _without_condition(sentence: str) -> tuple[str, bool]:
    """The sentence without a condition addressed to the listener that follows what it states, and whether it had
    one; a sentence opening with a condition ("If I moved…") keeps it."""
    cut = _TRAILING_CONDITION.search(sentence)
    if not cut or len(sentence[: cut.start()].split()) < 3:
        return sentence, False
    return sentence[: cut.start()], True


def _clause_slot(clause: str, *, opening: bool = True) -> tuple[str, str, str, tuple[str, ...]] | None:
    """(attribute, value, what follows the value, words a statement of it contains) of the first pattern the clause
    states, if any."""
    for pattern in _PATTERNS:
        if pattern.opening and not opening:
            continue
        match = pattern.regex.match(clause)
        if not match:
            continue
        raw = match.group("v").strip()
        stop = None if pattern.entire else _VALUE_STOP.search(raw)
        value, rest = (raw[: stop.start()], raw[stop.start() :]) if stop else (raw, "")
        rest += clause[match.end() :]  # "I live in Munich: the capital of Bavaria" says more
        if pattern.strict and rest and not _QUALIFIER.match(rest):
            continue  # "I don't like sushi for breakfast" says nothing of sushi
        value = re.sub(r"^(?:(?:still|now|currently|already|also)\s+)+", "", value.strip(), flags=re.I)
        words = _ARTICLE.sub("", value).lower().split()
        if not 0 < len(words) <= 4 or (pattern.value and words[0] in NOT_THINGS):
            continue
        if a_month(words[0]) and not pattern.entire:
            continue  # "I moved in June": a time, no home (a birthday, "May 3", is a value of its own)
        if all(word in _NOT_AFTER_SUBJECT for word in words):
            continue  # "I moved in on the 10th": a preposition and an article are no value
        value = " ".join(words)
        if words[0] in CONJUNCTIONS or _QUALIFIER.match(value):
            continue  # "Quit while you're ahead", "Joined late": a clause or a time, no value
        if words[0] in pattern.not_first or words[-1] in pattern.not_last:
            continue  # "I joined a running club": a club is no employer
        if pattern.not_after and pattern.not_after.match(rest):
            continue  # "I've been in London for a conference": a visit
        if words[0].isdigit() and pattern.slot in ("employer", "residence", "occupation"):
            continue  # "I started at 9", "I start at 9 tomorrow": a time
        if pattern.entire and (
            words[0] in _NOT_AFTER_SUBJECT or words[0] in _STATE_OPENINGS or words[0].endswith("ing")
        ):
            continue  # "My car is in the shop", "My job is killing me": how it is, not what
        if pattern.slot == "residence" and words[-1] in _WORK_NOUNS:
            continue  # "I moved to the outpatient clinic": a place of work, not a home
        if pattern.slot == "relationship":
            getting = re.search(r"\bgetting married\b", clause, re.I)
            value = "engaged" if getting else _RELATIONSHIP.get(value, value)
        what = (match.groupdict().get("what") or "").lower().strip().replace("color", "colour")
        if what in _PEOPLE and not raw[:1].isupper():
            continue  # "my boss is vegan", "…is a nightmare": how they are, not who (a name: "my boss is Karen")
        slot = pattern.slot.format(value if pattern.value else what)
        if pattern.negated:
            value = f"not {value}"
        return slot, pattern.value or value, rest, pattern.hints or tuple((value if pattern.value else what).split())
    return None
