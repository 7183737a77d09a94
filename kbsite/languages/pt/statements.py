"""Portuguese: reading what a text states of one person's one-valued attributes: where they live, where and as what
they work, their name and age, where they stand with a partner, their diet, whether they like a thing.

Statements are about one person, in their own words ("Ana: Moro em Curitiba", an offline fact) or an LLM's ("Ana
mora em Curitiba"), which is read as the first person. Questions and conditions state nothing. The rules are the
language's general forms (a verb of the attribute and what follows it, the pronoun dropped as Portuguese drops it),
Brazilian and European alike, never a sentence of a case.
"""

from __future__ import annotations

import re

from kbsite.languages.pt.words import ANY_SENTENCE
from kbsite.languages.reading import Statement
from kbsite.languages.slots import SlotReader, patterns_led_by

# A value: up to the end of its clause.
_END = r"(?P<v>[^,.;:!?()\"]+)"
# Where a value ends: the next clause, or a time, place or manner said of it. An article stops it only in lower
# case: "o Hospital das Clínicas" is one name.
_VALUE_STOP = re.compile(
    r"\s+(?:(?i:e|mas|porque|pois|com|desde|há|faz|em|no|na|nos|nas|num|numa|até|quando|enquanto|para|pra|por|pelo|pela|"
    r"embora|agora|já|ainda|também|logo|hoje|ontem|amanhã|durante|depois|antes|que)|o|a|os|as|este|esta)\b.*$"
    r"|\s+\d.*$"
)
_ARTICLE = re.compile(r"^(?:o|a|os|as|um|uma|uns|umas|meu|minha|nosso|nossa)\s+", re.I)
# A place of work is no home: "me mudei para o escritório de Lisboa".
_WORK_NOUNS = frozenset("escritório sede filial loja fábrica hospital clínica escola colégio".split())
_HOME_HINTS = ("moro", "mora", "moramos", "moram", "mudei", "mudamos", "mudou", "casa", "apartamento", "cidade")
_JOB_HINTS = ("trabalho", "trabalha", "trabalhamos", "empresa", "emprego")
JOB_NOUNS = (
    r"enfermeir[oa]|médic[oa]|dentista|farmacêutic[oa]|fisioterapeuta|psicólog[oa]|professor[a]?|educador[a]?|"
    r"engenheir[oa]|programador[a]?|desenvolvedor[a]?|designer|arquitet[oa]|advogad[oa]|contador[a]?|"
    r"economista|jornalista|escritor[a]?|tradutor[a]?|garçom|garçonete|cozinheir[oa]|chef|padeir[oa]|"
    r"vendedor[a]?|caixa|recepcionista|secretári[oa]|gerente|diretor[a]?|técnic[oa]|eletricista|encanador[a]?|"
    r"mecânic[oa]|motorista|piloto|policial|bombeir[oa]|veterinári[oa]|pesquisador[a]?|cientista|"
    r"funcionári[oa] públic[oa]|consultor[a]?|analista|estudante|estagiári[oa]|autônom[oa]|fotógraf[oa]|"
    r"músic[oa]|carpinteir[oa]|pedreir[oa]|agricultor[a]?|cabeleireir[oa]|cuidador[a]?"
)
_DIETS = r"vegetarian[oa]s?|vegan[oa]s?|pescetarian[oa]s?|flexitarian[oa]s?|celíac[oa]s?"
_RELATIONSHIP = {
    "namorado": "dating", "namorada": "dating", "noivo": "engaged", "noiva": "engaged", "noivos": "engaged",
    "marido": "married", "mulher": "married", "esposo": "married", "esposa": "married", "casado": "married",
    "casada": "married", "casados": "married", "divorciado": "single", "divorciada": "single",
    "separado": "single", "separada": "single", "solteiro": "single", "solteira": "single",
}  # fmt: skip
_DIET_HINTS = ("vegetariana", "vegetariano", "vegana", "vegano", "carne", "peixe")
_RELATIONSHIP_HINTS = ("namorado", "namorada", "noivo", "noiva", "marido", "mulher", "esposo", "esposa")
_LEAD = r"^(?:(?:então|bom|olha|enfim|e|mas|agora|já|além disso|também|finalmente|no fim|afinal),?\s+)*"


_p = patterns_led_by(_LEAD)


# Where one lives, said of no place: "vivo no mundo da lua", "vivo em paz".
_NOT_HOMES = frozenset(
    "mundo lua paz pecado harmonia presente passado futuro medo tensão alerta cá aqui lá ali".split()
)
# Where one works, said of no employer: from home, in a team, shifts, a weekday; what one enters or leaves that is
# none ("entrei em pânico", "entrei no carro", "saí do sério", "saí da linha").
_NOT_EMPLOYERS = frozenset(
    "casa equipe equipa turnos remoto home pânico choque crise carro ônibus metrô banho chuveiro sala loja sério "
    "linha controle eixo armário segunda terça quarta quinta sexta sábado domingo semana mês ano caramba".split()
)
# What one starts or enters that is no employer: studies, a gym ("entrei na faculdade", "comecei na academia").
_NOT_STARTED = _NOT_EMPLOYERS | frozenset(
    "faculdade universidade escola colégio curso mestrado doutorado academia".split()
)
# As what one works, said of when: "trabalho de noite", "de segunda a sexta".
_NOT_TITLES = frozenset(
    "noite dia manhã tarde madrugada segunda terça quarta quinta sexta sábado domingo casa graça".split()
)

