"""Spanish: reading what a text states of one person's one-valued attributes: where they live, where and as what they
work, their name and age, where they stand with a partner, their diet, a favourite, whether they like a thing.

Statements are about one person, in their own words ("Lucía: Vivo en Valencia", an offline fact) or an LLM's
("Lucía vive en Valencia"), which is read as the first person. Questions and conditions state nothing. The rules are
the language's general forms (a verb of the attribute and what follows it), never a sentence of a case.
"""

from __future__ import annotations

import re

from kbsite.languages.es.words import ANY_SENTENCE, MONTHS
from kbsite.languages.reading import Statement
from kbsite.languages.slots import SlotReader, patterns_led_by

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?¡¿()\"]+)"
# Where a value ends: the next clause, or a time, place or manner said of it.
# An article (or a pronoun: "…en Gijón se ve el mar") stops a value only in lower case: "el Hospital La Fe" is one
# name.
_VALUE_STOP = re.compile(
    r"\s+(?:(?i:y|e|pero|porque|ya que|con|desde|hace|en|hasta|cuando|mientras|para|por|aunque|así|ahora|ya|"
    r"todavía|aún|también|pronto|hoy|ayer|mañana|durante|tras|después|antes|que)|el|la|los|las|este|esta|"
    r"se|me|te|nos)\b.*$"
    r"|\s+\d.*$"
)
_ARTICLE = re.compile(r"^(?:el|la|los|las|un|una|unos|unas|mi|mis|nuestro|nuestra)\s+", re.I)
# A place of work is no home: "me he mudado a la oficina de Madrid".
_WORK_NOUNS = frozenset("oficina sede delegación sucursal tienda planta hospital clínica colegio escuela".split())
# What one lives in.
_HOME_NOUNS = r"piso|casa|apartamento|estudio|habitación|ático|chalet|pisito|casita"
_HOME_HINTS = ("vivo", "vive", "vivimos", "viven", "mudado", "mudé", "mudamos", "mudó", "piso", "casa", "ciudad")
_JOB_HINTS = ("trabajo", "trabaja", "trabajamos", "empresa", "empleo", "curro")
JOB_NOUNS = (
    r"enfermer[oa]|médic[oa]|doctor[a]?|cirujan[oa]|dentista|farmacéutic[oa]|fisio(?:terapeuta)?|psicólog[oa]|"
    r"profesor[a]?|maestr[oa]|educador[a]?|ingenier[oa]|programador[a]?|desarrollador[a]?|diseñador[a]?|"
    r"arquitect[oa]|abogad[oa]|contable|economista|periodista|escritor[a]?|traductor[a]?|camarer[oa]|"
    r"cociner[oa]|chef|panader[oa]|dependient[ae]|cajer[oa]|recepcionista|administrativ[oa]|secretari[oa]|"
    r"comercial|vendedor[a]?|gerente|director[a]?|jef[ea]|técnic[oa]|electricista|fontaner[oa]|mecánic[oa]|"
    r"conductor[a]?|taxista|pilot[oa]|policía|bombero|veterinari[oa]|investigador[a]?|científic[oa]|"
    r"funcionari[oa]|consultor[a]?|analista|estudiante|becari[oa]|autónom[oa]|fotógraf[oa]|músic[oa]|"
    r"carpinter[oa]|albañil|agricultor[a]?|peluquer[oa]|limpiador[a]?|cuidador[a]?"
)
_DIETS = r"vegetarian[oa]s?|vegan[oa]s?|pescetarian[oa]s?|pescovegetarian[oa]s?|celíac[oa]s?|flexitarian[oa]s?"
_RELATIONSHIP = {
    "novio": "dating", "novia": "dating", "pareja": "dating", "chico": "dating", "chica": "dating",
    "prometido": "engaged", "prometida": "engaged", "comprometido": "engaged", "comprometida": "engaged",
    "marido": "married", "mujer": "married", "esposo": "married", "esposa": "married", "casado": "married",
    "casada": "married", "casados": "married", "divorciado": "single", "divorciada": "single",
    "separado": "single", "separada": "single", "soltero": "single", "soltera": "single",
}  # fmt: skip
_DIET_HINTS = ("vegetariana", "vegetariano", "vegana", "vegano", "carne")
_RELATIONSHIP_HINTS = ("novio", "novia", "pareja", "prometido", "prometida", "marido", "mujer", "esposo", "esposa")
# A time said before the verb: "En septiembre empiezo en Indra", "desde el lunes trabajo en…", "desde marzo vivimos en
# Gijón" (a month, a day of the week, a season, "el mes que viene", "la semana pasada").
_TIMES = (
    r"(?:" + "|".join(name for name in MONTHS if len(name) > 3) + r"|lunes|martes|miércoles|jueves|viernes|sábado|"
    r"domingo|verano|invierno|otoño|primavera|(?:semana|mes|año) (?:que viene|pasad[oa]))"
)
_FRONTED = r"(?:(?:desde|en|a partir de|este|esta|el|la)\s+(?:(?:el|la|este|esta)\s+)?" + _TIMES + r",?\s+)?"
_LEAD = r"^(?:(?:pues|bueno|oye|mira|vale|y|pero|ahora|ya|además|también|por fin|al final|finalmente),?\s+)*" + _FRONTED


