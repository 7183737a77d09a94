"""French: the everyday subjects a bot is asked of ("parle-moi de ta famille", "des animaux ?", "que fait-elle dans
la vie ?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"famille|frères?|sœurs?|enfants?|marié\w*|couple|copain|copine|femme|mari|conjoint\w*|relation|mariage|"
        r"fiancé\w*|célibataire",
        "famille sœur frère mère maman père papa parents fils fille enfants bébé femme mari copain copine "
        "conjoint fiancé fiancée mariés mariage grand-mère grand-père tante oncle cousin cousine",
    ),
    _c(
        "pets",
        r"animaux?|animal de compagnie",
        "chien chienne chiens chat chatte chats chaton chiot hamster lapin perroquet poisson cheval adopté vétérinaire",
    ),  # fmt: skip
    _c(
        "work",
        r"travail\w*|boulot|métier|emploi|entreprise|boîte|études|étudi\w*|dans la vie|que fait",
        "travail travaille boulot boîte entreprise bureau collègues chef cheffe embauché embauchée démissionné "
        "poste infirmière infirmier professeur prof ingénieur ingénieure médecin étudiant étudiante",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"où (?:habite|vit|vis|habites)|habite\w*|chez (?:moi|elle|lui)|ville|quartier|près de (?:chez )?|"
        r"déménag\w*|adresse",
        "habite habitons vis vit déménagé emménagé appartement appart maison ville quartier clés",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"manger|mange|nourriture|régime|cuisine\w*|dîner|déjeuner|restaurant|recettes?|allergi\w*",
        "mange manger végétarien végétarienne végane vegan allergique allergie gluten lactose noix viande poisson",
        ("diet",),
    ),
    _c(
        "health",
        r"santé|malade|médecin|médicaments?|allergi\w*|blessure",
        "allergique allergie asthme diabète médicaments opération blessure genou dos enceinte migraine",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"loisirs?|passe-temps|temps libre|week-ends?|passions?",
        "joue guitare piano chorale chanter danser peindre lire échecs courir escalade nager yoga photo jardin club "
        "cours",
    ),  # fmt: skip
    _c(
        "sport",
        r"sports?|salle de sport|gym|entraîn\w*|marathon|exercice|activité physique|en forme|foot(?:ball)?",
        "marathon courir course entraînement salle gym vélo natation nager yoga foot football tennis escalade "
        "randonnée",
    ),
    _c(
        "getting around",
        # "Char": the car in Quebec.
        r"voiture|bagnole|char|auto|conduit|conduis|transports?|se déplace|vélo|moto|va au (?:travail|boulot)",
        "voiture auto char bagnole vélo moto bus métro train tram trottinette pied conduis conduit",
    ),
    _c("travel", r"voyages?|vacances|séjour|week-end", "voyage vacances vol hôtel plage réservé visite séjour"),
)
