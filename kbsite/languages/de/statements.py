"""German: reading what a text states of one person's one-valued attributes: where they live, where and as what they
work, their name and age, where they stand with a partner, their diet, a favourite, whether they like a thing, the
car they drive.

Statements are about one person, in their own words ("Jonas: Ich wohne in Augsburg", an offline fact) or an LLM's
("Jonas wohnt in Augsburg"), which is read as the first person. Chat drops the pronoun ("wohne jetzt in Kiel") and
puts a time first, the verb second ("seit März wohnen wir in Kiel", "ab Oktober arbeite ich bei Siemens"): both are
read. Questions and conditions state nothing. The rules are the language's general forms (a verb of the attribute
and what follows it), never a sentence of a case.
"""

from __future__ import annotations

import re

from kbsite.languages.de.words import ANY_SENTENCE
from kbsite.languages.reading import Statement
from kbsite.languages.slots import Pattern, SlotReader

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?()\"]+)"
# Where a value ends: the next clause, a time, place or manner said of it, or the participle closing the verb.
_VALUE_STOP = re.compile(
    r"\s+(?:und|oder|aber|weil|denn|da|dass|wenn|als|wo|seit|ab|bis|mit|bei|in|im|am|an|auf|für|zu|zum|zur|nach|"
    r"von|vom|jetzt|nun|schon|noch|wieder|gerade|hier|dort|auch|doch|ja|mal|echt|so|sehr|total|endlich|"
    r"inzwischen|mittlerweile|heute|gestern|morgen|seitdem|gezogen|umgezogen|hingezogen|angefangen|gewechselt|"
    r"gekündigt|gegangen|gelandet|geworden|befördert)\b.*$|\s+\d.*$",
    re.I,
)
_ARTICLE = re.compile(
    r"^(?:der|die|das|dem|den|des|ein|eine|einen|einem|einer|eines|nen|'nen|mein|meine|meinen|meinem|meiner|unser|"
    r"unsere|unseren|unserem|unserer)\s+",
    re.I,
)
# A place of work is no home: "ich bin ins Büro in Hamburg gewechselt".
_WORK_NOUNS = frozenset("büro firma zentrale filiale werk praxis klinik krankenhaus schule kita".split())
_NOT_THINGS = frozenset("das dies es alles nichts etwas was sowas dem den".split())
# Time, place or manner said between a verb and its object ("wohne jetzt seit März in Kiel").
_ADVERB = (
    r"(?:jetzt|nun|inzwischen|mittlerweile|schon|ja|da|auch|wieder|endlich|gerade|momentan|aktuell|noch|hier|"
    r"übrigens|eigentlich|seit \w+(?: \w+)?|ab \w+(?: \w+)?|im \w+|am \w+|zum \w+)"
)
# What comes before a verb put second: up to four words ("seit dem 1. März", "ab Oktober", "jetzt").
_FRONT = r"(?:[\wäöüß.-]+ ){1,4}?"
_LEAD = (
    r"^(?:(?:also|naja|na ja|ach|und|aber|übrigens|jedenfalls|endlich|tja|ok|okay|ja|juhu|yay|stell dir vor|"
    r"gute nachrichten|neuigkeiten),?:?\s+)*"
)


def _verb(first: str, inverted: str) -> str:
    """A verb of the first person with what may sit around it: "ich wohne jetzt", "wohne" (the pronoun dropped), and
    put second ("seit März wohnen wir")."""
    return rf"(?:(?:(?:ich|wir) )?(?:{first})|{_FRONT}(?:{inverted}))(?: {_ADVERB})*"


_LIVE = _verb("wohne|wohnen|lebe|leben", "wohne ich|wohnen wir|lebe ich|leben wir")
_MOVED = _verb("bin|sind", "bin ich|sind wir")
_WORK = _verb("arbeite|arbeiten", "arbeite ich|arbeiten wir")
_STARTED = _verb("habe|hab|haben", "habe ich|hab ich|haben wir")
_AM = _verb("bin", "bin ich")
_EAT = _verb("esse|ess", "esse ich|ess ich")
_DRIVE = _verb("fahre|fahr", "fahre ich|fahr ich")

