"""German: the everyday subjects a bot is asked of ("erzähl von der Familie", "Haustiere?", "was macht sie
beruflich?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"familie|geschwister|kinder|verheiratet|partner\w*|freund(?:in)?|frau|mann|ehe\w*|beziehung|hochzeit|"
        r"verlobt\w*|single|familien|verwandt\w*|liebesleben|romantik|romantisch\w*|heirat\w*|geheiratet",
        "familie schwester bruder mutter mama vater papa eltern sohn tochter kinder baby frau mann ehefrau ehemann "
        "partner partnerin freund freundin verlobt verheiratet hochzeit oma opa tante onkel cousin cousine schwestern "
        "brüder geschwister söhne töchter kind verlobter verlobte verlobung großmutter großvater großeltern nichte "
        "neffe zwillinge beziehung antrag heiratsantrag geheiratet heiraten zusammen geboren",
    ),
    _c(
        "pets",
        r"haustier\w*|tier\w*",
        "hund hunde katze katzen kater welpe kätzchen hamster kaninchen papagei fisch pferd adoptiert tierarzt "
        "haustier haustiere hase schildkröte hühner ziegen meerschweinchen wellensittich eidechse tierheim tierärztin "
        "labrador pudel dackel mops windhund beagle husky",
    ),  # fmt: skip
    _c(
        "work",
        r"beruf\w*|arbeit\w*|job|jobs|firma|stelle|studi\w*|ausbildung|was macht (?:er|sie) beruflich|karriere|uni|"
        r"universität|doktorand\w*|promoviert|student\w*",
        "arbeit arbeite arbeitet job firma büro kollegen chef chefin angefangen gekündigt stelle schicht kunden "
        "krankenpfleger krankenschwester lehrer lehrerin ingenieur ingenieurin ärztin arzt studium studentin student "
        "arbeiten karriere arbeitgeber unternehmen kollege kollegin unterrichte unterrichtet entwickler entwicklerin "
        "programmierer programmiererin designer designerin manager managerin leiter leiterin anwalt anwältin "
        "eingestellt befördert startup übersetzer übersetzerin freiberufler freiberuflerin freiberuflich selbstständig "
        "berater beraterin analyst analystin architekt architektin buchhalter buchhalterin koch köchin autor autorin "
        "schriftsteller schriftstellerin künstler künstlerin fotograf fotografin forscher forscherin wissenschaftler "
        "wissenschaftlerin postdoc doktorarbeit promotion professor professorin dozent dozentin masterarbeit "
        "bachelorarbeit uni universität geschäft laden café bäckerei restaurant eröffnet schichten fahrer fahrerin",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"wo wohnt|wo wohnst|wohn\w*|zuhause|zu hause|stadt|in der nähe|umzug|umgezogen|adresse|wo lebt|wo lebst|"
        r"wo leben|in der gegend",
        "wohne wohnt wohnen umgezogen gezogen wohnung haus stadt viertel schlüssel lebe lebt umzug zuhause dorf "
        "nachbarschaft wg",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"essen|isst|ernährung|kochen|abendessen|mittagessen|restaurant|rezept\w*|allergi\w*|kocht|kochst|backen|backt|"
        r"kuchen|torten?|nachtisch|dessert|snacks?|mahlzeit\w*|speisekarte|menü|diät|lebensmittel",
        "esse essen vegetarisch vegetarierin vegetarier vegan veganerin allergisch allergie laktose gluten nüsse "
        "fleisch fisch kochen isst ernährung diät unverträglichkeit erdnüsse meeresfrüchte milchprodukte koche kocht "
        "lieblingsessen keto zucker kohlenhydrate veganer",
        ("diet",),
    ),
    _c(
        "health",
        r"gesundheit|krank\w*|arzt|medikament\w*|allergi\w*|verletz\w*|gesund|ärztin|ärzte|medizin\w*|erkrank\w*|"
        r"tabletten|diät|ernährung",
        "allergisch allergie asthma diabetes medikamente operation verletzung knie rücken schwanger migräne diabetiker "
        "diabetikerin medikament medizin tabletten pillen inhalator insulin operiert verletzt krank krankheit "
        "erkrankung arzt ärztin hausarzt hausärztin therapie physio physiotherapie diagnostiziert diagnose zöliakie "
        "unverträglichkeit arthritis arthrose cholesterin blutdruck angststörung depression depressionen hüfte",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"hobby|hobbys|freizeit|wochenende\w*|spaß|interessen|hobbies|leidenschaft\w*|entspann\w*|"
        r"was mach(?:t|st) (?:er|sie|du) gerne?",
        "hobby spiele spielt gitarre klavier chor singen tanzen malen lesen schach laufen klettern schwimmen yoga "
        "fotografie garten verein kurs hobbys spielen wandern zeichnen cello geige schlagzeug trompete saxophon band "
        "salsa tango stricken häkeln nähen töpfern backen zocken videospiele puzzle joggen bouldern radfahren angeln "
        "golf gärtnern",
    ),  # fmt: skip
    _c(
        "sport",
        r"sport\w*|fitness\w*|training|trainiert|marathon|bewegung|fit hält|fußball|gym|trainierst|trainieren|rennen|"
        r"wettkampf\w*",
        "marathon laufen joggen training fitnessstudio radfahren schwimmen yoga fußball tennis klettern bouldern "
        "wandern rennen wettkampf laufe jogge trainiere halbmarathon gym schwimme padel physio handball "
        "basketball volleyball eishockey hockey tischtennis badminton skifahren ski snowboarden rudern reiten judo "
        "karate pilates crossfit triathlon leichtathletik turnen",
    ),
    _c(
        "getting around",
        # Not any "fahren" ("Wohin fährt sie im Urlaub?" is travel): what one drives, and how one gets to work.
        r"auto|wagen|fahrrad|verkehrsmittel|pendel\w*|zur arbeit|womit fährt|was fährt|was für ein auto|autos|motorrad",
        "auto wagen fahrrad rad e-bike bus bahn s-bahn u-bahn zug straßenbahn roller motorrad autofahren transporter "
        "pendle pendelt öffis",
    ),
    _c(
        "garden",
        r"garten\w*|gärtner\w*|schrebergarten|kleingarten|pflanzen|pflanze|pflanzt",
        "garten schrebergarten kleingarten pflanzen anbauen angebaut gemüse tomaten kräuter zucchini bohnen blumen",
    ),
    _c(
        "watching and reading",
        r"serien?|fernseh\w*|tv|filme?|kino|buch|bücher|lesen|liest|musik",
        "serie serien film filme fernsehen kino staffel lieblingsserie lieblingsfilm lieblingsbuch buch bücher lesen "
        "gelesen roman musik band album",
    ),
    _c(
        "travel",
        r"reise\w*|urlaub|ferien|ausflug|urlaubs\w*|verreis\w*|ausland\w*|trip|kurztrip",
        "reise urlaub ferien flug hotel strand gebucht besuch ausflug reisen trip flüge fliegen kreuzfahrt ausland "
        "verreist ferienhaus ferienwohnung besuchen besucht wochenende",
    ),
    _c(
        "origin",
        r"woher (?:kommt|kommst|stammt)|wo (?:kommt|kommst|stammt) (?:\w+ ){0,2}her|aufgewachsen|heimat\w*|herkunft|"
        r"nationalität|staatsangehörigkeit|wo (?:\w+ ){0,3}geboren",
        "aufgewachsen geboren ursprünglich heimat heimatstadt stamme stammt herkunft",
        ("hometown",),
    ),
    _c(
        "plans",
        r"plan|pläne|planen|plant|geplant|nächste\w*|zukunft\w*|ziele|vorhaben",
        "plan pläne planen plant geplant vorhaben nächste nächsten ziel ziele hoffe will möchte hochzeit reise",
    ),
)
