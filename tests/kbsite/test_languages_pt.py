"""Portuguese statements read offline (kbsite/languages/pt/statements.py): what a statement says of one person's
one-valued attributes, in their own words or an LLM's; what says nothing. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.statements import reading, statement


@pytest.fixture(autouse=True)
def portuguese():
    with languages.override("pt"):
        yield


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Rita: Moro em Coimbra com duas amigas.", {"residence": "coimbra"}),
        ("Rita: Finalmente nos mudamos para Aveiro!", {"residence": "aveiro"}),
        ("Rita mora em Aveiro.", {"residence": "aveiro"}),  # an LLM's fact, in the third person
        ("Caio: Trabalho como motorista numa frota.", {"occupation": "motorista", "employer": "frota"}),
        ("Caio: Fui contratado pela Gerdau", {"employer": "gerdau"}),
        ("Caio: Tenho 52 anos.", {"age": "52"}),
        ("Caio: Não sou mais vegano, voltei a comer frango.", {"diet": "onívoro"}),
        ("Caio: Sou vegetariana desde 2020.", {"diet": "vegetariano"}),
        ("Caio: Eu e o Lucas nos casamos em abril", {"relationship": "married"}),
        ("Caio: Adoro pastel de nata", {"likes pastel de nata": "yes"}),
        # Two clauses of one's own joined by "e": both read; an "e" inside a value parts nothing.
        ("Rita: Me chamo Rita e moro em Évora.", {"name": "rita", "residence": "évora"}),
        ("Rita: Gosto de pão e manteiga.", {}),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's age, diet, partner, name and a liking, in Portuguese."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Rita: Saí do meu emprego na Embraer.", {"employer": "not embraer"}),
        ("Rita: Pedi demissão da Sonae.", {"employer": "not sonae"}),
        ("Rita: Deixei de comer carne.", {}),
        ("Rita: Saí de casa aos dezoito.", {}),
        ("Rita: Saí no sábado com as amigas.", {}),
        ("Rita: Começo em outubro.", {}),
    ],
)
def test_leaving_a_job_is_not_leaving_home_a_habit_or_the_house(text, slots):
    """Where one no longer works, and what leaving says otherwise: stopping a habit ("deixei de": an infinitive),
    leaving home, going out; starting in a month names when, not where."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    [
        "Rita: Vivo no mundo da lua.",
        "Rita: Trabalho em casa.",
        "Rita: Trabalho como um condenado.",
        "Rita: Trabalho de noite.",
        "Rita: Entrei em pânico.",
        "Rita: Entrei no carro.",
        "Rita: Comecei na segunda.",
        "Rita: Saí do sério.",
        "Rita: Me chamo como o meu avô.",
        "Rita: Trabalho pra caramba.",
        "Rita: Trabalho de casa às sextas.",
        "Rita: Trabalho para pagar o aluguel.",
        "Rita: Entrei na faculdade!",
        "Rita: Comecei na academia ontem.",
        "Rita: Me mudei pra cá faz dois anos.",
    ],
)
def test_idioms_and_times_are_no_home_employer_title_or_name(text):
    """Sentences shaped like a statement of where one lives or works, as what, or one's name, that state none."""
    assert statement(text).slots == {}


def test_a_home_named_before_where_it_is():
    assert statement("Rita: Moro num apartamento pequeno em Braga.").slots == {"residence": "braga"}


@pytest.mark.parametrize("text", ["Se eu morasse em Faro seria feliz.", "Você mora em Faro?", "Talvez more em Faro."])
def test_questions_and_conditions_state_nothing(text):
    """A question, a wish or a condition gives no attribute a value."""
    assert statement(f"Rita: {text}").slots == {}


def test_a_turn_of_no_named_speaker_is_read_as_the_speakers_own_words():
    """Posted with no speaker's name, "Trabalho…" is the speaker's own work (Portuguese drops the "I" too), and a
    sentence about someone else states nothing of the speaker."""
    said = reading("Trabalho de garçom num bar do centro.", "pt", own=True)
    assert said["speaker"] == "" and said["slots"] == {"occupation": "garçom", "employer": "bar do centro"}
    assert reading("Minha irmã mora em Recife.", "pt", own=True)["slots"] == {}
