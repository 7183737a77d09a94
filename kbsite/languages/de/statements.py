"""German: reading what a text states of one person's one-valued attributes: where they live, where and as what they
work, their name and age, where they stand with a partner, their diet, whether they like a thing.

Statements are about one person, in their own words ("Jonas: Ich wohne in Leipzig", an offline fact) or an LLM's
("Jonas wohnt in Leipzig"), which is read as the first person. Questions, wishes and conditions state nothing. The
rules are the language's general forms, never a sentence of a case: the verb second after a time ("seit März wohne
ich in Dresden"), the pronoun dropped in chat ("wohn in Leipzig"), the participle last ("ich bin nach Graz
gezogen"), the separable verb's particle last ("ich fange im Mai bei Zeiss an"), the verb last in a clause that
says since when ("seit wir in Dresden wohnen").
"""

from __future__ import annotations

import re

from kbsite.languages.de.words import ANY_SENTENCE
from kbsite.languages.reading import Statement
from kbsite.languages.slots import SlotReader, patterns_led_by

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?()\"]+)"
# A value before the word that ends its clause (a participle, a particle): the shortest that reaches it.
_BEFORE = r"(?P<v>[^,.;:!?()\"]+?)"
# Where a value ends: the next clause, a time, place or manner said of it, or the participle or particle that closes
# the clause. An article stops it only in lower case ("Die Techniker" is one name).
_VALUE_STOP = re.compile(
    r"\s+(?:(?i:und|oder|aber|weil|denn|da|mit|ohne|seit|ab|bei|beim|für|nach|als|wenn|während|bis|um|in|im|am|an|"
    r"auf|zum|zur|vom|jetzt|nun|schon|noch|auch|heute|gestern|morgen|zusammen|direkt|gerade|wieder|sehr|so|mehr|"
    r"inzwischen|mittlerweile|eigentlich|aktuell|momentan|derzeit|gezogen|umgezogen|hingezogen|zurückgezogen|"
    r"angefangen|gekündigt|aufgehört|gewechselt|gegangen|geworden|befördert|bekommen|angenommen|gekriegt|gefunden|"
    r"unterschrieben|begonnen|gestartet|lol|haha)"
    r"|der|die|das|den|dem|ein|eine|einen|einem|einer|nicht|kein|keine)\b.*$"
    r"|\s+\d.*$"
)
_ARTICLE = re.compile(
    r"^(?:der|die|das|den|dem|des|ein|eine|einer|einem|einen|ne|ner|nem|nen|mein|meine|meinem|meinen|meiner|unser|"
    r"unsere|unserem|unseren|unserer)\s+",
    re.I,
)
# A place of work is no home: "wir sind ins Büro in Leipzig gezogen".
_WORK_NOUNS = frozenset("büro firma filiale laden werk praxis klinik kanzlei schule zentrale".split())
_HOME_HINTS = ("wohne", "wohnen", "wohnt", "lebe", "leben", "gezogen", "umgezogen", "wohnung", "stadt")
_JOB_HINTS = ("arbeite", "arbeiten", "arbeitet", "job", "stelle", "firma", "arbeit")
JOB_NOUNS = (
    r"krankenpfleger(?:in)?|krankenschwester|pfleger(?:in)?|altenpfleger(?:in)?|arzt|ärztin|zahnarzt|zahnärztin|"
    r"apotheker(?:in)?|physiotherapeut(?:in)?|psycholog(?:e|in)|lehrer(?:in)?|erzieher(?:in)?|ingenieur(?:in)?|"
    r"programmierer(?:in)?|entwickler(?:in)?|softwareentwickler(?:in)?|informatiker(?:in)?|designer(?:in)?|"
    r"architekt(?:in)?|anwalt|anwältin|rechtsanwalt|rechtsanwältin|steuerberater(?:in)?|buchhalter(?:in)?|"
    r"journalist(?:in)?|autor(?:in)?|übersetzer(?:in)?|kellner(?:in)?|koch|köchin|bäcker(?:in)?|konditor(?:in)?|"
    r"verkäufer(?:in)?|kassierer(?:in)?|friseur(?:in)?|friseuse|sekretär(?:in)?|"
    r"\w*leiter(?:in)?|teamlead|techlead|geschäftsführer(?:in)?|manager(?:in)?|"
    r"techniker(?:in)?|elektriker(?:in)?|mechaniker(?:in)?|mechatroniker(?:in)?|installateur(?:in)?|"
    r"schreiner(?:in)?|tischler(?:in)?|maurer(?:in)?|gärtner(?:in)?|landwirt(?:in)?|fahrer(?:in)?|"
    r"busfahrer(?:in)?|lokführer(?:in)?|pilot(?:in)?|polizist(?:in)?|feuerwehrmann|feuerwehrfrau|"
    r"tierarzt|tierärztin|forscher(?:in)?|wissenschaftler(?:in)?|beamter|beamtin|berater(?:in)?|analyst(?:in)?|"
    r"student(?:in)?|azubi|praktikant(?:in)?|selbstständig|selbständig|freiberufler(?:in)?|fotograf(?:in)?|"
    r"musiker(?:in)?|barista|rentner(?:in)?|hausmann|hausfrau|sozialarbeiter(?:in)?|hebamme"
)
_DIETS = r"vegetarier(?:in)?|veganer(?:in)?|vegetarisch|vegan|pescetarier(?:in)?|flexitarier(?:in)?"
_DIET_VALUES = {
    "vegetarier": "vegetarisch", "vegetarierin": "vegetarisch", "vegetarisch": "vegetarisch", "veganer": "vegan",
    "veganerin": "vegan", "vegan": "vegan", "pescetarier": "pescetarisch", "pescetarierin": "pescetarisch",
    "flexitarier": "flexitarisch", "flexitarierin": "flexitarisch",
}  # fmt: skip
_RELATIONSHIP = {
    "verheiratet": "married", "ledig": "single", "single": "single", "geschieden": "single", "getrennt": "single",
    "verlobt": "engaged", "mann": "married", "ehemann": "married", "frau": "married", "ehefrau": "married",
    "verlobter": "engaged", "verlobte": "engaged", "fester freund": "dating", "feste freundin": "dating",
    "partner": "dating", "partnerin": "dating",
}  # fmt: skip
_DIET_HINTS = ("vegetarisch", "vegetarierin", "vegetarier", "vegan", "veganerin", "fleisch", "fisch")
_RELATIONSHIP_HINTS = ("freund", "freundin", "mann", "frau", "verlobt", "verheiratet", "getrennt", "partner")
# What may open a clause before its verb: a word of chat, or a time, the verb then second and its subject after it
# ("seit März wohne ich…", "jetzt arbeite ich…", "letzte Woche bin ich…").
_LEAD = (
    r"^(?:(?:also|naja|na ja|ach|und|aber|übrigens|ja|so|tja|jedenfalls|endlich|ok|okay),?\s+)*"
    r"(?:(?:seit|ab|im|am|vor|letzte[nrs]?|diese[nrs]?|vergangene[nrs]?|anfang|ende|mitte)\s+[\wäöüß.]+"
    r"(?:\s+\d{4})?\s+|(?:jetzt|nun|inzwischen|mittlerweile|seitdem|neuerdings|endlich|aktuell|"
    r"momentan|derzeit|heute|schon)\s+)?"
)
# The verb's subject, before it or (the verb second) after it, and the words that may stand between the verb and
# what it governs: "wohne jetzt seit zwei Jahren in…", "arbeite inzwischen wieder bei…".
_I = r"(?:ich |wir )?"
_AFTER = (
    r"(?: (?:ich|wir))?(?: (?:jetzt|nun|inzwischen|mittlerweile|seit \w+(?: \w+)?|schon|noch|wieder|immer noch|"
    r"zusammen|auch|eigentlich|aktuell|derzeit|momentan|endlich|fest|ja|halt|ab \w+(?: \w+)?))*"
)


