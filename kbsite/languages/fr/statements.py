"""French: reading what a text states of one person's one-valued attributes: where they live, where and as what they
work, their name and age, where they stand with a partner, their diet, whether they like a thing.

Statements are about one person, in their own words ("Claire: J'habite à Lyon", an offline fact) or an LLM's
("Claire habite à Lyon"), which is read as the first person. Questions and conditions state nothing. The rules are
the language's general forms (a verb of the attribute and what follows it, "je" elided or not, "on" for "nous"),
never a sentence of a case; what has the shape of a statement and states none ("j'habite à deux pas", "je travaille
à la maison", "j'ai quitté Paris") is told apart by the words that open its value.
"""

from __future__ import annotations

import re

from kbsite.languages.fr.words import ANY_SENTENCE
from kbsite.languages.reading import Statement
from kbsite.languages.slots import SlotReader, patterns_led_by

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?()\"]+)"
# Where a value ends: the next clause, or a time, place or manner said of it. An article stops it only in lower case
# and not after "de": "l'Hôpital de la Croix-Rousse" and "La Rochelle" are one name each.
_VALUE_STOP = re.compile(
    r"\s+(?:(?i:et|mais|parce que|car|avec|chez|depuis|il y a|en|au|aux|à|dans|jusqu\w*|quand|pendant|pour|par|"
    r"bien que|maintenant|désormais|déjà|encore|aussi|toujours|bientôt|aujourd['’]hui|hier|demain|après|avant|que|"
    r"qui|où|cette|ce|cet|ces|ça|ya|y a|tout|toute|tous|toutes|l['’]an|l['’]année|lundi|mardi|mercredi|jeudi|"
    r"vendredi|samedi|dimanche))\b.*$"
    r"|(?<!\bde)\s+(?:le|la|les)\b.*$"
    r"|\s+\d.*$"
)
# An article or possessive opening a value, left out of it, as the values are compared: "à La Rochelle" and "de la
# Rochelle" say one place.
_ARTICLE = re.compile(r"^(?:(?:les|le|la|une|un|des|du|mon|ma|mes|notre|nos)\s+|[ld]['’])", re.I)
# A place of work is no home: "on a déménagé au bureau de Lille".
_WORK_NOUNS = frozenset(
    "bureau bureaux siège agence boutique magasin usine hôpital clinique école lycée collège".split()
)
_HOME_HINTS = ("habite", "habitons", "vis", "vivons", "déménagé", "emménagé", "installé", "appart", "maison", "ville")
_JOB_HINTS = ("travaille", "travaillons", "bosse", "boulot", "travail", "entreprise", "boîte", "poste", "job")
JOB_NOUNS = (
    r"infirmi[eè]re?|médecin|dentiste|pharmacien(?:ne)?|kiné|kinésithérapeute|psychologue|professeure?|prof|"
    r"enseignante?|instit|instituteur|institutrice|ingénieure?|développeuse|développeur|dév|programmeuse|programmeur|"
    r"designer|graphiste|architecte|avocate?|juriste|notaire|comptable|économiste|journaliste|écrivaine?|"
    r"traductrice|traducteur|serveuse|serveur|cuisini[eè]re?|cheffe?|boulang[eè]re?|pâtissi[eè]re?|vendeuse|vendeur|"
    r"caissi[eè]re?|secrétaire|assistante?|gérante?|directrice|directeur|responsable|technicienne?|électricienne?|"
    r"plombi[eè]re?|mécanicienne?|chauffeur|chauffeuse|livreur|livreuse|pilote|polici[eè]re?|gendarme|pompi[eè]re?|"
    r"vétérinaire|chercheuse|chercheur|consultante?|analyste|étudiante?|stagiaire|photographe|musicienne?|"
    r"menuisi[eè]re?|charpenti[eè]re?|maçon|agricultrice|agriculteur|coiffeuse|coiffeur|aide-soignante?|sage-femme|"
    r"fonctionnaire|éducatrice|éducateur|libraire|fleuriste|bouch[eè]re?|commerciale?|conseill[eè]re?|ouvri[eè]re?|"
    r"artisane?|retraitée?|auto-entrepreneur|auto-entrepreneuse|freelance|indépendante?"
)
_DIETS = r"végétarien(?:ne)?s?|végé|végane?s?|vegane?s?|pescétarien(?:ne)?s?|flexitarien(?:ne)?s?|cœliaque|coeliaque"
# One diet by any of its forms: "végétarienne", "végé" and "végétariens" are one diet.
_DIET_FORMS = {
    "végétarienne": "végétarien", "végétariens": "végétarien", "végétariennes": "végétarien", "végé": "végétarien",
    "végane": "végan", "véganes": "végan", "végans": "végan", "vegan": "végan", "vegane": "végan",
    "veganes": "végan", "vegans": "végan", "pescétarienne": "pescétarien", "pescétariens": "pescétarien",
    "pescétariennes": "pescétarien", "flexitarienne": "flexitarien", "flexitariens": "flexitarien",
    "flexitariennes": "flexitarien", "coeliaque": "cœliaque",
}  # fmt: skip
_RELATIONSHIP = {
    "copain": "dating", "copine": "dating", "petit ami": "dating", "petite amie": "dating", "chéri": "dating",
    "chérie": "dating", "mec": "dating", "compagnon": "dating", "compagne": "dating", "fiancé": "engaged",
    "fiancée": "engaged", "fiancés": "engaged", "mari": "married", "femme": "married", "époux": "married",
    "épouse": "married", "marié": "married", "mariée": "married", "mariés": "married", "pacsé": "married",
    "pacsée": "married", "divorcé": "single", "divorcée": "single", "séparé": "single", "séparée": "single",
    "célibataire": "single",
}  # fmt: skip
_DIET_HINTS = ("végétarienne", "végétarien", "végane", "vegan", "viande", "poisson")
_RELATIONSHIP_HINTS = ("copain", "copine", "fiancé", "fiancée", "mari", "femme", "époux", "épouse", "compagnon")
_LEAD = (
    r"^(?:(?:bon|bref|alors|donc|et|mais|maintenant|enfin|finalement|aussi|du coup|au final|sinon|bah|ben|ouais|"
    r"oui|là|depuis peu|cette année|cet été|le mois dernier|l['’]an dernier|la semaine dernière),?\s+)*"
)
# The speaker: "je" elided or not, "on" and "nous" for a couple or a family.
_I = r"(?:moi,? )?(?:je |j['’]|on |nous )"
# A verb's infinitive: what one works for or starts doing ("je travaille pour payer", "j'ai commencé à courir"),
# no employer.
_NO_INFINITIVE = r"(?!(?-i:[a-zà-ÿ])[\w'’-]*(?:er|ir|re|oir)\b)"