_PATTERNS = [
    # Where one lives: "moro em Curitiba", "a gente mora no Porto", "me mudei para Floripa", "mudamos pra Braga".
    _p(
        "residence",
        r"(?:eu |nós |a gente |agora |já |atualmente )*(?:moro|moramos|mora|vivo|vivemos|resido) "
        r"(?:em|no|na|nos|nas|num|numa) "
        # A home named before where it is: "moro num apartamento pequeno em Braga".
        r"(?:(?:um |uma |meu |minha |o |a )?(?:apartamento|casa|quarto|estúdio|kitnet|apê|t\d)(?: \w+)? (?:em|no|na) )?"
        + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    _p(
        "residence",
        r"(?:eu |nós |a gente )?(?:(?:me|nos) )?(?:mudei|mudamos|mudou|mudei-me|mudamo-nos|fui morar|fomos morar)"
        r"(?: de volta)? (?:para|pra|pro|para o|para a) " + _END,
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # A new home of one's own named anywhere in a clause: "da janela do meu apartamento novo em Niterói dá pra ver o
    # mar". The place is a name, said with a capital ("minha casa nova em São Paulo", "no Rio de Janeiro"): "casa
    # nova em construção", "apartamento novo no centro" name none.
    _p(
        "residence",
        r"(?:.*?\b)?(?:meu|minha|nosso|nossa) (?:(?:novo|nova) (?:apartamento|casa|quarto|estúdio|kitnet|apê)|"
        r"(?:apartamento|casa|quarto|estúdio|kitnet|apê) (?:novo|nova)) (?:em|no|na) "
        r"(?P<v>(?-i:[A-ZÁÉÍÓÚÂÊÔÃÕÇ])[\w-]*(?: (?:d[eoa]s? )?(?-i:[A-ZÁÉÍÓÚÂÊÔÃÕÇ])[\w-]*)*)\b",
        hints=_HOME_HINTS,
        not_first=_NOT_HOMES,
    ),
    # Where one works: "trabalho na Petrobras", "comecei na Natura", "fui contratada pela Embraer".
    _p(
        "employer",
        # Not what one works for ("trabalho para pagar o aluguel": an infinitive).
        r"(?:eu |agora |já |atualmente )*(?:trabalho|trabalhamos) (?:em|no|na|para|pra|pro|pela|pelo) "
        r"(?!(?-i:[a-zà-ú])\w*(?:ar|er|ir)\b)" + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_EMPLOYERS,
    ),
    _p(
        "employer",
        r"(?:comecei|começo|entrei)(?: a trabalhar)? (?:em|no|na|numa|num) " + _END,
        hints=_JOB_HINTS + ("comecei", "entrei"),
        not_first=_NOT_STARTED,
    ),
    _p(
        "employer",
        r"(?:fui|fomos) contratad[oa]s? (?:em|no|na|pela|pelo|para) " + _END,
        hints=_JOB_HINTS + ("contratado", "contratada"),
    ),
    _p(
        "employer",
        r"(?:saí|sai|larguei|deixei|pedi demissão) "
        r"(?:(?:do meu emprego|do emprego|do trabalho) (?:d[oa]|de|em|n[oa])|d[oa]|de|em) "
        # Not a habit ("deixei de fumar": an infinitive) nor home ("saí de casa").
        r"(?!(?-i:[a-zà-ú])\w*(?:ar|er|ir)\b|casa\b|(?:meu |o )?(?:emprego|trabalho)\b)" + _END,
        hints=_JOB_HINTS + ("saí", "larguei", "deixei"),
        negated=True,
        not_first=_NOT_EMPLOYERS,
    ),
    # As what one works: "trabalho como enfermeira", "sou professor", "fui promovida a gerente".
    # "como um condenado": a likeness (a title takes no article: "trabalho como enfermeira").
    _p(
        "occupation",
        r"(?:eu |agora |já )*(?:trabalho|trabalhamos) (?:como|de) (?!um |uma )" + _END,
        hints=_JOB_HINTS,
        not_first=_NOT_TITLES,
    ),
    _p(
        "occupation",
        r"(?:eu |agora |já )*sou (?:um |uma )?(?P<v>(?:" + JOB_NOUNS + r")(?: \w+){0,2})",
        hints=_JOB_HINTS,
    ),
    _p("occupation", r"(?:fui|me) promovid[oa] a " + _END, hints=("promovido", "promovida", "trabalho")),
    _p("name", r"(?:meu nome é|me chamo|chamo-me) (?!como\b|assim\b)" + _END, hints=("nome", "chamo")),
    _p("age", r"(?:eu )?tenho (?P<v>\d{1,3}) anos", hints=("anos",)),
    # Where one stands with a partner: "ficamos noivos", "nos casamos", "terminamos", "meu namorado Rui".
    _p("relationship", r".*?\b(?:ficamos noivos|fiquei noiv[oa])\b", value="engaged", hints=_RELATIONSHIP_HINTS),
    _p("relationship", r".*?\b(?:nos casamos|me casei|casei-me|casamos)\b", value="married", hints=_RELATIONSHIP_HINTS),
    _p(
        "relationship",
        r".*?\b(?:terminamos|terminei com|nos separamos|me separei|nos divorciamos|me divorciei)\b",
        value="single",
        hints=_RELATIONSHIP_HINTS,
    ),
    _p(
        "relationship",
        r"(?:estou|sou|continuo) (?P<v>solteir[oa]|casad[oa]|divorciad[oa]|separad[oa])\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    _p(
        "relationship",
        r".*?\b(?:meu|minha) (?P<v>namorado|namorada|noivo|noiva|marido|mulher|esposo|esposa)\b",
        hints=_RELATIONSHIP_HINTS,
        mapped=_RELATIONSHIP,
    ),
    # A diet: "sou vegetariana", "não sou mais vegano", "voltei a comer carne".
    _p("diet", r"(?:já )?não sou mais (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS, negated=True),
    _p("diet", r"(?:eu )?já não sou (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS, negated=True),
    _p("diet", r"(?:eu |agora |já )*sou (?P<v>" + _DIETS + r")\b", hints=_DIET_HINTS),
    _p("diet", r"(?:voltei|volto) a comer (?:carne|peixe|frango)\b", value="onívoro", hints=_DIET_HINTS + ("comer",)),
    # Whether one likes a thing: "adoro sushi", "não gosto mais de café".
    _p("likes {0}", r"(?:já )?não gosto (?:mais )?(?:de |do |da |dos |das )" + _END, value="no", strict=True),
    _p("likes {0}", r"(?:odeio|detesto) " + _END, value="no", strict=True),
    _p("likes {0}", r"(?:adoro|amo|gosto muito (?:de|do|da)|gosto (?:de|do|da)) " + _END, value="yes", strict=True),
]
NOT_THINGS = frozenset("isso isto aquilo o a que tudo nada algo".split())
_CONDITIONAL = re.compile(r"\b(?:se|quem sabe|talvez|tomara|oxalá|gostaria|seria|poderia)\b", re.I)

# An LLM's fact in the third person, read as the first: "Ana mora em Curitiba" → "moro em Curitiba".
_SUBJECT = re.compile(r"^(?P<who>[A-ZÀ-Ý][\w-]+(?: [A-ZÀ-Ý][\w-]+){0,2})\s+(?P<rest>.+)$")
_FIRST_PERSON_VERBS = {
    "mora": "moro", "trabalha": "trabalho", "é": "sou", "está": "estou", "tem": "tenho", "se": "me", "mudou": "mudei",
    "começou": "comecei", "entrou": "entrei", "saiu": "saí", "chama": "chamo", "casou": "casei", "voltou": "voltei",
    "adora": "adoro", "odeia": "odeio", "gosta": "gosto",
}  # fmt: skip
_NOT_SUBJECTS = frozenset("o a os as um uma meu minha seu sua este esta esse essa hoje ontem agora já eu e mas".split())
_FIRST_PERSON = re.compile(
    r"(?:^|[.!?]\s+)(?:[\w]+,?\s+)?(?:eu|me|meu|minha|meus|minhas|nós|nosso|nossa|a gente|sou|estou|tenho|moro)\b",
    re.I,
)
# Where a sentence's clauses part: a comma, "mas", and "e" before a clause of the speaker's own (a first-person verb
# or pronoun: "me chamo Ana e moro em Curitiba"), not inside a value ("arroz e feijão", "Porto e Braga": a noun in
# "-ão" is no verb).
CLAUSES = re.compile(
    r",\s+|;\s+|\s+(?i:mas)\s+|\s+e\s+(?=(?:(?:agora|já|também|ainda) )?"
    r"(?:eu|me|nós|meu|minha|a gente|(?![a-zç]+ão\b)[a-záéíóúâêôãõç]+(?:o|ou|ei|i|amos|emos|imos))\b)"
)
# Where a statement of several attributes may be cut, each part stating its own: its clauses.
PARTS = CLAUSES
# Where one works, said after as what: "… como enfermeira no Hospital São Lucas", "… de garçom num bar".
_WORKS_AT = re.compile(r"\s*(?:em|no|na|num|numa|para|pra|pela|pelo) (?P<v>[^,.;:!?()\"]+?)\s*$")


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
    openers="",
)


def statement(text: str, own: bool | None = None) -> Statement:
    """What ``text`` states of one person ("Ana: Moro em Curitiba." or "Ana mora em Curitiba.")."""
    return _READER.statement(text, own)
