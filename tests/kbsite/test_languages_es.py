"""Spanish read offline (kbsite/languages/es): what a statement says of one person, what a text says has changed,
what says nothing, what a question asks about and the time it names. Sentences of our own."""

from __future__ import annotations

import pytest

from kbsite import languages
from memories.ingest.changes import changes
from memories.ingest.statements import reading, statement
from memories.recall.concepts import concept_words, slots_asked
from memories.recall.query import query_period
from memories.text import is_salient, statements_of


@pytest.fixture(autouse=True)
def spanish():
    with languages.override("es"):
        yield


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Inés: Vivo en Zaragoza con dos compañeras de piso.", {"residence": "zaragoza"}),
        ("Inés: ¡Por fin nos hemos mudado a Gijón!", {"residence": "gijón"}),
        ("Inés vive en Gijón.", {"residence": "gijón"}),  # an LLM's fact, in the third person
        ("Tomás: Trabajo de fontanero desde los veinte.", {"occupation": "fontanero"}),
        ("Tomás: Me han contratado en Mercadona", {"employer": "mercadona"}),
        ("Tomás: Tengo 41 años.", {"age": "41"}),
        ("Tomás: Ya no soy vegano, he vuelto a comer pescado.", {"diet": "omnívoro"}),
        ("Tomás: Soy vegetariana desde 2019.", {"diet": "vegetariano"}),
        ("Tomás: Mi pareja Sergio y yo nos hemos casado en mayo", {"relationship": "married"}),
        ("Tomás: Mi grupo favorito es Vetusta Morla.", {"favourite grupo": "vetusta morla"}),
        ("Tomás: Me encantan las croquetas", {"likes croquetas": "yes"}),
        # Two clauses of her own joined by "y": both read; a "y" inside a value parts nothing.
        ("Nerea: Me llamo Nerea y vivo en Cuenca.", {"name": "nerea", "residence": "cuenca"}),
        ("Nerea: Ahora trabajo en Eroski y vivo en Vitoria.", {"employer": "eroski", "residence": "vitoria"}),
        ("Nerea: Tengo 29 años y el pelo rizado.", {"age": "29"}),
        # As what and where one works, in one clause ("La" inside a name is no article that ends it).
        (
            "Tomás: Trabajo como cocinero en el hotel La Caleta.",
            {"occupation": "cocinero", "employer": "hotel la caleta"},
        ),
    ],
)
def test_a_statement_gives_the_value_of_an_attribute_of_its_speaker(text, slots):
    """Where one lives or works, as what, one's age, diet, partner, a favourite and a liking, in Spanish."""
    assert statement(text).slots == slots


def test_an_offline_fact_of_no_named_speaker_is_read_as_the_speakers_own_words():
    """A user's turn posted with no speaker's name: "Trabajo…" opens on a verb (Spanish drops the "I"), not on a
    person called Trabajo; and a short answer's reading is the answer's, not the bot's question it keeps."""
    said = reading("Trabajo de fontanero en Saneamientos Ruiz.", "es", own=True)
    assert said["speaker"] == "" and said["slots"] == {"occupation": "fontanero", "employer": "saneamientos ruiz"}
    answer = reading("De fontanero, en Ruiz (answering: ¿Y a qué te dedicas, Tomás?)", "es", own=True)
    assert answer["speaker"] == "" and "Tomás" not in answer["places"]
    english = reading("A plumber (answering: What do you do these days?)", "en", own=True)
    assert english["speaker"] == ""


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Tomás: Dejé el curro en Leroy Merlin.", {"employer": "not leroy merlin"}),
        ("Tomás: Dejé de fumar en enero.", {}),
        ("Tomás: He dejado de beber refrescos.", {}),
        ("Tomás: Me han cogido en una gestoría y empiezo en octubre.", {"employer": "gestoría"}),
        ("Tomás: Empiezo en octubre.", {}),
    ],
)
def test_leaving_a_job_is_not_stopping_a_habit_and_a_month_no_employer(text, slots):
    """Where one no longer works, and "dejé de" before an infinitive: a habit stopped, no employer; starting in a
    month names when, not where."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    ("question", "word"),
    [("¿Qué auto maneja Inés ahora?", "coche"), ("¿Qué carro tiene Inés?", "coche"),
     ("¿A qué actividad física se dedica Inés?", "gimnasio")],
)  # fmt: skip
def test_a_question_asks_about_a_subject_in_the_spanish_of_latin_america_too(question, word):
    """ "Auto", "carro", "manejar" (the car and driving in most of Latin America) and "actividad física" name their
    subjects as "coche" and "deporte" do: the question wants the subject's words."""
    assert word in concept_words(question)