_HOME_HINTS = ("wohne", "wohnen", "wohnt", "umgezogen", "gezogen", "wohnung", "haus", "stadt")
_JOB_HINTS = ("arbeite", "arbeitet", "arbeiten", "job", "firma", "stelle", "angefangen")
JOB_NOUNS = (
    r"\w*(?:lehrer|entwickler|programmierer|ingenieur|pfleger|erzieher|designer|architekt|berater|buchhalter|"
    r"journalist|verkäufer|kassierer|kellner|bäcker|elektriker|mechaniker|apotheker|physiotherapeut|polizist|"
    r"manager|leiter|referent|sachbearbeiter|techniker|informatiker|analyst|redakteur|übersetzer|fotograf|"
    r"musiker|friseur|tischler|schreiner|maler|gärtner|fahrer|pilot|anwalt|richter|student|rentner|beamter|"
    r"azubi|praktikant|assistent|therapeut|psycholog|soziolog|biolog|chemiker|physiker|wissenschaftler)"
    r"(?:in|innen|e)?|\w*(?:ärztin|arzt|krankenschwester|hebamme|köchin|koch|anwältin|beamtin|selbstständig|"
    r"selbständig|freiberufler(?:in)?|teamlead|teamleiter(?:in)?)"
)
_DIETS = {
    "vegetarier": "vegetarisch", "vegetarierin": "vegetarisch", "vegetarisch": "vegetarisch",
    "veganer": "vegan", "veganerin": "vegan", "vegan": "vegan",
    "pescetarier": "pescetarisch", "pescetarierin": "pescetarisch", "pescetarisch": "pescetarisch",
    "flexitarier": "flexitarisch", "flexitarierin": "flexitarisch", "flexitarisch": "flexitarisch",
}  # fmt: skip
_DIET = "|".join(sorted(_DIETS, key=len, reverse=True))
_DIET_HINTS = ("vegetarisch", "vegetarier", "vegetarierin", "vegan", "veganer", "veganerin", "fleisch")
_RELATIONSHIP = {
    "freund": "dating", "freundin": "dating", "partner": "dating", "partnerin": "dating",
    "verlobter": "engaged", "verlobte": "engaged", "verlobt": "engaged",
    "mann": "married", "frau": "married", "ehemann": "married", "ehefrau": "married", "verheiratet": "married",
    "geschieden": "single", "getrennt": "single", "single": "single", "verwitwet": "widowed",
}  # fmt: skip
_RELATIONSHIP_HINTS = ("freund", "freundin", "partner", "partnerin", "verlobt", "verheiratet", "mann", "frau")


def _p(slot: str, pattern: str, **kwargs) -> Pattern:
    return Pattern(slot, re.compile(_LEAD + pattern, re.I), **kwargs)


