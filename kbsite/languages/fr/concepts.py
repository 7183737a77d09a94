"""French: the everyday subjects a bot is asked of ("parle-moi de ta famille", "des animaux ?", "que fait-elle dans
la vie ?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"famille|frères?|sœurs?|enfants?|marié\w*|couple|copain|copine|femme|mari|conjoint\w*|relation|mariage|"
        r"fiancé\w*|célibataire|familles|époux|épous\w*|vie amoureuse|romance|romantique|petit ami|petite amie|"
        r"fiançailles|se marie|se marier|gosses",
        "famille sœur frère mère maman père papa parents fils fille enfants bébé femme mari copain copine conjoint "
        "fiancé fiancée mariés mariage grand-mère grand-père tante oncle cousin cousine sœurs frères parent filles "
        "enfant gosses gamins compagnon compagne conjointe époux épouse marié mariée grands-parents mamie papi nièce "
        "neveu jumeaux jumelles fiancés fiançailles couple relation ensemble né née",
    ),
    _c(
        "pets",
        r"animaux?|animal de compagnie",
        "chien chienne chiens chat chatte chats chaton chiot hamster lapin perroquet poisson cheval adopté vétérinaire "
        "animaux tortue poules chèvres cobaye perruche lézard serpent refuge adoptée véto labrador caniche teckel "
        "carlin lévrier beagle husky bouledogue",
    ),  # fmt: skip
    _c(
        "work",
        r"travail\w*|boulot|métier|emploi|entreprise|boîte|études|étudi\w*|dans la vie|que fait|carrière|profession|"
        r"employeur|université|fac|doctorat|gagne sa vie|bosser|job",
        "travail travaille boulot boîte entreprise bureau collègues chef cheffe embauché embauchée démissionné poste "
        "infirmière infirmier professeur prof ingénieur ingénieure médecin étudiant étudiante emploi métier job "
        "carrière employeur collègue enseignant enseignante enseigne développeur développeuse designer graphiste "
        "manager gérant gérante avocat avocate promu promue startup traducteur traductrice freelance indépendant "
        "indépendante auto-entrepreneur consultant consultante analyste architecte comptable cuisinier cuisinière "
        "écrivain écrivaine auteur autrice artiste photographe chercheur chercheuse scientifique postdoc doctorat "
        "thèse université fac magasin boutique boulangerie restaurant ouvert chauffeur clients clientes",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"où (?:habite|vit|vis|habites)|habite\w*|chez (?:moi|elle|lui)|ville|quartier|près de (?:chez )?|déménag\w*|"
        r"adresse|où vivent|logement|dans le coin|domicile|à proximité",
        "habite habitons vis vit déménagé emménagé appartement appart maison ville quartier clés habiter déménagement "
        "déménager domicile village studio coloc installé installée",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"manger|mange|nourriture|régime|cuisine\w*|dîner|déjeuner|restaurant|recettes?|allergi\w*|bouffe|repas|"
        r"pâtisserie\w*|gâteaux?|desserts?|goûter|grignot\w*|menu|alimentation",
        "mange manger végétarien végétarienne végane vegan allergique allergie gluten lactose noix viande poisson "
        "nourriture bouffe régime intolérant intolérante intolérance cacahuètes arachides crustacés laitiers cuisine "
        "cuisiner préféré préférée plat plats keto sucre glucides végan",
        ("diet",),
    ),
    _c(
        "health",
        r"santé|malade|médecin|médicaments?|allergi\w*|blessure|maladies?|médica(?:l\w*|ux)|médecins|blessures|docteur|"
        r"régime|médocs",
        "allergique allergie asthme diabète médicaments opération blessure genou dos enceinte migraine diabétique "
        "médicament traitement médocs pilules comprimés inhalateur insuline chirurgie opéré opérée blessé blessée "
        "malade maladie médecin docteur généraliste thérapie kiné diagnostiqué diagnostiquée diagnostic cœliaque "
        "intolérant intolérante migraines arthrite arthrose cholestérol tension anxiété dépression hanche",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"loisirs?|passe-temps|temps libre|week-ends?|passions?|hobbys?|hobbies|centres? d['’]intérêt|aime faire|"
        r"détend\w*|weekends?",
        "joue guitare piano chorale chanter danser peindre lire échecs courir escalade nager yoga photo jardin club "
        "cours loisirs passion adore jouer randonnée rando peinture dessin dessiner lecture violoncelle violon "
        "trompette saxophone saxo chant danse salsa tango tricot tricoter crochet couture coudre poterie céramique "
        "pâtisserie jeux puzzles natation cyclisme pêche golf photographie jardinage",
    ),  # fmt: skip
    _c(
        "sport",
        r"sports?|salle de sport|gym|entraîn\w*|marathon|exercice|activité physique|en forme|foot(?:ball)?|fitness|"
        r"muscu|musculation|sporti(?:f|ve)s?|marathons",
        "marathon courir course entraînement salle gym vélo natation nager yoga foot football tennis escalade "
        "randonnée footing jogging entraîne muscu musculation cyclisme nage padel kiné rando rugby basket "
        "volley handball hockey badminton ski snowboard surf aviron kayak judo karaté pilates crossfit triathlon "
        "athlétisme",
    ),
    _c(
        "getting around",
        # "Char": the car in Quebec.
        r"voiture|bagnole|char|auto|conduit|conduis|transports?|se déplace|vélo|moto|va au (?:travail|boulot)|voitures|"
        r"conduire|covoiturage|se rend au (?:travail|boulot)",
        "voiture auto char bagnole vélo moto bus métro train tram trottinette pied conduis conduit bicyclette conduire "
        "camionnette scooter covoiturage",
    ),
    _c(
        "garden",
        r"jardin\w*|potager|plantes|cultive|cultiver|cultivent|fait pousser",
        "jardin potager plantes légumes tomates herbes aromatiques courgettes haricots fleurs cultive cultiver",
    ),
    _c(
        "watching and reading",
        r"séries?|télé|tv|films?|cinéma|ciné|livres?|lire|lecture|bouquins?|romans?|musique|écouter",
        "série séries télé film films cinéma saison épisode préféré préférée livre livres bouquin lecture roman "
        "musique album",
    ),
    _c(
        "travel",
        r"voyages?|vacances|séjour|week-end|voyag\w*|escapade|à l['’]étranger",
        "voyage vacances vol hôtel plage réservé visite séjour voyages voyager croisière vols avion étranger gîte "
        "visiter week-end escapade",
    ),
    _c(
        "origin",
        r"d['’]où (?:vient-(?:elle|il)|viens-tu|est-(?:elle|il)|es-tu)|(?:elle|il) (?:vient|est) d['’]où|"
        r"tu (?:viens|es) d['’]où|originaire|origines|grandi|nationalité|natale?|où est-(?:elle|il) née?",
        "grandi originaire né née natal natale origine origines natif native",
        ("hometown",),
    ),
    _c(
        "plans",
        r"projets?|plans?|prévu\w*|prévoi\w*|prochaine?s?|avenir|futur|objectifs?",
        "projet projets plan plans prévu prévois prochain prochaine objectif objectifs espère veux voulons vais allons "
        "mariage voyage",
    ),
)