_p = patterns_led_by(_LEAD)


# Where one lives, said of no place: "vivo en las nubes", "vivo en paz", "vivo en un sinvivir".
_NOT_HOMES = frozenset("nubes luna paz sinvivir pecado armonía presente pasado futuro miedo tensión alerta".split())
# Where one works, said of no employer: from home, in a team, shifts, a weekday ("empecé en serio", "en brazos").
_NOT_EMPLOYERS = frozenset(
    "casa remoto equipo turnos negro serio broma brazos paz pánico shock lunes martes miércoles jueves viernes "
    "sábado domingo semana mes año".split()
)
# As what one works, said of when: "trabajo de noche", "de lunes a viernes", "de sol a sol".
_NOT_TITLES = frozenset(
    "noche día mañana tarde madrugada sol lunes martes miércoles jueves viernes sábado domingo".split()
)

_PATTERNS = [
    # Where one lives: "vivo en Valencia", "nos hemos mudado a Bilbao", "me mudé a Sevilla", "ya estamos en Cádiz".
    _p(
        "residence",
        r"(?:yo |ahora |ya |actualmente )*(?:vivo|vivimos|resido|residimos) en "
        # A home named before where it is: "vivo en un piso compartido en Ruzafa".
        r"(?:(?:un|una|mi|el|la) (?:" + _HOME_NOUNS + r")(?: \w+)? en )?" + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    _p(
        "residence",
        r"(?:me|nos) (?:he |hemos |acabo de |acabamos de )?(?:mudad[oa]s?|mudé|mudamos|trasladad[oa]s?|trasladé|"
        r"trasladamos|ido a vivir|fui a vivir|fuimos a vivir)(?: de vuelta)? (?:a|para) " + _END,
        hints=_HOME_HINTS,
    ),
    _p(
        "residence",
        r"(?:ya )?(?:tengo|tenemos) (?:las llaves (?:de|del) )?(?:mi |nuestro |el |un )?(?:piso|casa|apartamento)"
        r"(?: nuevo| nueva)? en " + _END,
        hints=_HOME_HINTS,
    ),
    # A home rented or bought: "alquilamos un piso en Triana", "hemos comprado una casa en Getafe".
    _p(
        "residence",
        r"(?:ya )?(?:alquilo|alquilamos|he alquilado|hemos alquilado|compré|compramos|he comprado|hemos comprado) "
        r"(?:un|una|el|la|mi|nuestro|nuestra) (?:" + _HOME_NOUNS + r")(?: \w+)? en " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A new home of one's own named anywhere in a clause: "desde la ventana de mi piso nuevo en Gijón se ve el mar".
    _p(
        "residence",
        r"(?:.*?\b)?(?:mi|nuestro|nuestra) (?:(?:nuevo|nueva) (?:" + _HOME_NOUNS + r")|(?:" + _HOME_NOUNS + r") "
        r"(?:nuevo|nueva)) en " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # Where one works: "trabajo en Telefónica", "empecé en Inditex", "me han contratado en Mapfre".
    _p(
        "employer",
        # Not what one works for ("trabajo para pagar el alquiler": an infinitive).
        r"(?:ahora |ya |actualmente )*(?:trabajo|trabajamos) (?:en|para) (?!(?-i:[a-zá-ú])\w*(?:ar|er|ir)\b)" + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        # "entré en la ducha": a place entered takes an article, an employer seldom ("entré en Indra").
        r"(?:empecé|empiezo|he empezado|(?:entré|he entrado)(?! en (?:el|la|los|las|un|una)\b))(?: a trabajar)? "
        r"en " + _END,
        hints=_JOB_HINTS + ("empecé", "empezado"),
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        r"(?:me (?:han|ha) (?:contratado|cogido|fichado)|me contrataron|me cogieron|me ficharon) (?:en|para) " + _END,
        hints=_JOB_HINTS + ("contratado",),
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        r"(?:he dejado|dejé|dejo) (?:mi (?:trabajo|curro|puesto) |el (?:trabajo|curro) )?(?:en|de) "
        # Not a habit ("dejé de fumar": an infinitive) nor home ("dejé de casa").
        r"(?!(?-i:[a-zá-ú])\w*(?:ar|er|ir)\b|casa\b)" + _END,
        hints=_JOB_HINTS + ("dejado", "dejé"),
        negated=True,
        not_first=_NOT_EMPLOYERS,
    ),
    # As what one works: "trabajo de enfermera", "soy profesor", "me han ascendido a jefa de equipo".
    # "como un burro": a likeness (a title takes no article: "trabajo como enfermera").
    _p(
        "occupation",
        r"(?:ahora |ya )*(?:trabajo|trabajamos) (?:de|como) (?!un |una )" + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_TITLES,
    ),
    # As what one starts: "empiezo como enfermera en…", "he empezado de camarero".
    _p(
        "occupation",
        r"(?:ahora |ya )*(?:empiezo|empecé|he empezado|empezaré|comienzo|comencé)(?: a trabajar)? (?:de|como) "
        r"(?!un |una )" + _END,
        hints=_JOB_HINTS + ("empecé", "empezado", "empiezo"),
        not_first=_NOT_TITLES | _NOT_EMPLOYERS,
    ),
    _p("occupation", r"(?:ahora |ya )*soy (?:un |una )?(?P<v>(?:" + JOB_NOUNS + r")(?: \w+){0,2})", hints=_JOB_HINTS),
    _p("occupation", r"me (?:han |ha )?ascendido a " + _END, hints=("ascendido", "trabajo")),
    _p("name", r"(?:me llamo|mi nombre es) (?!como\b|así\b)" + _END, hints=("llamo", "nombre")),
    _p("age", r"tengo (?P<v>\d{1,3}) años", hints=("años",)),
    # Where one stands with a partner: "nos hemos prometido", "nos casamos", "lo hemos dejado", "mi novia Ana".
    _p(
        "relationship",
        r".*?\b(?:nos|me) (?:hemos |he )?(?:prometido|comprometido)\b",
        value="engaged",
        hints=_RELATIONSHIP_HINTS,
    ),  # fmt: skip
    _p(
        "relationship",
        r".*?\b(?:nos|me) (?:hemos |he )?(?:casado|casamos|casé)\b",
        value="married",
        hints=_RELATIONSHIP_HINTS,
    ),  # fmt: skip
    _p(
        "relationship",
        r".*?\b(?:nos (?:hemos )?(?:separado|separamos|divorciado|divorciamos)|lo (?:hemos )?dejado|"
        r"lo dejamos|hemos roto|rompimos)\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r"(?:estoy|sigo) (?P<v>solter[oa]|casad[oa]|divorciad[oa]|separad[oa])\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),  # fmt: skip
    _p(
        "relationship",
        r".*?\bmi (?P<v>novio|novia|prometido|prometida|marido|mujer|esposo|esposa)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),  # fmt: skip
    # A diet: "soy vegetariana", "ya no soy vegano", "he vuelto a comer carne".
    _p("diet", r"ya no soy (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS, negated=True),
    _p("diet", r"(?:ahora |ya )*soy (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS),
    _p(
        "diet",
        r"(?:he vuelto|vuelvo|volví) a comer (?:carne|pescado)\b",
        value="omnívoro",
        hints=("carne", "pescado", "comer"),
    ),  # fmt: skip
    # A favourite: "mi serie favorita es Severance", "mi grupo preferido son los Arctic Monkeys".
    _p(
        "favourite {0}",
        r"mi (?P<what>[\w ]{2,30}?) (?:favorit[oa]|preferid[oa]) (?:ahora )?(?:es|son|ha pasado a ser) " + _END,
        hints=("favorito", "favorita", "preferido", "preferida"),
    ),
    # Whether one likes a thing: "me encanta el sushi", "ya no me gusta el café".
    _p("likes {0}", r"(?:ya )?no me (?:gusta|gustan|apetece) (?:nada )?" + _END, value="no", strict=True),
    _p("likes {0}", r"(?:odio|detesto) " + _END, value="no", strict=True),
    _p(
        "likes {0}",
        r"me (?:encanta|encantan|gusta|gustan|chifla|chiflan) (?:mucho |muchísimo )?" + _END,
        value="yes",
        strict=True,
    ),  # fmt: skip
    # The car one drives: "conduzco un Seat Ibiza".
    _p("car", r"conduzco (?:un|una|mi) (?P<v>[A-ZÁÉÍÓÚ][\w-]*(?: [A-Z0-9][\w-]*)?)", hints=("conduzco", "coche")),
]
_NOT_THINGS = frozenset("eso esto esta este lo la le que qué todo nada algo".split())
_CONDITIONAL = re.compile(r"\b(?:si|ojalá|quizás|quizá|igual|a lo mejor|podría|podríamos|me gustaría|sería)\b", re.I)
NAME_RUN = re.compile(r"\b[A-ZÁÉÍÓÚÑ][\w'’-]*(?: [A-ZÁÉÍÓÚÑ][\w'’-]*)*")
NOT_THINGS = _NOT_THINGS

# An LLM's fact in the third person, read as the first: "Lucía vive en…" → "vivo en…".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÁÉÍÓÚÑ][\w-]+(?: [A-ZÁÉÍÓÚÑ][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "vive": "vivo", "trabaja": "trabajo", "es": "soy", "está": "estoy", "tiene": "tengo", "se": "me",
    "le": "me", "ha": "he", "conduce": "conduzco", "come": "como", "empezó": "empecé", "dejó": "dejé",
    "mudó": "mudé", "llama": "llamo", "casó": "casé", "prometió": "prometí", "sigue": "sigo", "volvió": "volví",
    "vuelve": "vuelvo", "odia": "odio", "detesta": "detesto", "entró": "entré",
}  # fmt: skip
_NOT_SUBJECTS = frozenset("el la los las un una mi tu su este esta ese esa hoy ayer ahora ya yo y pero".split())
_FIRST_PERSON = re.compile(
    r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:yo|mi|mis|me|nos|nuestr[oa]s?|soy|estoy|tengo|vivo)\b", re.I
)


# Where a sentence's clauses part: a comma, "pero", and "y" before a clause of the speaker's own (a first-person verb
# or pronoun: "me llamo Lucía y vivo en Valencia", "trabajo en Mercadona y ahora estudio"), as English parts at "and
# I"; not inside a value ("el sushi y el ramen", "Valencia y Madrid").
CLAUSES = re.compile(
    r",\s+|;\s+|\s+(?i:pero)\s+|\s+(?:y|e)\s+(?=(?:(?:ahora|ya|también|además|luego) )?"
    r"(?:yo|me|nos|mi|mis|[a-záéíóúñ]+(?:o|oy|é|í|amos|emos|imos))\b)"
)
# Where a statement of several attributes may be cut, each part stating its own: its clauses.
PARTS = CLAUSES
# Where one works, said after as what: "… de enfermera en el Hospital La Fe", "… como diseñador para Zara".
_WORKS_AT = re.compile(r"\s*(?:en|para) (?P<v>[^,.;:!?¡¿()\"]+?)\s*$")


_READER = SlotReader(
    sentences=ANY_SENTENCE,
    first_person=_FIRST_PERSON,
    subject=_SUBJECT,
    not_subjects=_NOT_SUBJECTS,
    first_person_verbs=_FIRST_PERSON_VERBS,
    patterns=_PATTERNS,
    value_stop=_VALUE_STOP,
    article=_ARTICLE,
    not_things=_NOT_THINGS,
    work_nouns=_WORK_NOUNS,
    conditional=_CONDITIONAL,
    clauses=CLAUSES,
    works_at=_WORKS_AT,
    job_hints=_JOB_HINTS,
    openers="¡¿",
)


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person ("Lucía: Vivo en Valencia." or "Lucía vive en Valencia.")."""
    return _READER.statement(text, own)
