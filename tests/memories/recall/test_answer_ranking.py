"""Offline ask's ranking (memories/recall/answer_ranking.py): each statement of the block measured against the
question, and scored by the fitted weights. Sentences of our own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbsite import languages
from memories.recall.answer_ranking import WEIGHTS, Question, ranked
from memories.recall.hits import Hit


def _hit(pk: int, text: str, day: int = 1, entities: list[str] = ("Omar",)) -> Hit:
    return Hit(
        id=pk,
        type="memory",
        text=text,
        kind="fact",
        language="en",
        entities=list(entities),
        created_at=datetime(2024, 1, day, tzinfo=UTC),
    )


def _ranked(question: str, hits: list[Hit], close: dict[int, float] | None = None):
    statements = [(rank, hit, hit.id, hit.text) for rank, hit in enumerate(hits)]
    return ranked(Question.read(question), statements, close or {}, set())


def _small_talk_and_fact(code: str, question: str, small_talk: str, fact: str) -> tuple[dict, list]:
    """``small_talk`` (pk 1) and ``fact`` (pk 2), said in language ``code``, ranked against ``question`` read in it:
    each candidate by its pk, and the ranking."""
    with languages.override(code):
        hits = [_hit(1, small_talk), _hit(2, fact)]
        for hit in hits:
            hit.language = code
        ranking = _ranked(question, hits)
    return {c.pk: c for c in ranking}, ranking


def _only_the_fact_answers(code: str, question: str, small_talk: str, fact: str) -> None:
    """In language ``code``, of ``small_talk`` and ``fact``, only ``fact`` answers ``question``, and it ranks first;
    the small talk shares no word the question asks for."""
    by_pk, ranking = _small_talk_and_fact(code, question, small_talk, fact)
    assert not by_pk[1].answers and by_pk[1].measures["matched"] == 0
    assert by_pk[2].answers and by_pk[2].pk == ranking[0].pk


def test_a_statement_naming_something_by_name_or_number_ranks_above_one_sharing_as_many_words():
    """Asked what car he drives, "I drive a Skoda Octavia" (names it) ranks above "I drive to the coast most
    weekends" (the same word in common, nothing named), whom the statement is about not counting as a name."""
    hits = [_hit(1, "Omar: I drive to the coast most weekends."), _hit(2, "Omar: I drive a Skoda Octavia.")]
    best, other = _ranked("What car does Omar drive?", hits)
    assert best.pk == 2 and best.measures["named"] == 2 and other.measures["named"] == 0
    assert best.measures["matched"] == other.measures["matched"] >= 1
    (measured,) = _ranked("How far did Omar run?", [_hit(3, "Omar: My brother calls me Omar the runner, 42 km.")])
    assert measured.measures["number"] == 1 and measured.measures["named"] == 0


def test_asked_how_things_stand_now_the_later_said_ranks_first_and_asked_before_the_earlier():
    """Two statements of where he works, alike in words and meaning: asked where he works now, the one said later
    comes first; asked where he worked before, the one said earlier; asked neither, when they were said is not
    weighed."""
    hits = [_hit(1, "Omar: I work at the bakery on Mill Road.", day=2), _hit(2, "Omar: I work at the library.", day=20)]
    close = {1: 0.4, 2: 0.4}
    assert _ranked("Where does Omar work now?", hits, close)[0].pk == 2
    assert _ranked("Where did Omar work before?", hits, close)[0].pk == 1
    neither = _ranked("Where does Omar work?", hits, close)
    assert all(c.measures["later"] == c.measures["earlier"] == 0 for c in neither)
    assert WEIGHTS["later"] > 0 > WEIGHTS["earlier"]


@pytest.mark.parametrize(
    ("code", "past", "ahead"),
    [
        ("en", "Where did Omar live before moving to Hull?", "Is there anything I should know before inviting Omar?"),
        ("es", "¿Dónde vivía Omar antes de mudarse?", "¿Hay algo que deba saber antes de invitar a Omar a comer?"),
        ("pt", "Onde o Omar morava antes de se mudar?", "Tem algo que eu deva saber antes de convidar o Omar?"),
        ("fr", "Où Omar habitait-il avant de déménager ?", "Que dois-je savoir avant d'inviter Omar à dîner ?"),
        ("de", "Wo hat Omar gewohnt, bevor er umzog?", "Was sollte ich wissen, bevor ich Omar einlade?"),
    ],
)
def test_before_something_the_asker_is_about_to_do_does_not_ask_how_things_were(code, past, ahead):
    """ "Where did he live before moving?" asks how things were before a change (the earlier said ranks first);
    "Anything I should know before inviting him?" asks advice about now, in each language read offline, and how
    things stand is not weighed as the past."""
    with languages.override(code):
        assert Question.read(past).before
        assert not Question.read(ahead).before


