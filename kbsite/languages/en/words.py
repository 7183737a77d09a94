"""English: the words of everyday text (stop words, small talk, salience), how statements open, clause and
chat, the words of time (months, "now", "when"), and what full text leaves out of a query."""

from __future__ import annotations

import re

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
# Where a sentence ends, read more widely: lower case too ("Mainly food. my girlfriend Ama says…": people chat in
# lower case), but not after a title or an abbreviation ("Dr. Lena", "e.g. pasta"). For reading what a text states;
# a memory is not cut there (a short answer in lower case says nothing without what it answers).
ANY_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!Mrs\.)"
    r"(?<!\bSt\.)(?<!\bNo\.)\s+(?=\S)"
)
# What opens a sentence without stating anything: "Big news: I moved to Berlin!", "Guess what, I quit."
OPENER = re.compile(
    r"^(?:(?:(?:big|good|great|some|exciting|sad|bad|happy) news|guess what|update|fyi|btw|by the way|anyway|"
    r"oh|so|well|hey|ok|okay|yes|yeah|no|wow|haha|lol|ugh)\s*[:!,.\-–—]+|"
    # A heading of one to three words and a colon ("Confession:", "Random update:", "Change of plans:").
    r"[A-Za-z][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
# Where a sentence holds two statements: a new clause with its own subject ("…, and I am allergic to nuts", "…, so
# I'm learning Japanese").
CLAUSE = re.compile(r";\s+|,?\s+(?:and|but)\s+(?=(?:i|we)\b)|,\s+so\s+(?=(?:i|i'm|we|we're)\b)", re.I)

# Who does something with the speaker, named just before "and I" ("My boyfriend Hugo", "Me and my mate Kev", "Also
# random but my girlfriend Chloe", "Kasia").
COMPANION = re.compile(r"(?:^|\s)(?:[Mm]y|[Oo]ur) (?:[\w'-]+ ){1,2}?[A-Z][\w'-]+$|^[A-Z][\w'-]+$")


# A sentence saying who or what someone named before is ("He's my golden retriever", "Her name is Pixel"): alone, it
# names no one. LoCoMo offline R@5 / R@10: 0.620 / 0.721 so; 0.611 / 0.721 keeping every sentence that opens on a
# pronoun with the one before; 0.613 / 0.724 keeping none.
BACK_REFERENCE = re.compile(
    r"^(?:(?:his|her|their|its) name(?:'s| is)|(?:he|she|it)(?:'s| is) (?:my|our|a|an|the|called|named)\b)", re.I
)


# A favourite named without a verb: what it is, the statement before says ("Severance is incredible. My favourite
# show now!").
FAVOURITE_ALONE = re.compile(r"^(?:my|our) (?:new |current |all-time )?(?:favou?rite|fave)\b", re.I)
VERB_OF_FAVOURITE = re.compile(r"\b(?:is|are|was|were|has|have|remains|stays|became)\b", re.I)


# Seed 001: words in almost every fact, or carrying no retrieval signal, never go into the text query.
QUERY_STOPWORDS = frozenset(
    """the a an of to in on at for and or is are was were be been being do does did how what where when which who
    whom whose why this that these those it its use uses used user users project projects right now
    i me my you your he she his her we our they them their""".split()
)


# A date written for a reader (Django's format): day, month in full, year, "14 September 2024", as most of the
# English-speaking world writes it (the United States' "September 14, 2024" aside).
DATE_IN_WORDS = "j F Y"
MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
DATE_PATTERNS = [
    ("day", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I)),  # 16 June, 2023
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I)),  # June 16, 2023
    ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")),  # 2023-06-16
    ("month", re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)),  # May 2022
    ("year", re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR}\b", re.I)),  # in 2024
]