@pytest.mark.parametrize(
    "text",
    [
        "Tomás: Vivo en las nubes.",
        "Tomás: Vivo en paz desde que lo dejé.",
        "Tomás: Trabajo en casa los viernes.",
        "Tomás: Trabajo en equipo con mi hermana.",
        "Tomás: Trabajo como un burro.",
        "Tomás: Trabajo de noche.",
        "Tomás: Trabajo de lunes a viernes.",
        "Tomás: Entré en pánico.",
        "Tomás: Entré en la ducha.",
        "Tomás: Empecé en serio con el gimnasio.",
        "Tomás: Me llamo como mi abuelo.",
        "Tomás: Trabajo para pagar el alquiler.",
        "Tomás: Empecé con buen pie.",
    ],
)
def test_idioms_and_times_are_no_home_employer_title_or_name(text):
    """Sentences shaped like a statement of where one lives or works, as what, or one's name, that state none:
    each would have replaced the value stated before."""
    assert statement(text).slots == {}


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Tomás: Vivo en un piso compartido en Ruzafa.", {"residence": "ruzafa"}),
        ("Tomás: Entré en Indra en marzo.", {"employer": "indra"}),
        ("Tomás: Trabajo como camarero en un bar.", {"occupation": "camarero", "employer": "bar"}),
    ],
)
def test_a_home_named_before_where_it_is_and_an_employer_entered(text, slots):
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Tomás: Alquilamos un piso en Triana, así que nada de taladros.", {"residence": "triana"}),
        ("Tomás: Hemos comprado una casa en Getafe.", {"residence": "getafe"}),
        ("Tomás: Desde la ventana de mi piso nuevo en Gijón se ve el mar.", {"residence": "gijón"}),
        ("Tomás: Hay cajas por todas partes en nuestra nueva casa en Oviedo.", {"residence": "oviedo"}),
        ("Tomás: Empiezo como enfermero en el Clínico el lunes.", {"occupation": "enfermero", "employer": "clínico"}),
    ],
)
def test_a_home_rented_bought_or_new_and_a_job_begun_as_what(text, slots):
    """A home rented or bought, one's new one named anywhere in a clause (the value ends before "se ve"), a job begun
    as what."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    [
        "Tomás: La nueva casa de mi hermana en Vigo es preciosa.",
        "Tomás: Alquilé un coche en Mallorca.",
        "Tomás: Empiezo como un loco cada mañana.",
        "Tomás: Empecé de broma.",
        "Tomás: Empiezo de noche esta semana.",
    ],
)
def test_someone_elses_new_home_a_car_rented_a_likeness_or_a_time_is_no_home_or_title(text):
    assert statement(text).slots == {}


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("Tomás: En septiembre empiezo en Indra.", {"employer": "indra"}),
        ("Tomás: Desde el lunes trabajo en Mercadona.", {"employer": "mercadona"}),
        ("Tomás: Desde marzo vivimos en Gijón.", {"residence": "gijón"}),
        ("Tomás: Este verano me mudé a Cádiz.", {"residence": "cádiz"}),
        (
            "Tomás: El mes que viene empiezo como camarero en el Bar Pepe.",
            {"occupation": "camarero", "employer": "bar pepe"},
        ),
    ],
)
def test_a_time_said_before_the_verb_leaves_the_statement_read(text, slots):
    """A month, a weekday, a season or "el mes que viene" said first ("En septiembre empiezo en Indra"): before, a
    statement opening on a time was not read at all."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text",
    ["Tomás: En casa trabajo de noche.", "Tomás: En septiembre empiezo.", "Tomás: Desde el lunes vivo en las nubes."],
)
def test_a_time_said_first_reads_no_idiom_nor_a_start_with_no_place(text):
    assert statement(text).slots == {}


@pytest.mark.parametrize("text", ["Si me mudara a Lugo sería feliz.", "¿Vives en Lugo?", "Ojalá trabajara en Inditex."])
def test_questions_and_conditions_state_nothing(text):
    """A question, a wish or a condition gives no attribute a value."""
    assert statement(f"Inés: {text}").slots == {}


