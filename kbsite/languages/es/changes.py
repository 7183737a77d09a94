"""Spanish: reading what a text says has changed: a thing ended ("vendimos el Seat", "ya no bebo café", "dejé el
gimnasio"), called off ("se canceló el viaje a Roma"), put to another time ("aplazamos la boda a septiembre"),
done without ("ya camino sin el bastón"); a retirement, studies finished, a baby born. Each is a Change naming the
thing by its words (:mod:`kbsite.languages.reading` says which older texts it replaces)."""

from __future__ import annotations

import re

from kbsite.languages.es.statements import NOT_THINGS
from kbsite.languages.reading import Change

_ARTICLES = r"(?:mi |mis |nuestro |nuestra |nuestros |nuestras |el |la |los |las |un |una |su |sus )?"
_THING = r"(?P<thing>[\wáéíóúñü'’-]+(?: [\wáéíóúñü'’-]+){0,2})"
# What a speaker says has ended: "vendimos el Seat", "he dejado el gimnasio", "ya no bebo café", "adiós al coche".
_ENDED = (
    re.compile(
        r"\b(?:vend[íi]|vendimos|he vendido|hemos vendido|dej[ée]|dejamos|he dejado|hemos dejado|"
        r"cancel[ée]|cancelamos|he cancelado|hemos cancelado|perd[íi]|perdimos|adiós a(?:l)?|se acabó|"
        r"nos deshicimos de|me deshice de|regalamos|regalé|dimos en adopción a|dar en adopción a)\s+"
        + _ARTICLES
        + _THING,
        re.I,
    ),
    # "ya no bebo café", "ya no tengo coche", "ya no soy vegetariana" (a verb, then the thing).
    re.compile(r"\bya no\s+(?:\w+\s+)?" + _ARTICLES + r"(?P<thing>[\wáéíóúñü'’-]+)", re.I),
    # "dejé de fumar", "he dejado de ir al gimnasio": what one stopped doing.
    re.compile(r"\b(?:dej[ée]|dejamos|he dejado|hemos dejado) de\s+(?:ir (?:a|al) )?" + _ARTICLES + _THING, re.I),
)
_GENERIC = frozenset("trabajo cosa cosas eso esto algo todo".split())
_THING_ENDS = frozenset(
    "y o pero porque con en a al de del para por desde hasta cuando como que ya hace este esta".split()
)
_TIME_WORDS = frozenset("ayer hoy semana semanas mes meses año años pasado pasada ahora otra vez".split())
# Studies ended: no longer a student.
_GRADUATED = re.compile(
    r"\b(?:me (?:he )?gradu(?:é|ado)|(?:he )?terminad?[oé] (?:la carrera|el máster|el doctorado|los estudios)|"
    r"defend[íi] (?:la|mi) tesis|he defendido (?:la|mi) tesis)\b",
    re.I,
)
# A plan called off, said of the plan: "se ha cancelado el viaje a Roma", "la boda se suspendió".
_CALLED_OFF = (
    re.compile(
        r"\bse (?:ha |han )?(?:cancelado|canceló|suspendido|suspendió|anulado|anuló)\s+" + _ARTICLES + _THING, re.I
    ),
    re.compile(
        r"\b(?:el|la|nuestro|nuestra|mi) " + _THING + r" se (?:ha )?(?:cancelado|canceló|suspendido|suspendió)", re.I
    ),
)
# A baby born: no longer expecting.
_BORN = re.compile(r"\b(?:ha nacido|nació|ya está aquí|di a luz|dio a luz)\b", re.I)
# Retired: one's work is a thing of the past.
_RETIRED = re.compile(r"\b(?:me (?:he )?jubil(?:é|ado)|(?:ya )?(?:estoy|soy) jubilad[oa])\b", re.I)
WORK_WORDS = "trabajo trabaja trabajamos curro oficina turno turnos jefe jefa compañeros empresa".split()
WORK_SAID = re.compile(r"\b(?:yo|soy|trabajo|mi)\b.*\b(?:" + "|".join(WORK_WORDS) + r")\b", re.I)
_MONTHS = "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre"
# A time named: a month, a weekday, a season, a date.
TIME_NAMED = re.compile(
    r"\b(?:(?:el |en |este |próximo )?(?:" + _MONTHS + r")|(?:lunes|martes|miércoles|jueves|viernes|sábado|domingo)|"
    r"primavera|verano|otoño|invierno|(?:la semana|el mes|el año) que viene|(?:la )?próxima semana|"
    r"(?:el )?próximo (?:mes|año)|mañana|\d{1,2} de (?:" + _MONTHS + r")|\d{4}-\d\d-\d\d)\b",
    re.I,
)
# A thing put to another time: "aplazamos la boda a septiembre", "hemos movido el viaje a mayo".
_RESCHEDULED = re.compile(
    r"\b(?:aplaz\w+|pospus\w+|pospon\w+|retras\w+|adelant\w+|mov\w+|cambi\w+|pas\w+)\s+"
    + _ARTICLES
    + r"(?P<thing>[\wáéíóúñü'’-]+(?: [\wáéíóúñü'’-]+)?)\s+(?:a|al|para|hasta)\s+(?P<when>[\w ]+)",
    re.I,
)
_WHEN_WORDS = frozenset("fecha día plan planes".split())
# What one now does without: "ya camino sin el bastón" (an older "con bastón por ahora" held for a while).
_WITHOUT = re.compile(r"\bsin (?:el|la|mi|los|las|ningún|ninguna) (?P<thing>[\wáéíóúñü'’-]+)", re.I)
TEMPORARY = re.compile(
    r"\b(?:por ahora|de momento|por el momento|temporalmente|por un tiempo|unos (?:días|meses)|"
    r"unas semanas|mientras tanto)\b",
    re.I,
)
USED = {
    frozenset({"coche"}): (frozenset({"conduzco"}), frozenset({"conduce"}), frozenset({"conducir"})),
    frozenset({"bici"}): (frozenset({"bici"}),),
}
# A statement saying this many things or more is not about one thing ending that it names by a common word.
LONG_STATEMENT = 16
# Words that make a thing one's own ("mi bici").
OWN = ("mi", "mis", "nuestro", "nuestra", "nuestros", "nuestras")


