"""French: reading what a text states of one person's one-valued attributes: where they live, where and as what they
work, their name and age, where they stand with a partner, their diet, whether they like a thing.

Statements are about one person, in their own words ("Claire : J'habite à Lyon", an offline fact) or an LLM's
("Claire habite à Lyon"), which is read as the first person. Questions and conditions state nothing. The rules are
the language's general forms (a verb of the attribute and what follows it, "je" elided or not, "on" for "nous"),
never a sentence of a case.
"""

from __future__ import annotations

import re

from kbsite.languages.fr.words import ANY_SENTENCE
from kbsite.languages.reading import Statement
from kbsite.languages.slots import SlotReader, patterns_led_by

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?()\"]+)"
# Where a value ends: the next clause, or a time, place or manner said of it. An article stops it only in lower
# case: "l'Hôpital de la Croix-Rousse" is one name.
_VALUE_STOP = re.compile(
    r"\s+(?:(?i:et|mais|parce que|car|avec|depuis|il y a|en|au|aux|à|dans|jusqu|quand|pendant|pour|par|bien que|"
    r"maintenant|déjà|encore|aussi|bientôt|aujourd'hui|hier|demain|après|avant|que|qui)|le|la|les|ce|cette)\b.*$"
    r"|\s+\d.*$"
)
_ARTICLE = re.compile(r"^(?:(?:les|le|la|une|un|des|mon|ma|mes|notre|nos)\s+|l['’])", re.I)
# A place of work is no home: "on a déménagé au bureau de Lille".
_WORK_NOUNS = frozenset("bureau siège agence boutique usine hôpital clinique école lycée collège".split())
_HOME_HINTS = ("habite", "habitons", "vis", "vivons", "déménagé", "déménagement", "appart", "maison", "ville")
_JOB_HINTS = ("travaille", "travaillons", "boulot", "travail", "entreprise", "poste")
JOB_NOUNS = (
    r"infirmi[eè]re?|médecin|dentiste|pharmacien(?:ne)?|kiné|psychologue|professeur|prof|enseignante?|"
    r"instituteur|institutrice|ingénieure?|développeuse|développeur|programmeuse|programmeur|designer|architecte|"
    r"avocate?|comptable|économiste|journaliste|écrivain|traductrice|traducteur|serveuse|serveur|cuisini[eè]re?|"
    r"chef|boulang[eè]re?|vendeuse|vendeur|caissi[eè]re?|secrétaire|gérante?|directrice|directeur|technicienne?|"
    r"électricienne?|plombi[eè]re?|mécanicienne?|chauffeur|pilote|polici[eè]re?|pompi[eè]re?|vétérinaire|"
    r"chercheuse|chercheur|consultante?|analyste|étudiante?|stagiaire|photographe|musicienne?|menuisi[eè]re?|"
    r"agricultrice|agriculteur|coiffeuse|coiffeur|aide-soignante?"
)
_DIETS = r"végétarien(?:ne)?s?|végane?s?|vegan|pescétarien(?:ne)?s?|flexitarien(?:ne)?s?"
_RELATIONSHIP = {
    "copain": "dating", "copine": "dating", "petit ami": "dating", "petite amie": "dating", "fiancé": "engaged",
    "fiancée": "engaged", "fiancés": "engaged", "mari": "married", "femme": "married", "époux": "married",
    "épouse": "married", "marié": "married", "mariée": "married", "mariés": "married", "divorcé": "single",
    "divorcée": "single", "séparé": "single", "séparée": "single", "célibataire": "single",
}  # fmt: skip
_DIET_HINTS = ("végétarienne", "végétarien", "végane", "vegan", "viande", "poisson")
_RELATIONSHIP_HINTS = ("copain", "copine", "fiancé", "fiancée", "mari", "femme", "époux", "épouse")
_LEAD = r"^(?:(?:bon|bref|alors|donc|et|mais|maintenant|enfin|finalement|aussi|du coup|au final),?\s+)*"
_I = r"(?:je |j'|j’|moi je |moi j'|on |nous )"

_p = patterns_led_by(_LEAD)