@pytest.mark.parametrize(
    ("text", "how", "thing"),
    [
        ("Vendimos la furgoneta en abril.", "ended", {"furgoneta"}),
        ("Ya no fumo, lo dejé.", "ended", {"fumo"}),
        ("Se ha cancelado la excursión a Granada.", "called off", {"granada"}),
        ("Hemos aplazado la mudanza a octubre.", "rescheduled", {"mudanza"}),
        ("Me jubilé el viernes pasado.", "retired", {"trabajo"}),
    ],
)
def test_a_change_names_the_thing_it_ends_calls_off_or_puts_off(text, how, thing):
    """Sold, given up, called off, put to another month, retired: each names what it makes a thing of the past."""
    assert (how, thing) in [(c.how, set(c.thing)) for c in changes(text)]


def test_a_sale_replaces_an_older_statement_of_the_thing_and_not_another():
    """ "Vendimos la furgoneta" makes "Vamos al trabajo en nuestra furgoneta" a thing of the past, not a text about a
    bicycle."""
    (sold,) = changes("Vendimos la furgoneta en abril.")
    assert sold.replaces("Inés: Vamos al trabajo en nuestra furgoneta.")
    assert not sold.replaces("Inés: Voy en bici al trabajo.")


def test_small_talk_says_nothing_and_a_short_fact_is_kept_and_statements_are_cut():
    """ "vale, gracias" is skipped; "soy celíaca" is kept; a turn's statements are cut at their clauses."""
    assert not is_salient("vale, gracias!")
    assert is_salient("soy celíaca")
    assert statements_of("Me he mudado a Huesca. Y además soy alérgica al marisco; mi hermano vive en Vigo.") == [
        "Me he mudado a Huesca.",
        "Y además soy alérgica al marisco",
        "Mi hermano vive en Vigo.",
    ]


def test_a_long_run_of_sentences_in_lower_case_is_cut_at_each_and_short_chat_stays_whole():
    """Chat in lower case: a long paragraph says several things, each its own statement (the new job apart from the
    meetings it goes on about); two short sentences stay together, as a short answer says nothing alone."""
    said = statements_of(
        "holaaa, cuánto tiempo! te cuento: empecé a trabajar en una gestoría de Zaragoza y estoy reventada pero "
        "contenta. me han puesto a llevar las nóminas de veinte empresas. ¿cómo organizo tantas reuniones?"
    )
    assert [s for s in said if "gestoría" in s] == [
        "Empecé a trabajar en una gestoría de Zaragoza y estoy reventada pero contenta."
    ]
    assert statements_of("mañana no puedo. tengo dentista a las diez.") == [
        "mañana no puedo. tengo dentista a las diez."
    ]


def test_what_a_question_asks_and_the_time_it_names():
    """ "¿Dónde vive ahora?" asks where one lives; "en marzo de 2024" names that month."""
    assert slots_asked("¿Dónde vive ahora Inés?") == {"residence", "address"}
    start, end = query_period("¿Qué pasó en marzo de 2024?")
    assert (start.month, start.year, end.month) == (3, 2024, 4)


def test_a_question_about_a_subject_wants_its_words_in_the_languages_of_the_facts_too():
    """ "¿Tiene mascotas?" asks about pets: among Spanish facts it wants "perro" and "gato"; among English facts
    (``also``) "dog" and "cat" as well, and the same through the parsed query recall searches in full text. A
    language the facts are in that is the question's own adds nothing."""
    from memories.recall.query import query_parse

    spanish = concept_words("¿Tiene mascotas?")
    assert {"perro", "gato"} <= set(spanish) and not {"dog", "cat"} & set(spanish)
    assert {"perro", "gato", "dog", "cat"} <= set(concept_words("¿Tiene mascotas?", also=["en"]))
    assert concept_words("¿Tiene mascotas?", also=["es", ""]) == spanish
    assert {"dog", "cat"} <= set(query_parse("¿Tiene mascotas?", end_user_id=1, held=["en"]).about)


@pytest.mark.parametrize(
    "text",
    [
        "Tomás: Dejé a los niños en el cole.",
        "Tomás: Dejé la puerta abierta.",
        "Tomás: He dejado las llaves en casa.",
        "Tomás: Perdí las llaves otra vez.",
        "Tomás: Perdí el tren de las ocho.",
    ],
)
def test_a_thing_left_somewhere_or_mislaid_has_not_ended(text):
    """Leaving the children at school, a door open or the keys at home, and losing keys or a train end nothing."""
    assert changes(text) == []


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("Tomás: He dejado el gimnasio.", {"gimnasio"}),
        ("Tomás: Dejé el trabajo en Mercadona.", {"mercadona"}),
        ("Tomás: Perdí a mi abuela en marzo.", {"abuela"}),
    ],
)
def test_a_thing_given_up_or_lost_for_good_has_ended(text, thing):
    assert [change.thing for change in changes(text) if change.how == "ended"] == [frozenset(thing)]