_p = patterns_led_by(_LEAD)


# Where one lives, said of no place: "ich lebe im Hier und Jetzt", "wir leben in Frieden".
_NOT_HOMES = frozenset("hier jetzt frieden angst sorge saus braus luxus ruhe zukunft vergangenheit".split())
# What follows "in" and is no place: an article ("in der Nähe"), a part of a town or a house, the country.
_NOT_PLACES = frozenset(
    "der die das dem den des einer einem eines nähe stadt innenstadt stadtmitte altstadt zentrum stadtrand stock "
    "erdgeschoss obergeschoss dachgeschoss keller hinterhof land meer natur ordnung planung arbeit".split()
)
# Where one works, said of no employer: from home, in shifts, on something.
_NOT_EMPLOYERS = frozenset(
    "hause homeoffice schichten schicht teilzeit vollzeit projekt wochenende montag dienstag mittwoch donnerstag "
    "freitag samstag sonntag woche ruhe regen sonne hitze kälte wind schnee nacht tag licht".split()
)
# As what one works, said of how long or when: "als Aushilfe seit Mai" is one; "als erstes" is none.
_NOT_TITLES = frozenset("erstes erste erster nächstes letztes einzige einziger einzig".split())

_PATTERNS = [
    # Where one lives: "ich wohne in Leipzig", "wohn in ner WG in Ottensen", "seit März leben wir in Graz".
    _p(
        "residence",
        _I + r"(?:wohne|wohnen|wohn|lebe|leben|leb)" + _AFTER + r" (?:in|im|auf|am) "
        # Not a state lived in ("in ständiger Angst"), its noun after an adjective as German puts it.
        r"(?!(?:[\wäöüß]+ )?(?:angst|frieden|sorge|sorgen|ruhe|saus|luxus|harmonie|einklang|armut|freiheit|"
        r"gegenwart|vergangenheit|zukunft|hier|jetzt)\b)"
        # A home named before where it is: "wohne in einer kleinen Wohnung in Lindenau".
        r"(?:(?:einer|einem|ner|nem|der|dem|meiner|unserer) (?:\w+ ){0,2}?(?:\w*wohnung|wg|haus|zimmer|altbau|"
        r"wohnheim|studentenwohnheim|reihenhaus|bude|dachgeschoss)\w* (?:in|im|am|auf) )?" + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A move, its participle last: "ich bin nach Graz gezogen", "wir sind letzten Monat nach Dresden umgezogen".
    _p(
        "residence",
        _I
        + r"(?:bin|sind)"
        + _AFTER
        + r"(?: [\wäöüß]+){0,3}? (?:nach|in die|in den|ins|in|zu|zurück nach) "
        + _BEFORE
        + r" (?:um|hin|zurück)?gezogen\b",
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A new home of one's own named anywhere in a clause: "vom Balkon unserer neuen Wohnung in Pankow sieht man…".
    # The place is a word, or two where the first is said as of a place ("Prenzlauer Berg") or opens one ("Bad
    # Homburg"): every German noun has a capital, so the next ("in Kassel Freunde zu Gast") is no part of it.
    _p(
        "residence",
        r"(?:.*?\b)?(?:mein|meine|meiner|meinem|meinen|unser|unsere|unserer|unserem|unseren) neue[nmrs]? "
        r"(?:wohnung|mietwohnung|eigentumswohnung|wg|haus|hauses|hause|reihenhaus|zimmer|altbau|altbauwohnung|bude) "
        r"in (?P<v>(?:(?:bad|sankt|st\.) )?[^\W\d_][\w-]*(?:(?<=er) (?-i:[A-ZÄÖÜ])[\w-]*)?)\b",
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES | _NOT_PLACES,
    ),
    # Since when one lives where, the verb last: "seit wir in Dresden wohnen", "seitdem ich in Graz bin".
    _p(
        "residence",
        r"(?:seit|seitdem|jetzt wo|jetzt, wo|nachdem) (?:ich|wir) (?:jetzt |nun |endlich |wieder )*(?:in|im) "
        + _BEFORE
        + r" (?:wohne|wohnen|lebe|leben|bin|sind|(?:um)?gezogen (?:sind|bin))$",
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # Where one works: "ich arbeite bei Siemens", "seit März arbeite ich bei der Sparkasse".
    _p(
        "employer",
        _I + r"(?:arbeite|arbeiten|arbeit|jobbe)" + _AFTER + r" (?:bei|für) " + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_EMPLOYERS,
    ),
    # A start, the particle or participle last: "ich fange im Mai bei Zeiss an", "hab bei Bosch angefangen".
    _p(
        "employer",
        _I
        + r"(?:fange|fangen|fang|habe|haben|hab)"
        + _AFTER
        + r"(?: [\wäöüß]+){0,3}? bei "
        + _BEFORE
        + r" (?:an|angefangen)\b",
        hints=_JOB_HINTS + ("angefangen",),
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        _I + r"(?:bin|sind)" + _AFTER + r" (?:jetzt |seit \w+ )?(?:bei|zu) " + _BEFORE + r" gewechselt\b",
        hints=_JOB_HINTS + ("gewechselt",),
        not_first=_NOT_EMPLOYERS,
    ),
    # Where one works no more: "ich habe bei Siemens gekündigt", "hab bei der Post aufgehört".
    _p(
        "employer",
        _I + r"(?:habe|haben|hab)" + _AFTER + r"(?: [\wäöüß]+){0,3}? bei " + _BEFORE + r" (?:gekündigt|aufgehört)\b",
        hints=_JOB_HINTS + ("gekündigt", "aufgehört"),
        negated=True,
        not_first=_NOT_EMPLOYERS,
    ),
    # As what one works: "ich arbeite als Krankenschwester", "bin jetzt Teamleiterin", "wurde zur Teamleiterin
    # befördert".
    _p(
        "occupation",
        _I + r"(?:arbeite|arbeiten|arbeit|jobbe)" + _AFTER + r" als " + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_TITLES,
    ),
    _p(
        "occupation",
        _I + r"bin (?:ein |eine |jetzt |inzwischen |mittlerweile |da |dort |hier |seit \w+ )*"
        r"(?P<v>(?:junior |senior )?[\w-]*(?:" + JOB_NOUNS + r"))\b",
        hints=_JOB_HINTS,
    ),
    # A post taken: "ich hab die Stelle als UX-Designerin bei einer Agentur bekommen".
    _p(
        "occupation",
        r".*?\b(?:stelle|job|anstellung|position|ausbildung) (?:als|zum|zur) " + _END,
        hints=_JOB_HINTS + ("stelle",),
        not_first=_NOT_TITLES,
    ),
    _p(
        "occupation",
        _I + r"(?:bin|wurde)(?: [\wäöüß]+){0,3}? zu[mr] " + _BEFORE + r" befördert\b",
        hints=_JOB_HINTS + ("befördert",),
    ),
    _p("name", r"(?:ich heiße|ich heiß|heiße|mein name ist) " + _END, hints=("heiße", "name")),
    _p("age", _I + r"bin (?P<v>\d{1,3})(?: jahre(?: alt)?| geworden)?\s*$", hints=("jahre", "alt")),
    # Where one stands with a partner: "wir haben uns verlobt", "wir haben geheiratet", "wir haben uns getrennt".
    _p(
        "relationship",
        r".*?\b(?:uns verlobt|mich verlobt|sind verlobt|bin verlobt)\b",
        value="engaged",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        # "im Mai haben wir geheiratet", "hab letztes Jahr geheiratet": the speaker's own wedding, not "sie haben".
        r"(?:.*?\b(?:(?:wir|ich) (?:haben|habe|hab)|(?:haben|habe|hab) (?:wir|ich))|(?:hab|habe))\b"
        r"(?: [\wäöüß.]+){0,4}? (?:geheiratet|uns trauen lassen)\b",
        value="married",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r".*?\b(?:uns getrennt|mich getrennt|schluss gemacht|sind geschieden|"
        r"mit (?:(?-i:[A-ZÄÖÜ])\w+|ihm|ihr) ist (?:es )?(?:aus|vorbei|schluss)|"
        r"bin geschieden|haben uns scheiden lassen)\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        _I + r"(?:bin|sind) (?:jetzt |wieder |noch |seit \w+ )*(?P<v>verheiratet|ledig|single|geschieden|verlobt)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    # A diet: "ich bin Vegetarierin", "ich bin kein Veganer mehr", "ich esse wieder Fleisch".
    _p(
        "diet",
        _I + r"bin (?:jetzt |schon )?(?:kein|keine|nicht mehr) (?P<v>" + _DIETS + r")(?: mehr)?\b",
        hints=_DIET_HINTS,
        negated=True,
        mapped=_DIET_VALUES,
    ),
    _p("diet", _I + r"(?:bin|lebe)" + _AFTER + r" (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS, mapped=_DIET_VALUES),
    _p(
        "diet",
        _I + r"esse" + _AFTER + r" (?:kein fleisch|keinen fisch und kein fleisch)(?: mehr)?\b",
        value="vegetarisch",
        hints=_DIET_HINTS,
    ),
    _p(
        "diet",
        _I + r"esse" + _AFTER + r" wieder (?:fleisch|fisch|hähnchen|wurst)\b",
        value="omnivor",
        hints=_DIET_HINTS,
    ),
    # Whether one likes a thing: "ich liebe Sushi", "ich mag keinen Kaffee mehr", "ich hasse Koriander".
    _p("likes {0}", _I + r"mag (?:kein|keine|keinen) (?P<v>[^,.;:!?()\"]+?)(?: mehr)?$", value="no", strict=True),
    _p("likes {0}", _I + r"mag (?P<v>[^,.;:!?()\"]+?) nicht(?: mehr)?$", value="no", strict=True),
    _p("likes {0}", _I + r"(?:hasse|verabscheue) " + _END, value="no", strict=True),
    _p("likes {0}", _I + r"(?:liebe|mag|vergöttere) " + _END, value="yes", strict=True),
]
NOT_THINGS = frozenset("das es dies sowas alles nichts etwas was dich sie ihn euch".split())
# A wish, a plan or a condition: the sentence states nothing ("wenn ich nach Berlin ziehen würde", "vielleicht").
_CONDITIONAL = re.compile(
    r"\b(?:wenn|falls|würde|würden|würdest|vielleicht|eventuell|"
    r"würd|überlege|überlegen|suche|suchen|bewerbe|bewerben|beworben|möchte|möchten|will|wollen|wollte|plane|planen|hoffentlich|sobald)\b",
    re.I,
)

# An LLM's fact in the third person, read as the first: "Jonas wohnt in Leipzig" → "wohne in Leipzig".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÄÖÜ][\w-]+(?: [A-ZÄÖÜ][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "wohnt": "wohne", "lebt": "lebe", "arbeitet": "arbeite", "ist": "bin", "hat": "habe", "heißt": "heiße",
    "fängt": "fange", "isst": "esse", "liebt": "liebe", "mag": "mag", "hasst": "hasse", "wurde": "wurde",
    "jobbt": "jobbe", "sich": "mich",
}  # fmt: skip
# Capitalised openings that name no one: every German noun has a capital, so a sentence opening on an article, a
# time or a noun is no one's.
_NOT_SUBJECTS = frozenset(
    "der die das ein eine mein meine sein seine ihr ihre unser unsere dieser diese dieses heute gestern jetzt seit "
    "im am in nach vor es er sie wir ich und aber also".split()
)
_FIRST_PERSON = re.compile(
    r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:ich|mich|mir|mein|meine|meinen|meinem|meiner|wir|uns|unser|unsere|bin|hab|"
    r"habe|wohn|wohne|arbeite)\b",
    re.I,
)
# Where a sentence's clauses part: a comma, a colon ("große Neuigkeit: ich habe…"), "aber", and "und" before a clause
# of the speaker's own ("ich heiße Jonas und wohne in Leipzig"), not inside a value ("Brot und Butter").
CLAUSES = re.compile(
    r",\s+|;\s+|:\s+|\s+(?i:aber|sondern)\s+|\s+(?i:und)\s+(?=(?:(?:jetzt|seit \w+|inzwischen|auch) )?"
    r"(?:ich|wir|mein|meine|unser|unsere|bin|habe|hab|wohne|wohn|arbeite|lebe|heiße|esse|mag|liebe)\b)"
)
# Where a statement of several attributes may be cut, each part stating its own: its clauses.
PARTS = CLAUSES
# Where one works, said after as what: "… als Pflegerin im Klinikum", "… als Kellner bei Vapiano".
_WORKS_AT = re.compile(r"\s*(?:bei|im|in der|in einer|in einem|am|für) (?P<v>[^,.;:!?()\"]+?)\s*$", re.I)


_READER = SlotReader(
    sentences=ANY_SENTENCE,
    first_person=_FIRST_PERSON,
    subject=_SUBJECT,
    not_subjects=_NOT_SUBJECTS,
    first_person_verbs=_FIRST_PERSON_VERBS,
    patterns=_PATTERNS,
    value_stop=_VALUE_STOP,
    article=_ARTICLE,
    not_things=NOT_THINGS,
    work_nouns=_WORK_NOUNS,
    conditional=_CONDITIONAL,
    clauses=CLAUSES,
    works_at=_WORKS_AT,
    job_hints=_JOB_HINTS,
    openers="",
)


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person ("Jonas: Ich wohne in Leipzig." or "Jonas wohnt in Leipzig.")."""
    return _READER.statement(text, own)