def test_in_a_users_first_minutes_a_statement_answers_by_meaning_alone_only_when_none_answers_by_what_it_says():
    """Two statements, too few to tell the usual closeness: asked "Is he still a baker?", the rain (closer in
    meaning, as the multilingual embedder puts a short French line) does not answer beside the statement that names
    the job; asked how he earns his living, which no statement names, the closest answers by meaning alone."""
    with languages.override("fr"):
        hits = [_hit(1, "Omar : Je suis boulanger à Nantes depuis dix ans."), _hit(2, "Omar : Il pleut encore ici.")]
        for hit in hits:
            hit.language = "fr"
        by_pk = {c.pk: c for c in _ranked("Est-il encore boulanger ?", hits, {1: 0.53, 2: 0.60})}
        assert by_pk[1].answers and not by_pk[2].answers
        by_pk = {c.pk: c for c in _ranked("Comment gagne-t-il sa vie ?", hits, {1: 0.45, 2: 0.20})}
        assert by_pk[1].answers and not by_pk[2].answers


@pytest.mark.parametrize(
    ("code", "question"),
    [
        ("en", "What was the name of Omar's previous landlord?"),
        ("en", "Which club did Omar's former coach run?"),
        ("es", "¿Cómo se llamaba el casero anterior de Omar?"),
        ("de", "Wie hieß Omars vorheriger Vermieter?"),
        ("de", "Bei welcher Firma war Omars früherer Chef?"),
        ("fr", "Comment s'appelait le propriétaire précédent d'Omar ?"),
        ("pt", "Como se chamava o senhorio anterior do Omar?"),
    ],
)
def test_the_previous_one_asks_how_things_were_before(code, question):
    """ "His previous landlord", "sein früherer Chef", "el casero anterior": the language's word for the one before
    asks how things were before a change, as "before" and "previously" do."""
    with languages.override(code):
        assert Question.read(question).before


@pytest.mark.parametrize(
    ("code", "question"),
    [
        ("en", "Where does Omar's former flatmate work now?"),
        ("en", "Going back to my previous question: what does Omar cook?"),
        ("es", "Sobre mi pregunta anterior, ¿qué cocina Omar?"),
        ("de", "Wo arbeitet Omars ehemaliger Mitbewohner jetzt?"),
        ("de", "Zu meiner vorherigen Frage: Was kocht Omar?"),
        ("fr", "Pour revenir à ma question précédente : que cuisine Omar ?"),
        ("pt", "Sobre a minha pergunta anterior, o que o Omar cozinha?"),
    ],
)
def test_the_previous_one_asked_about_now_or_of_the_chat_asks_no_past(code, question):
    """The one before, of a question that asks of now ("his former flatmate … now"), or of the chat itself ("my
    previous question"), asks nothing of how things were before."""
    with languages.override(code):
        assert not Question.read(question).before


@pytest.mark.parametrize(
    ("code", "origins", "pasts"),
    [
        ("en", ["Which town is Omar from originally?", "Where is Omar originally from?"],
         ["Which team did Omar originally play for?", "Who did Omar originally rent the flat from?",
          "Where is Omar from originally, and where did he work before the bakery?"]),
        ("de", ["Woher kommt Omar ursprünglich?", "Aus welcher Stadt kommt Omar ursprünglich?"],
         ["Was wollte Omar ursprünglich studieren?", "Wie sah seine Wohnung ursprünglich aus?",
          "Welchen Beruf übte Omar ursprünglich aus?"]),
        ("fr", ["D'où vient Omar à l'origine ?", "De quelle ville vient Omar à l’origine ?",
                "De quel pays est Omar à l'origine ?"],
         ["Qu'est-ce qu'Omar voulait étudier à l'origine ?", "Qu'est-ce qu'Omar voulait étudier à l’origine ?"]),
    ],
)  # fmt: skip
def test_where_someone_comes_from_is_not_asked_as_how_things_were_before(code, origins, pasts):
    """ "Where is he from originally?" asks a fact that holds now (where he comes from), said at any time: it is not
    read as asking how things were before a change, which would rank what was said first above it; "What did he
    originally want to study?", "How did his flat originally look?" are, and so is a question that asks both."""
    with languages.override(code):
        assert not any(Question.read(origin).before for origin in origins)
        assert all(Question.read(past).before for past in pasts)