def ended(text: str) -> list[frozenset[str]]:
    """The things ``text`` says have ended, each as the words that name it ("el viaje a Roma": viaje, roma)."""
    found: list[frozenset[str]] = []
    for pattern in _ENDED:
        for match in pattern.finditer(text):
            if _not_ended(match):
                continue
            named = _named(match.group("thing"))
            if named and named not in found:
                found.append(named)
    if _GRADUATED.search(text):
        found.append(frozenset({"estudiante"}))
    if _BORN.search(text):
        found += [frozenset({"embarazada"}), frozenset({"esperando"})]
    return found


def _not_ended(match: re.Match) -> bool:
    """Whether a thing "dejado" or "perdido" is only left somewhere or mislaid: left somewhere or as it is ("dejé a
    los niños en el cole", "dejé la puerta abierta"), or lost as one loses keys, a match or a train."""
    verb = match.group(0).split(None, 1)[0].lower()
    words = match.group("thing").lower().split()
    if verb.startswith("perd") or "perdido" in match.group(0).lower():
        return words[0] in _MISLAID
    if (not verb.startswith("dej") and "dejado" not in match.group(0).lower()) or words[0] in _JOBS:
        return False  # "dejé el curro en Zara": the job there ended
    after = match.string[match.end("thing") :].split()
    return any(w in _LEFT_AS_IT_IS or w.endswith(_LEFT_AS_IT_IS_ENDINGS) for w in [*words[1:], *after[:1]])


# Where or how a thing left is: "en el cole", "encima de la mesa", "abierta", "puesto".
_LEFT_AS_IT_IS = frozenset("en con encima al allí ahí aquí debajo".split())
_LEFT_AS_IT_IS_ENDINGS = ("ierta", "ierto", "cerrada", "cerrado", "puesta", "puesto", "encendida", "encendido")
# What one loses for a while, or in a game: keys, a phone, one's voice, a match, a train, weight.
_MISLAID = frozenset(
    "llaves llave móvil cartera monedero gafas voz paciencia partido juego apuesta carrera noción tren autobús "
    "vuelo bus metro tiempo peso sueño cabeza control cuenta".split()
)
_JOBS = frozenset("trabajo curro puesto empleo".split())
_ARTICLE_WORDS = frozenset("el la los las un una unos unas mi mis su sus".split())


def _named(thing: str, generic: frozenset[str] = frozenset()) -> frozenset[str]:
    """The words that name a thing, up to where another clause or a time begins."""
    words: list[str] = []
    for word in thing.lower().replace("’", "'").split():
        if word in _TIME_WORDS or word in _THING_ENDS:
            if any(w not in _GENERIC for w in words):
                break
            continue
        words.append(word)
    return frozenset(
        w
        for w in words
        if w not in _GENERIC and w not in generic and len(w) > 2 and w not in NOT_THINGS and w not in _ARTICLE_WORDS
    )


def changes(text: str) -> list[Change]:
    """Every thing ``text`` says has ended, been called off, been put to another time, or is done without now."""
    found = [Change("ended", thing) for thing in ended(text)]
    if _RETIRED.search(text):
        found.append(Change("retired", frozenset({"trabajo"})))
    for pattern in _CALLED_OFF:
        for match in pattern.finditer(text):
            names = frozenset(w.lower() for w in match.group("thing").split() if w[0].isupper())
            if thing := names or _named(match.group("thing")):
                found.append(Change("called off", thing))
    for match in _RESCHEDULED.finditer(text):
        thing = _named(match.group("thing"), _WHEN_WORDS)
        if thing and TIME_NAMED.match(match.group("when")):
            found.append(Change("rescheduled", thing))
    for match in _WITHOUT.finditer(text):
        if thing := _named(match.group("thing")):
            found.append(Change("done without", thing))
    return list(dict.fromkeys(found))


def names_a_time(text: str) -> bool:
    """Whether ``text`` names a time: a month, a weekday, a season, a date."""
    return TIME_NAMED.search(text) is not None