_p = patterns_led_by(_LEAD)

# Where one lives, said of no place: "j'habite à deux pas", "dans le coin", "en coloc", "à la campagne".
_NOT_HOMES = frozenset(
    "deux trois quelques cinq dix coin bout face côté même quartier immeuble appart appartement maison studio "
    "coloc colocation campagne banlieue centre centre-ville étage rez-de-chaussée nuages lune paix peur passé "
    "présent futur ici là là-bas attendant rue".split()
)
# Where one works, said of no employer: from home, part time, at night, a weekday, flat out, off the books, with whom.
_NOT_EMPLOYERS = frozenset(
    "maison domicile distance télétravail temps mi-temps plein nuit jour matin soir midi lundi mardi mercredi jeudi "
    "vendredi samedi dimanche semaine week-end weekend fond mort noir black chaîne rythme calme moi toi lui elle "
    "nous vous eux elles soi côté équipe ordi ordinateur mon ma mes".split()
)
# What one starts that is no employer: studies, a sport, a course.
_NOT_STARTED = _NOT_EMPLOYERS | frozenset(
    "fac faculté université école lycée collège cours formation master licence doctorat salle gym sport club "
    "yoga piscine zéro".split()
)
# As what one works, said of how or when: "je bosse comme un fou", "comme d'habitude".
_NOT_TITLES = frozenset("un une fou folle dingue malade chien bête esclave d'hab d'habitude toujours prévu".split())