@pytest.mark.parametrize(
    ("code", "personal", "worldly"),
    [
        ("en", ["What can I bring him?", "Where does the user work?", "Where does omar_77 live?"],
         ["When is the gym open?", "Can I bring my kid to the gym?"]),
        ("es", ["¿Qué le regalo?", "¿Algo que deba saber antes de invitarla?"],
         ["¿A qué hora cierra la piscina?", "¿Puedo llevar a mi hijo a la piscina?"]),
        ("pt", ["O que posso levar para ela?", "Posso convidá-la no sábado?"],
         ["A que horas fecha a piscina?", "Posso levar o meu filho à piscina?"]),
        ("fr", ["Que puis-je lui offrir ?", "Où habite sa sœur ?"],
         ["À quelle heure ferme la piscine ?", "Puis-je amener mon fils à la piscine ?"]),
        ("de", ["Was kann ich ihm mitbringen?", "Wo wohnt seine Schwester?"],
         ["Wann schließt das Schwimmbad?", "Darf ich mein Kind ins Schwimmbad mitnehmen?"]),
    ],
)  # fmt: skip
def test_a_question_about_a_person_is_told_from_one_about_the_world(code, personal, worldly):
    """A pronoun of someone else, "the user", or the end user's id makes a question one about a person (the end
    user's own statements answer it before shared ones); opening hours are not about anyone, nor is the asker's own
    "Can I bring my kid?", which asks about the place's rules."""
    with languages.override(code):
        for question in personal:
            assert Question.read(question, user_id="omar_77").person, question
        for question in worldly:
            assert not Question.read(question, user_id="omar_77").person, question


@pytest.mark.parametrize(
    ("code", "question", "small_talk", "fact"),
    [
        ("en", "Is there anything I should know about Omar's knee?", "You know what, anything goes.",
         "My knee still hurts after the marathon."),
        ("es", "¿Hay alguna cosa que deba saber de la rodilla de Omar?", "Quiero saber de trenes, ¿alguna idea?",
         "La rodilla me sigue doliendo desde la maratón."),
        ("pt", "Alguma coisa que eu deva saber sobre o joelho do Omar?", "Olha, uma coisa: sabe algo de trens?",
         "O joelho ainda dói desde a maratona."),
        ("de", "Gibt es irgendwas, das ich über Omars Knie wissen sollte?", "Weißt du irgendwas über Züge?",
         "Mein Knie tut seit dem Marathon weh."),
        ("fr", "Y a-t-il quelque chose que je dois savoir sur le genou d'Omar ?", "Tu sais quelque chose des trains ?",
         "Mon genou me fait encore mal depuis le marathon."),
    ],
)  # fmt: skip
def test_the_words_that_frame_a_question_are_not_what_it_asks_about(code, question, small_talk, fact):
    """ "Is there anything I should know about…": a statement sharing only "anything" or "know" with the question
    does not answer it, in each language read offline; the one sharing what it asks about does."""
    _only_the_fact_answers(code, question, small_talk, fact)


@pytest.mark.parametrize(
    ("code", "question", "small_talk", "fact"),
    [
        ("en", "Does Omar still keep bees?", "Still raining here, ugh.", "Our bees made six jars this summer."),
        ("es", "¿Omar todavía tiene abejas?", "Todavía llueve aquí, qué pesadez.", "Las abejas dieron seis tarros."),
        ("pt", "O Omar ainda tem abelhas?", "Ainda chove aqui, que chatice.", "As abelhas deram seis frascos."),
        ("de", "Hält Omar noch Bienen?", "Hier regnet es noch, wie nervig.", "Die Bienen gaben sechs Gläser Honig."),
        ("fr", "Omar a-t-il encore des abeilles ?", "Il pleut encore ici, quelle plaie.",
         "Les abeilles ont donné six pots."),
    ],
)  # fmt: skip
def test_the_words_that_only_say_when_a_question_asks_about_are_not_what_it_asks(code, question, small_talk, fact):
    """ "Does he still keep bees?": "still" says when the question asks about (now), not what; a statement sharing
    only it does not answer, and the one about the bees does. A word such a pattern only spans stays asked ("ne
    mange plus": "mange")."""
    _only_the_fact_answers(code, question, small_talk, fact)
    with languages.override("fr"):
        assert "mange" in Question.read("Est-ce qu'elle ne mange plus de viande ?").wanted