_PATTERNS = [
    # Where one lives: "ich wohne in Kiel", "seit März wohnen wir in Kiel", "wir sind nach Kiel gezogen".
    _p("residence", _LIVE + r" (?:in|im) " + _END, hints=_HOME_HINTS),
    _p("residence", _MOVED + r" (?:\w+ ){0,2}?nach " + _END + r"\s+(?:um|hin)?gezogen", hints=_HOME_HINTS),
    _p("residence", _MOVED + r" (?:\w+ ){0,2}?(?:um|hin)?gezogen,? nach " + _END, hints=_HOME_HINTS),
    _p("residence", r"(?:wir ziehen|ich ziehe|ziehen wir|ziehe ich)(?: \w+){0,2} nach " + _END, hints=_HOME_HINTS),
    _p(
        "residence",
        _STARTED + r" (?:jetzt |endlich )?(?:eine |ein |unsere |meine |die )?(?:neue |eigene )?(?:wohnung|haus|"
        r"häuschen|reihenhaus) in " + _END,
        hints=_HOME_HINTS,
    ),
    # Where one works: "ich arbeite bei Siemens", "ab Oktober arbeite ich für die Stadt", "hab bei Bosch angefangen".
    _p("employer", _WORK + r" (?:bei|für) " + _END, hints=_JOB_HINTS),
    _p("employer", _STARTED + r" (?:\w+ ){0,3}?bei " + _END + r"\s+(?:angefangen|angeheuert)", hints=_JOB_HINTS),
    _p("employer", r"(?:ich fange|fange ich|ich fang|fang ich)(?: \w+){0,3}? bei " + _END, hints=_JOB_HINTS),
    _p("employer", _STARTED + r" (?:\w+ ){0,3}?bei " + _END + r"\s+gekündigt", hints=_JOB_HINTS, negated=True),
    # As what one works: "ich arbeite als Pflegerin", "ich bin Lehrerin", "ich wurde zur Teamleiterin befördert".
    _p("occupation", _WORK + r" als " + _END, hints=_JOB_HINTS),
    _p("occupation", _AM + r" (?:ein |eine |jetzt )?(?P<v>(?:" + JOB_NOUNS + r")\b(?: \w+){0,2})", hints=_JOB_HINTS),
    _p(
        "occupation",
        r"(?:ich )?(?:wurde|bin) (?:\w+ ){0,2}?(?:zum|zur) " + _END + r"\s+befördert(?: worden)?",
        hints=("befördert", "arbeite"),
    ),
    _p("name", r"(?:ich heiße|ich heiss|ich heisse|mein name ist) " + _END, hints=("heiße", "name")),
    _p("age", r"(?:ich )?bin (?:jetzt |gerade )?(?P<v>\d{1,3}) (?:jahre alt|geworden)\b", hints=("jahre", "alt")),
    # Where one stands with a partner: "wir haben uns verlobt", "wir haben geheiratet", "ich bin wieder single".
    _p("relationship", r".*?\bwir haben uns (?:\w+ ){0,2}?verlobt\b", value="engaged", hints=_RELATIONSHIP_HINTS),
    _p(
        "relationship",
        r".*?\b(?:wir haben (?:\w+ ){0,2}?geheiratet|(?:wir sind|ich bin) (?:jetzt |seit \w+ )?verheiratet)\b",
        value="married",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r".*?\b(?:wir haben uns (?:\w+ ){0,2}?getrennt|(?:ich|er|sie) hat (?:mit mir )?schluss gemacht|"
        r"ich habe (?:mit \w+ )?schluss gemacht|wir sind nicht mehr zusammen|ich bin (?:wieder |jetzt )?single)\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r"(?:ich )?bin (?:jetzt |seit \w+ )?(?P<v>verheiratet|geschieden|getrennt|verwitwet|verlobt)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    _p(
        "relationship",
        r".*?\b(?-i:[Mm])ein(?:e|em|er|en)? (?P<v>freund|freundin|partner|partnerin|verlobter|verlobte|mann|frau|"
        r"ehemann|ehefrau)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    # A diet: "ich bin Vegetarierin", "ich bin kein Veganer mehr", "ich esse wieder Fleisch".
    _p("diet", r"(?:ich )?bin (?:kein|keine) (?P<v>" + _DIET + r") mehr\b", hints=_DIET_HINTS, negated=True),
    _p("diet", r"(?:ich )?bin nicht mehr (?P<v>" + _DIET + r")\b", hints=_DIET_HINTS, negated=True),
    _p("diet", _AM + r" (?:ein |eine |jetzt )?(?P<v>" + _DIET + r")\b", hints=_DIET_HINTS),
    _p("diet", _EAT + r" (?:wieder|auch wieder) (?:fleisch|fisch)\b", value="omnivor", hints=_DIET_HINTS),
    _p("diet", _EAT + r" (?:kein|keinen) fleisch(?: mehr)?\b", value="vegetarisch", hints=_DIET_HINTS),
    # A favourite: "mein Lieblingsfilm ist Alien", "meine Lieblingsband sind die Ärzte".
    _p(
        "favourite {0}",
        r"(?:mein|meine) (?:neuer |neue |neues )?lieblings(?P<what>\w{2,30}) (?:ist|sind) (?:jetzt |gerade )?" + _END,
        hints=("lieblings",),
    ),
    # Whether one likes a thing: "ich liebe Sushi", "ich mag Kaffee nicht mehr", "ich hasse Kaffee".
    _p("likes {0}", r"(?:ich )?(?:mag|liebe) " + _END + r" nicht(?: mehr)?$", value="no"),
    _p("likes {0}", r"(?:ich )?(?:hasse|verabscheue) " + _END, value="no", strict=True),
    _p("likes {0}", r"(?:ich )?(?:mag|liebe) (?:total |wirklich |echt )?" + _END, value="yes", strict=True),
    # The car one drives: "ich fahre einen Golf", "seit März fahren wir einen Skoda".
    _p(
        "car",
        _DRIVE + r" (?:einen|ein|eine|nen|'nen|meinen|unseren) (?P<v>(?-i:[A-ZÄÖÜ])[\w-]*(?: [A-Z0-9][\w-]*)?)",
        hints=("fahre", "auto", "wagen"),
    ),
]
_CONDITIONAL = re.compile(
    r"\b(?:wenn|falls|vielleicht|würde|würden|könnte|könnten|hätte|hätten|wäre|wären|möchte|will|wollen|plane|"
    r"planen|überlege|überlegen|hoffentlich)\b",
    re.I,
)
NAME_RUN = re.compile(r"\b[A-ZÄÖÜ][\w'’-]*(?: [A-ZÄÖÜ][\w'’-]*)*")
NOT_THINGS = _NOT_THINGS

# An LLM's fact in the third person, read as the first: "Jonas wohnt in…" → "wohne in…".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÄÖÜ][\w-]+(?: [A-ZÄÖÜ][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "wohnt": "wohne", "lebt": "lebe", "arbeitet": "arbeite", "ist": "bin", "hat": "habe", "fährt": "fahre",
    "isst": "esse", "heißt": "heiße", "mag": "mag", "liebt": "liebe", "hasst": "hasse", "fängt": "fange",
    "wurde": "wurde", "zog": "bin",
}  # fmt: skip
_NOT_SUBJECTS = frozenset(
    "der die das ein eine mein meine sein seine ihr ihre dein deine unser unsere heute gestern jetzt ich wir und "
    "aber also seit ab im am".split()
)
_FIRST_PERSON = re.compile(r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:ich|wir|mein|meine|meinen|meinem|unser|unsere)\b", re.I)

_READER = SlotReader(
    patterns=_PATTERNS,
    sentences=ANY_SENTENCE,
    clauses=re.compile(r",\s+|;\s+|\s+aber\s+|\s+und\s+(?=(?:ich|wir)\b)", re.I),
    value_stop=_VALUE_STOP,
    article=_ARTICLE,
    not_things=_NOT_THINGS,
    conditional=_CONDITIONAL,
    subject=_SUBJECT,
    not_subjects=_NOT_SUBJECTS,
    first_person_verbs=_FIRST_PERSON_VERBS,
    first_person=_FIRST_PERSON,
    not_homes=_WORK_NOUNS,
    normal={"diet": lambda value: _DIETS.get(value, value)},
)


def statement(text: str) -> Statement:
    """What ``text`` states of one person ("Jonas: Ich wohne in Augsburg." or "Jonas wohnt in Augsburg.")."""
    return _READER.statement(text)
