"""German: the everyday subjects a bot is asked of ("erzähl von der Familie", "Haustiere?", "was macht sie
beruflich?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"familie|geschwister|kinder|verheiratet|partner\w*|freund(?:in)?|frau|mann|ehe\w*|beziehung|hochzeit|"
        r"verlobt\w*|single",
        "familie schwester bruder mutter mama vater papa eltern sohn tochter kinder baby frau mann ehefrau ehemann "
        "partner partnerin freund freundin verlobt verheiratet hochzeit oma opa tante onkel cousin cousine",
    ),
    _c(
        "pets",
        r"haustier\w*|tier\w*",
        "hund hunde katze katzen kater welpe kätzchen hamster kaninchen papagei fisch pferd adoptiert tierarzt",
    ),  # fmt: skip
    _c(
        "work",
        r"beruf\w*|arbeit\w*|job|jobs|firma|stelle|studi\w*|ausbildung|was macht (?:er|sie) beruflich",
        "arbeit arbeite arbeitet job firma büro kollegen chef chefin angefangen gekündigt stelle schicht kunden "
        "krankenpfleger krankenschwester lehrer lehrerin ingenieur ingenieurin ärztin arzt studium studentin student",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"wo wohnt|wo wohnst|wohn\w*|zuhause|zu hause|stadt|in der nähe|umzug|umgezogen|adresse",
        "wohne wohnt wohnen umgezogen gezogen wohnung haus stadt viertel schlüssel",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"essen|isst|ernährung|kochen|abendessen|mittagessen|restaurant|rezept\w*|allergi\w*",
        "esse essen vegetarisch vegetarierin vegetarier vegan veganerin allergisch allergie laktose gluten nüsse "
        "fleisch fisch kochen",
        ("diet",),
    ),
    _c(
        "health",
        r"gesundheit|krank\w*|arzt|medikament\w*|allergi\w*|verletz\w*",
        "allergisch allergie asthma diabetes medikamente operation verletzung knie rücken schwanger migräne",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"hobby|hobbys|freizeit|wochenende\w*|spaß|interessen",
        "hobby spiele spielt gitarre klavier chor singen tanzen malen lesen schach laufen klettern schwimmen yoga "
        "fotografie garten verein kurs",
    ),  # fmt: skip
    _c(
        "sport",
        r"sport\w*|fitness\w*|training|trainiert|marathon|bewegung|fit hält|fußball",
        "marathon laufen joggen training fitnessstudio radfahren schwimmen yoga fußball tennis klettern bouldern "
        "wandern",
    ),
    _c(
        "getting around",
        # Not any "fahren" ("Wohin fährt sie im Urlaub?" is travel): what one drives, and how one gets to work.
        r"auto|wagen|fahrrad|verkehrsmittel|pendel\w*|zur arbeit|womit fährt|was fährt|was für ein auto",
        "auto wagen fahrrad rad e-bike bus bahn s-bahn u-bahn zug straßenbahn roller motorrad",
    ),
    _c("travel", r"reise\w*|urlaub|ferien|ausflug", "reise urlaub ferien flug hotel strand gebucht besuch ausflug"),
)