# Asked where: a question a statement naming a place answers (kbsite.languages.places).
WHERE = re.compile(
    r"\bwhere\b|\b(?:which|what) (?:city|town|country|place|address|neighbou?rhood|area|part of)\b", re.I
)
# A question asking for a time: a statement naming one answers it better ("When is the wedding?").
WHEN = re.compile(r"^\s*when\b|\b(?:what|which) (?:date|day|time|month|year)\b", re.I)
# Words whose time is that of the saying: an answer quoting them gives the date ("It's my birthday today!").
RELATIVE_TIME = re.compile(
    r"\b(?:today|tonight|yesterday|tomorrow|this (?:morning|afternoon|evening|week|weekend|month)|"
    r"last (?:night|week|weekend|month|year)|next (?:week|weekend|month|year)|\w+ (?:days?|weeks?|months?) ago|"
    r"(?:on|last|this) (?:mon|tues|wednes|thurs|fri|satur|sun)day|the (?:\d{1,2}(?:st|nd|rd|th)|first|1st))\b",
    re.I,
)
# A question asking how things stand now.
NOW = re.compile(r"\b(?:now|these days|currently|at the moment|still|any ?more|nowadays|lately)\b", re.I)
# A question asking about the one that holds now, by the adjective ("her current job"; not "current account",
# "current affairs", "current events"): how things stand now, but not as "now" is, beside "former" ("his former
# boss, not his current one" asks about the former).
CURRENT = re.compile(r"\bcurrent\b(?! (?:account|affairs|events?)\b)", re.I)
# Asked about how things were before a change ("Where did she work before the startup?").
BEFORE = re.compile(r"\b(?:before|previously|used to|formerly|originally|in the past|back then|prior to)\b", re.I)
# The one before, said of a person or thing ("his previous landlord", "her former boss"): asks how things were before,
# where the question asks nothing of now ("Where does my former colleague work now?" asks of now), and not of the
# chat itself ("my previous question"): neither word beside one of CONVERSATION.
FORMER = re.compile(r"previous|former")
CONVERSATION = frozenset("question questions message messages conversation conversations chat chats session sessions "
                         "answer answers reply replies email emails".split())  # fmt: skip
# Where someone comes from ("Where is she from originally?"): a fact that holds now, not how things were before.
ORIGIN = re.compile(r"\boriginally from\b|\bfrom,? originally\b", re.I)
# "Before" of what the asker is about to do ("Anything I should know before inviting her?"): advice, not the past.
AHEAD = re.compile(
    r"\b(?:should|must|need to|needs to|have to|has to|ought to|better)\b[^.?!]*\b(?:before|prior to)\b", re.I
)
# A question about a person: someone named by a pronoun ("What should I cook for her?") or "the user": an end
# user's own statements answer it before the shared ones (about anyone). Not "I" or "my": an end user asking about
# the world speaks so too ("Can I bring my kid to the pool?").
PERSON = re.compile(
    r"\b(?:she|he|her|hers|him|his|they|them|their|theirs|herself|himself|themselves|the user)\b",
    re.I,
)
# Words that frame a question and say nothing of its answer ("Is there anything I should know about his health?"):
# ask does not look for them in what was said.
FRAMING = frozenset("anything something thing things know tell remind wonder wondering".split())
# What offline ask answers when nothing in memory answers the question.
NOT_REMEMBERED = "I don't remember anything about that."
# Words written with a capital inside a sentence that name no one: the pronoun "I" (and "I'm", "I've").
CAPITALISED = frozenset({"I"})

# What makes an offline fact a preference, or a fact of the user's profile.
PREFERENCE = re.compile(r"\b(i (really )?(like|love|prefer|enjoy|hate|dislike)|my favou?rite)\b", re.I)
# A clause that only likes what was just said ("I like that.", "Love it!"): a reaction, not a preference.
REACTION = re.compile(
    r"(?:i (?:really |do )?)?(?:like|love|prefer|enjoy|hate|dislike) (?:it|that|this|those|these|them)"
    r"(?: (?:idea|one|plan|a lot|so much|very much|too))?",
    re.I,
)
PROFILE = re.compile(
    r"\b((?:i am|i'm) (?:now |still )?(?:an?|from|retired|married|engaged|divorced|single|pregnant|\d+|(?-i:[A-Z])\w*)|"
    r"my name|i live|i work|i was born|(?:i|we) (?:just |recently )?(?:moved|relocated)|years old|"
    r"allerg\w*|intoleran\w*|vegetarian|vegan|"
    r"can't eat|cannot eat|don't eat|my diet)\b",
    re.I,
)
# A decision or commitment said in a conversation (an archive's offline summary keeps it).
DECISION = re.compile(
    r"\b(decided|decide to|we'll|we will|agreed|let's|going to|plan to|will go with|chose|settled on)\b", re.I
)
# Text a model copies from the prompt or writes instead of a fact.
PLACEHOLDER = re.compile(
    r"^\W*$|^(?:\.{2,}|…|text|fact|the fact|string|example|n/?a|none|null|todo|tbd|xxx+|lorem ipsum.*|"
    r"<[^>]*>|\[[^\]]*\]|\{[^}]*\})\W*$",
    re.I,
)