def test_a_german_compound_answers_a_question_about_its_head():
    """ "Volksschullehrerin" is a teacher and "Erdnussallergie" an allergy: a question about work or allergies, in
    German or in English, finds them, and the small talk beside them does not answer."""
    hits = [
        _hit(1, "Vierzig Jahre war ich Volksschullehrerin in Graz."),
        _hit(2, "Heute scheint in Graz endlich die Sonne."),
        _hit(3, "Der Kleine hat eine Erdnussallergie, also bitte keine Nüsse."),
    ]
    for hit in hits:
        hit.language = "de"
    statements = [(rank, hit, hit.id, hit.text) for rank, hit in enumerate(hits)]
    with languages.override("de"):
        work = ranked(Question.read("Was hat Omar beruflich gemacht?"), statements, {}, set())
        allergies = ranked(Question.read("Hat jemand Allergien?"), statements, {}, set())
    assert work[0].pk == 1 and work[0].answers and not {c.pk: c for c in work}[2].answers
    assert allergies[0].pk == 3 and allergies[0].answers
    with languages.override("en"):
        english = ranked(Question.read("What did Omar do for a living?", also=["de"]), statements, {}, set())
    assert english[0].pk == 1 and english[0].answers


@pytest.mark.parametrize(
    ("code", "question", "fact"),
    [
        ("en", "Anything about his health I should keep in mind?", "The doctor put me on pills for my blood pressure."),
        ("es", "¿Qué tal anda de salud?", "El médico me ha mandado unas pastillas para la tensión."),
        ("pt", "Como ele está de saúde?", "O médico me receitou comprimidos para a pressão."),
        ("de", "Wie steht es um seine Gesundheit?", "Die Ärztin hat mir Tabletten für den Blutdruck verschrieben."),
        ("fr", "Comment va sa santé ?", "Le médecin m'a prescrit des comprimés pour la tension."),
    ],
)  # fmt: skip
def test_a_question_about_health_finds_the_doctor_and_the_pills_in_each_language(code, question, fact):
    """The subjects' words cover the same ground in every language: a health question wants the doctor and the pills
    in Portuguese, German and French as it does in English and Spanish, and the small talk beside them does not
    answer."""
    hits = [_hit(1, fact), _hit(2, "The weather turned cold again.")]
    for hit in hits:
        hit.language = code
    with languages.override(code):
        by_pk = {c.pk: c for c in _ranked(question, hits)}
    assert by_pk[1].answers and by_pk[1].measures["matched"] >= 1, by_pk[1].measures
    assert not by_pk[2].answers


def test_a_capital_names_no_one_in_german_where_every_noun_has_one():
    """ "Der Hund schläft im Garten" names no one: in German every noun has a capital, so a statement full of nouns
    is not weighed as naming someone or something, whatever language the question is in; in English a capital still
    tells a name."""
    german = _hit(1, "Der Hund schläft den ganzen Tag im Garten unter dem Baum.")
    german.language = "de"
    english = _hit(2, "We took Bruno to Lake Constance.")
    for code, question in (("de", "Was macht der Hund?"), ("en", "What does the dog do?")):
        with languages.override(code):
            by_pk = {c.pk: c for c in _ranked(question, [german, english])}
        assert by_pk[1].measures["named"] == 0 and by_pk[2].measures["named"] >= 2, code


def test_only_a_statement_sharing_something_with_the_question_or_close_to_it_answers():
    """Small talk sharing no word with the question and far from it in meaning does not answer; a statement close
    enough in meaning does, though it shares no word ("How does she make a living?": "I'm a self-employed
    plumber"). Whom they are all about is no word in common."""
    hits = [
        _hit(1, "Omar: The toast burnt again this morning."),
        _hit(2, "Omar: I'm a self-employed plumber."),
        _hit(3, "Omar: Rain all day, so the washing stayed in."),
        _hit(4, "Omar: Tidied the shed at last."),
    ]
    close = {1: 0.18, 2: 0.31, 3: 0.2, 4: 0.17}
    by_pk = {c.pk: c for c in _ranked("What does Omar do for money?", hits, close)}
    assert not by_pk[1].answers and by_pk[2].answers


def test_a_statement_that_only_asks_or_answers_the_bots_question_ranks_below_one_that_states():
    """Of three statements alike in words and meaning, the one that states ranks above the one that only asks
    ("Is the Leeds office nice?") and the one kept with the bot's question it answers."""
    hits = [
        _hit(1, "Omar: Is the Leeds office nice?"),
        _hit(2, "Omar: Leeds, the new office (answering: Where are you based?)"),
        _hit(3, "Omar: My office is in Leeds."),
    ]
    order = [c.pk for c in _ranked("Where is Omar's office?", hits, {1: 0.4, 2: 0.4, 3: 0.4})]
    assert order[0] == 3 and order[-1] == 1