_PATTERNS = [
    # Where one lives: "j'habite à Lyon", "j'habite Nantes", "on vit à Lille", "nous habitons dans un appart à Metz".
    _p(
        "residence",
        _I + r"(?:habite|habitons|vis|vit|vivons|réside|résidons) (?:maintenant |désormais |toujours |encore |"
        r"actuellement |depuis peu )?(?:(?:à|au|aux|en|dans|sur) |(?=(?-i:[A-ZÀ-Ý])))"
        # A home named before where it is: "j'habite dans un petit appart à Metz".
        r"(?:(?:un |une |le |la |l['’]|mon |ma |notre )?(?:petit |petite |grand |grande |nouvel |nouveau |nouvelle )?"
        r"(?:appart(?:ement)?|maison|studio|t\d|f\d|coloc|colocation|logement)(?: \w+)? (?:à|au|en|dans|sur) )?" + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A move: "on a déménagé à Lille", "je me suis installée à Rennes", "on vient d'emménager à Metz", "je suis partie
    # vivre à Montréal".
    _p(
        "residence",
        _I + r"(?:ai|a|avons|suis|sommes|me suis|s['’]est|nous sommes) (?:enfin |finalement |donc |déjà |récemment )?"
        r"(?:déménagé|emménagé|installé|parti vivre|partie vivre|partis vivre|parties vivre|allé vivre|allée vivre|"
        r"allés vivre|retourné vivre|retournée vivre|retournés vivre)(?:e|s|es)? (?:(?:là-bas|ici|aussi) )?"
        r"(?:à|au|aux|en|dans|sur) " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    _p(
        "residence",
        _I + r"(?:viens|vient|venons) d['’]?(?:emménager|déménager|de déménager|m['’]installer|nous installer|"
        r"s['’]installer|de m['’]installer|de nous installer) (?:à|au|aux|en|dans|sur) " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A new home of one's own named anywhere in a clause: "les cartons de notre nouvel appart à Rennes". The place is
    # a name, said with a capital: "ma nouvelle maison en travaux" names none.
    _p(
        "residence",
        r"(?:.*?\b)?(?:mon|ma|notre) (?:nouvel|nouveau|nouvelle) (?:appart(?:ement)?|maison|studio|logement|chez-moi|"
        r"chez-nous) (?:à|au|en|dans|sur) "
        r"(?P<v>(?-i:[A-ZÀ-Ý])[\w'’-]*(?: (?:d[eu]s?|la|le|l['’]|sur|en) ?(?-i:[A-ZÀ-Ý])[\w'’-]*)*)\b",
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # Where one works: "je travaille chez Renault", "je bosse pour une ONG", "j'ai été embauchée chez Airbus".
    _p(
        "employer",
        _I + r"(?:travaille|travaillons|bosse|bossons) (?:maintenant |désormais |actuellement |toujours |encore )?"
        r"(?:chez|pour|à|au|aux|dans) " + _NO_INFINITIVE + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        _I
        + r"(?:ai|a|avons) (?:commencé|démarré|débuté) (?:à (?:travailler|bosser) )?(?:chez|à|au|aux) "
        + _NO_INFINITIVE
        + _END,
        hints=_JOB_HINTS + ("commencé",),
        not_first=_NOT_STARTED,
    ),
    _p(
        "employer",
        _I + r"(?:ai été|a été|suis|viens d['’]être) (?:embauché|recruté|engagé|pris)(?:e|s|es)? "
        r"(?:chez|par|à|au|aux|dans) " + _END,
        hints=_JOB_HINTS + ("embauché", "embauchée", "recruté", "recrutée"),
        not_first=_NOT_EMPLOYERS,
    ),
    # Where one no longer works: "j'ai démissionné de la Poste", "j'ai quitté mon boulot chez Orange" ("j'ai quitté
    # Paris" leaves a city, not a job).
    _p(
        "employer",
        _I + r"(?:ai|a) (?:démissionné|démissioné) (?:de (?:chez )?|d['’]|du |des )" + _NO_INFINITIVE + _END,
        hints=_JOB_HINTS + ("démissionné",),
        negated=True,
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        _I + r"(?:ai|a) (?:quitté|lâché|plaqué) (?:mon|ma|le|la) (?:boulot|travail|job|poste|taf|boîte) "
        r"(?:chez|à|au|aux|de|d['’]|du|dans) " + _END,
        hints=_JOB_HINTS + ("quitté",),
        negated=True,
        not_first=_NOT_EMPLOYERS,
    ),
    # As what one works: "je travaille comme infirmière", "je suis prof", "j'ai été promue cheffe d'équipe".
    _p(
        "occupation",
        _I + r"(?:travaille|bosse|travaillons|bossons) (?:maintenant |désormais )?(?:comme|en tant que) " + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_TITLES,
    ),
    _p(
        "occupation",
        _I + r"(?:suis|sommes) (?:maintenant |désormais |devenue? )?(?:un |une )?"
        r"(?P<v>(?:" + JOB_NOUNS + r")(?: (?:(?:des|du|de|en) |d['’])[\w'’-]+)?)\b",
        hints=_JOB_HINTS,
    ),
    _p("occupation", _I + r"(?:ai été|suis) (?:promu|promue|nommé|nommée) " + _END, hints=("promu", "promue", "poste")),
    _p("name", r"(?:je m['’]appelle|mon nom est|mon prénom est) " + _END, hints=("appelle", "nom")),
    # "moi c'est Julie": a name, said with a capital ("moi c'est les tuyaux" is none).
    _p("name", r"moi c['’]est (?P<v>(?-i:[A-ZÀ-Ý])[\w'’-]+)$", hints=("appelle", "nom")),
    _p("age", _I + r"(?:ai|a) (?P<v>\d{1,3}) ans\b", hints=("ans",)),
    # Where one stands with a partner: "on s'est fiancés", "on s'est mariés", "on a rompu", "mon copain Paul".
    _p(
        "relationship",
        r".*?\b(?:on s['’]est|nous nous sommes|je me suis) fiancé(?:e|s|es)?\b",
        value="engaged",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r".*?\b(?:on s['’]est|nous nous sommes|je me suis) (?:marié|pacsé)(?:e|s|es)?\b",
        value="married",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r".*?\b(?:(?:on s['’]est|nous nous sommes|je me suis) (?:séparé|quitté)(?:e|s|es)?|on a (?:rompu|divorcé)|"
        r"j['’]ai (?:rompu|divorcé)|nous avons (?:rompu|divorcé))\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        _I + r"(?:suis|sommes) (?:de nouveau |à nouveau |toujours )?(?P<v>célibataire|marié(?:e|s)?|divorcé(?:e)?|"
        r"séparé(?:e|s)?|pacsé(?:e|s)?|fiancé(?:e|s)?)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP | {"mariés": "married", "séparés": "single", "pacsés": "married", "fiancés": "engaged"},
    ),
    _p(
        "relationship",
        r".*?\b(?:mon|ma) (?P<v>copain|copine|petit ami|petite amie|chéri|chérie|mec|compagnon|compagne|fiancé|"
        r"fiancée|mari|femme|époux|épouse)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    # A diet: "je suis végétarienne", "je ne suis plus vegan", "j'ai recommencé à manger de la viande".
    _p(
        "diet",
        _I + r"(?:ne suis plus|suis plus|ne suis plus du tout) (?P<v>" + _DIETS + r")\b",
        hints=_DIET_HINTS,
        negated=True,
        mapped=_DIET_FORMS,
    ),
    _p(
        "diet",
        _I + r"(?:suis|sommes) (?:maintenant |désormais |devenue? |passée? )?(?P<v>" + _DIETS + r")\b",
        hints=_DIET_HINTS,
        mapped=_DIET_FORMS,
    ),
    _p(
        "diet",
        _I + r"(?:remange|remangeons|mange à nouveau|ai recommencé à manger|ai repris la|reprends la) "
        r"(?:de la |du )?(?:viande|poisson)\b",
        value="omnivore",
        hints=_DIET_HINTS + ("mange",),
    ),
    # Whether one likes a thing: "j'adore les sushis", "je n'aime plus le café".
    _p(
        "likes {0}",
        r"(?:je n['’]aime plus|je n['’]aime pas|j['’]aime plus|j['’]aime pas|je déteste|je ne supporte plus) " + _END,
        value="no",
        strict=True,
    ),
    _p(
        "likes {0}",
        r"(?:j['’]adore|j['’]aime beaucoup|j['’]aime bien|j['’]aime|je kiffe) " + _END,
        value="yes",
        strict=True,
    ),
]
NOT_THINGS = frozenset("ça cela ceci ce que tout rien quelque y en".split())
_CONDITIONAL = re.compile(
    r"\b(?:si|s['’]il|s['’]ils|peut-être|j['’]aimerais|je voudrais|voudrais|ce serait|pourrais|pourrait|"
    r"devrais|devrait|rêve|rêverais|aimerais|envisage|envisageons|pense à|pensons à|hésite)\b",
    re.I,
)

# An LLM's fact in the third person, read as the first: "Claire habite à Lyon" → "j'habite à Lyon".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÀ-Ý][\w-]+(?: [A-ZÀ-Ý][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "habite": "j'habite", "vit": "je vis", "réside": "je réside", "travaille": "je travaille", "bosse": "je bosse",
    "est": "je suis", "a": "j'ai", "s'est": "je me suis", "s’est": "je me suis", "vient": "je viens",
    "n'est": "je ne suis", "n’est": "je ne suis", "s'appelle": "je m'appelle", "s’appelle": "je m'appelle",
    "adore": "j'adore", "aime": "j'aime", "n'aime": "je n'aime", "n’aime": "je n'aime", "déteste": "je déteste",
    "remange": "je remange",
}  # fmt: skip
_NOT_SUBJECTS = frozenset(
    "le la les un une mon ma mes son sa ses notre nos ce cette aujourd'hui hier demain maintenant je tu il elle on "
    "nous vous ils elles et mais depuis quand après avant ici là".split()
)
_FIRST_PERSON = re.compile(
    r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:je|j['’]|moi|me|m['’]|mon|ma|mes|on|nous|notre|nos)(?:\b|(?<=['’]))", re.I
)
# Where a sentence's clauses part: a comma, "mais", and "et" before a clause of the speaker's own ("je m'appelle
# Claire et j'habite à Lyon"), not inside a value ("Lyon et Grenoble").
CLAUSES = re.compile(
    r",\s+|;\s+|\s+(?i:mais)\s+|\s+(?i:et)\s+(?=(?:maintenant |aussi |puis |du coup |là )?(?:je|j['’]|on|nous)"
    r"(?:\b|(?<=['’])))"
)
# Where a statement of several attributes may be cut, each part stating its own: its clauses.
PARTS = CLAUSES
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
    clauses=CLAUSES,
    works_at=_WORKS_AT,
    job_hints=_JOB_HINTS,
)


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person ("Claire: J'habite à Lyon." or "Claire habite à Lyon.")."""
    return _READER.statement(text, own)