_PATTERNS = [
    # Where one lives: "j'habite à Lyon", "on vit à Nantes", "on a déménagé à Lille", "je me suis installée à Rennes".
    _p(
        "residence",
        _I
        + r"(?:habite|habitons|vis|vit|vivons|réside) (?:maintenant |désormais |toujours )?(?:à|au|aux|en|dans) "
        + _END,
        hints=_HOME_HINTS,
    ),
    _p(
        "residence",
        _I + r"(?:ai|a|avons|suis|sommes) (?:enfin |finalement )?(?:déménagé(?:e|s|es)?|emménagé(?:e|s|es)?|"
        r"installé(?:e|s|es)?) (?:à|au|aux|en|dans|sur) " + _END,
        hints=_HOME_HINTS,
    ),
    _p(
        "residence",
        _I + r"(?:me suis|nous sommes|s'est) (?:enfin )?installé(?:e|s|es)? (?:à|au|aux|en|dans) " + _END,
        hints=_HOME_HINTS,
    ),
    # Where one works: "je travaille chez Renault", "j'ai commencé chez Decathlon", "j'ai été embauchée chez Airbus".
    _p(
        "employer",
        _I + r"(?:travaille|travaillons|bosse|bossons) (?:maintenant |désormais )?(?:chez|pour|à|au|dans) " + _END,
        hints=_JOB_HINTS,
    ),
    _p(
        "employer",
        _I + r"(?:ai|a) (?:commencé|démarré) (?:à travailler )?(?:chez|à|au|dans) " + _END,
        hints=_JOB_HINTS + ("commencé",),
    ),
    _p(
        "employer",
        _I + r"(?:ai été|suis) (?:embauché(?:e)?|recruté(?:e)?|pris(?:e)?) (?:chez|par|à|au|dans) " + _END,
        hints=_JOB_HINTS + ("embauché", "embauchée"),
    ),
    _p(
        "employer",
        _I + r"(?:ai quitté|quitte) (?:mon (?:boulot|travail|poste) )?(?:chez |à |au )?" + _END,
        hints=_JOB_HINTS + ("quitté",),
        negated=True,
    ),
    # As what one works: "je travaille comme infirmière", "je suis prof", "j'ai été promue cheffe d'équipe".
    _p("occupation", _I + r"(?:travaille|bosse) comme (?:un |une )?" + _END, hints=_JOB_HINTS),
    _p("occupation", _I + r"suis (?:un |une )?(?P<v>(?:" + JOB_NOUNS + r")(?: \w+){0,2})", hints=_JOB_HINTS),
    _p("occupation", _I + r"(?:ai été|suis) promu(?:e)? " + _END, hints=("promu", "promue", "travail")),
    _p("name", r"(?:je m'appelle|je m’appelle|mon nom est|moi c'est) " + _END, hints=("appelle", "nom")),
    _p("age", _I + r"(?:ai|a) (?P<v>\d{1,3}) ans", hints=("ans",)),
    # Where one stands with a partner: "on s'est fiancés", "on s'est mariés", "on s'est séparés", "mon copain Paul".
    _p(
        "relationship",
        r".*?\b(?:on s'est|nous nous sommes|je me suis) fiancé(?:e|s|es)?\b",
        value="engaged",
        hints=_RELATIONSHIP_HINTS,
    ),  # fmt: skip
    _p(
        "relationship",
        r".*?\b(?:on s'est|nous nous sommes|je me suis) marié(?:e|s|es)?\b",
        value="married",
        hints=_RELATIONSHIP_HINTS,
    ),  # fmt: skip
    _p(
        "relationship",
        r".*?\b(?:on s'est|nous nous sommes|je me suis) (?:séparé|quitté|divorcé)(?:e|s|es)?\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        _I + r"suis (?P<v>célibataire|marié(?:e)?|divorcé(?:e)?|séparé(?:e)?)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    _p(
        "relationship",
        r".*?\b(?:mon|ma) (?P<v>copain|copine|petit ami|petite amie|fiancé|fiancée|mari|femme|époux|épouse)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    # A diet: "je suis végétarienne", "je ne suis plus vegan", "je remange de la viande".
    _p("diet", _I + r"(?:ne suis plus|suis plus) (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS, negated=True),
    _p("diet", _I + r"suis (?:devenue? )?(?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS),
    _p(
        "diet",
        _I + r"(?:remange|remangeons|mange à nouveau|ai recommencé à manger) (?:de la |du )?(?:viande|poisson)\b",
        value="omnivore",
        hints=_DIET_HINTS + ("mange",),
    ),
    # Whether one likes a thing: "j'adore les sushis", "je n'aime plus le café".
    _p("likes {0}", r"(?:je n'aime plus|je n'aime pas|j'aime plus|je déteste) " + _END, value="no", strict=True),
    _p("likes {0}", r"(?:j'adore|j'aime beaucoup|j'aime bien|j'aime|je kiffe) " + _END, value="yes", strict=True),
]
NOT_THINGS = frozenset("ça cela ceci ce que tout rien quelque".split())
_CONDITIONAL = re.compile(r"\b(?:si|peut-être|j'aimerais|je voudrais|ce serait|pourrais|pourrait)\b", re.I)

# An LLM's fact in the third person, read as the first: "Claire habite à Lyon" → "j'habite à Lyon".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÀ-Ý][\w-]+(?: [A-ZÀ-Ý][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "habite": "j'habite", "vit": "je vis", "travaille": "je travaille", "est": "je suis", "a": "j'ai",
    "s'appelle": "je m'appelle", "adore": "j'adore", "aime": "j'aime", "déteste": "je déteste",
}  # fmt: skip
_NOT_SUBJECTS = frozenset(
    "le la les un une mon ma mes son sa ce cette aujourd'hui hier je tu il elle on nous vous ils elles et mais".split()
)
_FIRST_PERSON = re.compile(r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:je|j'|j’|moi|mon|ma|mes|on|nous|notre|nos)\b", re.I)
# Where a sentence's clauses part: a comma, "mais", and "et" before a clause of the speaker's own ("je m'appelle
# Claire et j'habite à Lyon"), not inside a value ("Lyon et Grenoble").
_CLAUSES = re.compile(r",\s+|;\s+|\s+(?i:mais)\s+|\s+(?i:et)\s+(?=(?:maintenant |aussi |puis )?(?:je|j'|j’|on|nous)\b)")
# Where one works, said after as what: "… comme infirmière à l'hôpital Édouard-Herriot", "… comme serveur dans un bar".
_WORKS_AT = re.compile(r"\s*(?:chez|à|au|dans|pour) (?P<v>[^,.;:!?()\"]+?)\s*$")

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
    clauses=_CLAUSES,
    works_at=_WORKS_AT,
    job_hints=_JOB_HINTS,
)


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person ("Claire : J'habite à Lyon." or "Claire habite à Lyon.")."""
    return _READER.statement(text, own)