def test_a_statement_the_ranking_puts_clearly_first_answers_though_it_shares_no_word():
    """ "What car does he have now?": "picked up a grey Hyundai Ioniq yesterday" shares no word with it, but is
    much closer in meaning and said later than the one sharing "car" ("the car payment is killing my budget"); the
    ranking puts it first by at least ``ANSWER_RANK_MARGIN``, so it answers. The same statement ranking only near
    the one that shares a word does not: small talk does not answer by ranking near an answer."""
    from memories.recall.answer_ranking import ANSWER_RANK_MARGIN

    hits = [
        _hit(1, "Omar: Picked up a grey Hyundai Ioniq yesterday, so happy.", day=20),
        _hit(2, "Omar: The car payment is killing my budget this month.", day=2),
    ]
    ioniq, payment = _ranked("What car does he have now?", hits, {1: 0.5, 2: 0.3})
    assert ioniq.pk == 1 and payment.answers and ioniq.measures["matched"] == 0
    assert ioniq.score >= payment.score + ANSWER_RANK_MARGIN and ioniq.answers
    near = {c.pk: c for c in _ranked("What car does he have?", hits, {1: 0.2, 2: 0.4})}
    assert near[1].score < near[2].score + ANSWER_RANK_MARGIN and not near[1].answers


@pytest.mark.parametrize(
    ("code", "now", "before"),
    [("en", "What is the name of Omar's current cat?", "What job did Omar have before his current one?"),
     ("es", "¿Cómo se llama el gato actual de Omar?", "¿Qué trabajo tenía Omar antes del actual?"),
     ("de", "Wie heißt Omars aktuelle Katze?", "Was war Omars Job, bevor er den jetzigen bekam?"),
     ("fr", "Comment s'appelle le chat actuel d'Omar ?", "Quel travail Omar avait-il avant son emploi actuel ?"),
     ("pt", "Como se chama o gato atual do Omar?", "Que emprego o Omar tinha antes do atual?")],
)  # fmt: skip
def test_the_current_one_asks_how_things_stand_now_unless_asked_what_came_before_it(code, now, before):
    """ "Her current cat" asks how things stand now (the later said ranks first), as "now" does; "before her current
    job" asks how things were before, and not also now (the two pulled the ranking both ways)."""
    with languages.override(code):
        assert Question.read(now).now and not Question.read(now).before
        assert Question.read(before).before and not Question.read(before).now


@pytest.mark.parametrize(
    ("code", "question"),
    [("en", "Who was Omar's former boss, not his current one?"),
     ("es", "¿Quién era el jefe anterior de Omar, no el actual?"),
     ("de", "Wer war Omars ehemaliger Chef, nicht der jetzige?"),
     ("pt", "Qual era o emprego anterior do Omar, não o atual?")],
)  # fmt: skip
def test_the_former_one_beside_the_current_one_asks_how_things_were_before(code, question):
    """ "His former boss, not his current one": the adjective of now does not undo "former", which asks about
    before (it did while "current" was read as "now" is)."""
    with languages.override(code):
        assert Question.read(question).before and not Question.read(question).now


def test_a_current_account_asks_nothing_of_now():
    """ "Current account", "current affairs": a thing's name, not the one that holds now."""
    assert not Question.read("Which bank holds Omar's current account?").now


@pytest.mark.parametrize(
    ("code", "question", "small_talk", "fact"),
    [
        ("en", "What did Omar buy?", "It rained all afternoon.", "I bought a second-hand kayak last week."),
        ("es", "¿Qué bebe Omar?", "Hoy hace un frío terrible.", "Bebo mate amargo con mis primos."),
        ("pt", "O que o Omar bebe?", "Hoje está um frio terrível.", "Bebo chimarrão com a minha filha."),
        ("de", "Was liest Omar?", "Hier regnet es schon wieder.", "Ich lese einen dicken Krimi von Nesbø."),
        ("fr", "Qu'est-ce que Omar peint ?", "Il pleut encore ici, quelle plaie.",
         "Je peins des aquarelles de falaises."),
    ],
)  # fmt: skip
def test_a_statement_sharing_a_word_in_another_form_answers(code, question, small_talk, fact):
    """ "What did he buy?" and "I bought a kayak", "liest" and "lese", "bebe" and "bebo": the same word, its first
    letters not the same. Each form read as its lemma (kbsite/languages/lemmas.py), the statement shares it with the
    question and answers; the small talk does not. Cut to five letters alone, neither answered."""
    by_pk, _ = _small_talk_and_fact(code, question, small_talk, fact)
    assert by_pk[2].answers and by_pk[2].measures["matched"] == 1
    assert not by_pk[1].answers
