"""Portuguese: the everyday subjects a bot is asked of ("fala-me da tua família", "tens animais?", "o que ela
faz?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"família|irmã\w*|irmãos?|filhos?|filhas?|casad[oa]|namorad[oa]|mulher|marido|espos[oa]|relação|"
        r"relacionamento|casamento|noiv[oa]|solteir[oa]",
        "família irmã irmão mãe mamãe pai papai pais filho filha filhos bebé bebê mulher marido esposa esposo "
        "namorado namorada noivo noiva casados casamento avó avô tia tio primo prima",
    ),
    _c(
        "pets",
        r"animais|animal de estimação|bichos?|pets?",
        "cão cachorro cadela gato gata gatos gatinho hamster coelho papagaio peixe cavalo adotamos adotei veterinário",
    ),  # fmt: skip
    _c(
        "work",
        r"trabalh\w*|emprego|profissão|empresa|estud\w*|faculdade|o que (?:ela|ele) faz",
        "trabalho trabalha empresa escritório colegas chefe contratado contratada larguei emprego turno "
        "enfermeira enfermeiro professor professora engenheira engenheiro médica médico estudante",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"onde (?:mora|vive|moras|vives)|mora|moras|vive|casa|cidade|bairro|perto de (?:mim|casa)|mudança|"
        r"mud(?:ou|aste|ei)|morada|endereço",
        "moro mora moramos vivo vive mudei mudamos casa apartamento cidade bairro chaves",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"comer|come|comida|dieta|cozinhar|jantar|almoço|restaurante|receitas?|alergi\w*",
        "como comer comida dieta vegetariana vegetariano vegana vegano alérgica alérgico alergia glúten lactose "
        "nozes carne peixe",
        ("diet",),
    ),
    _c(
        "health",
        r"saúde|doente|médic[oa]|remédios?|medicamentos?|alergi\w*|lesão",
        "alérgica alérgico alergia asma diabetes remédios cirurgia lesão joelho costas grávida enxaqueca",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"hobb(?:y|ies)|passatempos?|tempo livre|fins? de semana",
        "toco toca guitarra piano coro cantar dançar pintar ler xadrez correr escalada nadar ioga fotografia "
        "jardim clube aulas",
    ),  # fmt: skip
    _c(
        "sport",
        r"esportes?|desportos?|academia|ginásio|trein\w*|maratona|exercício|atividade física|em forma|futebol",
        "maratona correr corrida treino academia ginásio bicicleta natação nadar ioga futebol ténis tênis escalada",
    ),
    _c(
        "getting around",
        r"carro|automóvel|dirige|conduz|transportes?|se desloca|bicicleta|moto|vai (?:para o|pro) trabalho",
        "carro automóvel bicicleta bike moto ônibus autocarro metrô metro comboio trem patinete dirijo conduzo",
    ),
    _c("travel", r"viage\w*|férias|passeio", "viagem férias voo hotel praia reservado visita passeio"),
)
