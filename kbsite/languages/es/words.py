"""Spanish: the words of everyday text (stop words, small talk, salience), how statements open, clause and chat, the
words of time (months, "ahora", "cuándo"), and what full text leaves out of a query."""

from __future__ import annotations

import re

from kbsite.languages.snowball import stop_words

# Chat words that say nothing of their own ("vale", "jaja"), beside Snowball's function words.
_CHAT = frozenset(
    "sí si no vale venga bueno pues oye mira hola buenas gracias graciass adiós chao jaja jajaja jeje ok okay genial "
    "guay perfecto claro vaya uf bah ay eh ah oh bien muy mucho muchas muchos también tb tmb xd q k porfa por favor "
    "hoy vez cosa cosas algo nada todo".split()
)
# The forms of "hacer" (do, make; "hace" also "ago"): English's function words hold "do", Snowball's Spanish ones not.
_DO = frozenset("hace hacer hago haces hacen hacemos hizo hice hacía hecho haciendo".split())
STOPWORDS = stop_words("spanish") | _CHAT | _DO
TRIVIAL = frozenset(
    "hola buenas gracias muchas vale venga adiós chao jaja jajaja jeje ok okay genial guay perfecto claro sí no "
    "bueno pues buenos días noches tardes saludos porfa perdona perdón".split()
)
# Words that make even a short turn worth keeping: the speaker says something about themselves.
DURABLE = re.compile(
    r"\b(?:soy|estoy|tengo|vivo|vivimos|trabajo|trabajamos|me llamo|mi|mis|nuestro|nuestra|nuestros|nuestras|"
    r"me (?:he |hemos )?(?:mudado|mudé|casado|casé|jubilado|jubilé|graduado|gradué|separado|divorciado)|"
    r"nos (?:hemos )?(?:mudado|mudamos|casado|casamos|prometido|separado|divorciado)|"
    r"me (?:gusta|gustan|encanta|encantan)|odio|prefiero|nací|cumpleaños|ya no|dejé|vendí|vendimos|"
    r"empecé|empiezo|adopté|adoptamos|compré|compramos)\b",
    re.I,
)
# Where a sentence ends, read widely (lower case too), but not after a title or an abbreviation ("Sra. Gómez").
ANY_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!\bSr\.)(?<!\bSra\.)(?<!\bSrta\.)(?<!\bDr\.)(?<!\bDra\.)(?<!\bp\.ej\.)(?<!\betc\.)(?<!\bUd\.)"
    r"(?<!\bD\.)(?<!\bDña\.)\s+(?=\S)"
)
# What opens a sentence without stating anything: "¡Noticias! Me he mudado", "Oye, una cosa:", "Por cierto,".
OPENER = re.compile(
    r"^(?:[¡¿]?(?:(?:grandes |buenas |malas )?noticias|adivina|oye|mira|bueno|pues|vale|venga|por cierto|"
    r"por otro lado|en fin|jaja\w*|uf|ay|hola|buenas)\s*[:!,.\-–—]+|[A-Za-zÁÉÍÓÚÑáéíóúñ][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
# Where a sentence holds two statements: "…; y además soy alérgica", "…, pero ahora vivo en…".
CLAUSE = re.compile(r";\s+|,\s+(?:y|pero)\s+(?=(?:yo|ahora|además|también|ya|me|mi|nos)\b)", re.I)
# Who does something with the speaker, named just before "y yo" ("Mi novio Hugo").
COMPANION = re.compile(r"(?:^|\s)(?:[Mm]i|[Nn]uestr[oa]) (?:[\w'-]+ ){1,2}?[A-ZÁÉÍÓÚÑ][\w'-]+$|^[A-ZÁÉÍÓÚÑ][\w'-]+$")
# A sentence saying who or what someone named before is ("Se llama Pixel", "Es mi perro"): alone it names no one.
BACK_REFERENCE = re.compile(r"^(?:se llama|su nombre es|es (?:mi|nuestr[oa]|un|una|el|la)\b)", re.I)
# A favourite named without a verb ("Mi serie favorita ahora").
FAVOURITE_ALONE = re.compile(r"^(?:mi|nuestr[oa]) (?:[\w]+ )?(?:favorit[oa]s?|preferid[oa]s?)\b", re.I)
VERB_OF_FAVOURITE = re.compile(r"\b(?:es|son|era|fue|sigue siendo)\b", re.I)

# Words in almost every fact, or with no signal, never go into a full-text query.
QUERY_STOPWORDS = stop_words("spanish") | frozenset("usuario usuaria ahora qué cuál cuáles dónde cómo".split())

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("enero", "ene"),
            ("febrero", "feb"),
            ("marzo", "mar"),
            ("abril", "abr"),
            ("mayo", "may"),
            ("junio", "jun"),
            ("julio", "jul"),
            ("agosto", "ago"),
            ("septiembre", "setiembre", "sep", "sept"),
            ("octubre", "oct"),
            ("noviembre", "nov"),
            ("diciembre", "dic"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
DATE_PATTERNS = [
    ("day", re.compile(rf"\b{_DAY}\s+de\s+{_MONTH}\s+(?:de|del)\s+{_YEAR}\b", re.I)),  # 16 de junio de 2023
    ("day", re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")),  # 2023-06-16
    ("month", re.compile(rf"\b{_MONTH}\s+(?:de|del)\s+{_YEAR}\b", re.I)),  # mayo de 2022
    ("year", re.compile(rf"\b(?:en|durante|desde|hasta|del?)\s+(?:el\s+(?:año\s+)?)?{_YEAR}\b", re.I)),  # en 2024
]
# Asked where: a question a statement naming a place answers (kbsite.languages.places).
WHERE = re.compile(
    r"\b(?:dónde|donde|adónde|adonde)\b|"
    r"\b(?:qué|que|cuál|cual) (?:ciudad|pueblo|país|pais|barrio|sitio|lugar|dirección|direccion|zona)\b",
    re.I,
)
# A question asking for a time.
WHEN = re.compile(
    r"^\s*¿?\s*(?:cuándo|cuando)\b|\b(?:qué|que|cuál|cual) (?:es la )?(?:fecha|día|dia|mes|año|hora)\b", re.I
)
# Words whose time is that of the saying ("hoy es mi cumpleaños").
RELATIVE_TIME = re.compile(
    r"\b(?:hoy|esta noche|anoche|ayer|anteayer|mañana|pasado mañana|esta (?:mañana|tarde|semana)|"
    r"este (?:fin de semana|mes|año)|la semana (?:pasada|que viene)|el (?:mes|año|fin de semana) (?:pasado|que viene)|"
    r"hace (?:\w+ )?(?:días?|semanas?|meses|mes|años?)|el (?:lunes|martes|miércoles|jueves|viernes|sábado|domingo))\b",
    re.I,
)
# A question asking how things stand now.
NOW = re.compile(r"\b(?:ahora|actualmente|hoy en día|todavía|aún|ya no|últimamente|a día de hoy|estos días)\b", re.I)
# A question asking about the one that holds now, by the adjective ("su trabajo actual"): how things stand now, but
# not as "now" is, beside "former" ("his former boss, not his current one" asks about the former).
CURRENT = re.compile(r"\bactual(?:es)?\b", re.I)
# Asked about how things were before a change ("¿Dónde trabajaba antes de la startup?").
BEFORE = re.compile(r"\b(?:antes|anteriormente|previamente|solía|solia|antiguamente|en el pasado)\b", re.I)
# El de antes, dicho de una persona o cosa ("su casero anterior"): pregunta cómo era antes, si la pregunta no pregunta
# por ahora, y no de la charla misma ("mi pregunta anterior"): ninguna palabra junto a una de CONVERSATION.
FORMER = re.compile(r"anterior|anteriores")
CONVERSATION = frozenset("pregunta preguntas mensaje mensajes conversación conversaciones charla chat sesión respuesta "
                         "respuestas correo".split())  # fmt: skip
# De dónde es alguien: ninguna palabra de BEFORE lo pregunta.
ORIGIN = re.compile(r"(?!)")
# "Antes" de lo que va a hacer quien pregunta ("¿Algo que deba saber antes de invitarla?"): un consejo, no el pasado.
AHEAD = re.compile(r"\b(?:deb[aeo]\w*|tengo que|tenemos que|hay que|necesito|conviene)\b[^.?!]*\bantes\b", re.I)
# Una pregunta sobre una persona: alguien nombrado por un pronombre ("¿Qué le puedo cocinar?") o "el usuario";
# también el pronombre pegado al verbo ("invitarla", "regalarle"). No "yo" ni "mi": así habla también quien pregunta
# por el mundo ("¿Puedo llevar a mi hijo a la piscina?").
PERSON = re.compile(
    r"\b(?:ella|él|ellos|ellas|su|sus|suyo|suya|le|les|el usuario|la usuaria)\b"
    r"|\b\w+(?:ar|er|ir)(?:la|lo|le|las|los|les)\b",
    re.I,
)
# Palabras que enmarcan una pregunta sin decir nada de su respuesta ("¿Hay algo de salud que deba saber?").
FRAMING = frozenset(
    "algo alguna alguno algún cosa cosas saber sepa deba debo debería deberías hay cómo qué cuál dime decir".split()
)
# What offline ask answers when nothing in memory answers the question.
NOT_REMEMBERED = "No recuerdo nada de eso."
# Words written with a capital inside a sentence that name no one: none.
CAPITALISED = frozenset()
# What makes an offline fact a preference, or a fact of the user's profile.
PREFERENCE = re.compile(r"\b(?:me (?:encanta|encantan|gusta|gustan)|prefiero|odio|detesto|mi \w+ favorit[oa])\b", re.I)
# A clause that only likes what was just said ("¡Me encanta!", "me gusta la idea"): a reaction, not a preference.
REACTION = re.compile(
    r"(?:(?:eso|esto|la idea) )?me (?:encanta|gusta|encantan|gustan)(?: (?:eso|esto|la idea|mucho|much[íi]simo))?",
    re.I,
)
PROFILE = re.compile(
    r"\b(?:(?:soy|estoy) (?:jubilad\w*|casad\w*|embarazada|divorciad\w*|solter\w*|prometid\w*)|"
    r"soy (?:un|una|de|del|\d+|(?-i:[A-ZÁÉÍÓÚÑ])\w*)|"
    r"me llamo|mi nombre|vivo|vivimos|trabajo (?:en|de|como|para)|nací|me (?:he )?mudado|me mudé|"
    r"nos (?:hemos )?mudado|nos mudamos|tengo \d+ años|alérgic\w*|intoleran\w*|vegetarian\w*|vegan\w*|celíac\w*|"
    r"no (?:puedo|como) (?:comer )?\w+)\b",
    re.I,
)
# A decision or commitment said in a conversation.
DECISION = re.compile(
    r"\b(?:decidimos|hemos decidido|he decidido|decidí|acordamos|quedamos en|vamos a|voy a|elegimos|"
    r"nos quedamos con)\b",
    re.I,
)
# Text a model copies from the prompt or writes instead of a fact.
PLACEHOLDER = re.compile(
    r"^\W*$|^(?:\.{2,}|…|text|texto|fact|hecho|string|example|ejemplo|n/?a|none|ninguno|null|todo|tbd|xxx+|"
    r"lorem ipsum.*|<[^>]*>|\[[^\]]*\]|\{[^}]*\})\W*$",
    re.I,
)
