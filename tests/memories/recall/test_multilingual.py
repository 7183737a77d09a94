"""Memories' second, multilingual vector (memories/multilingual.py): a memory in a language other than English gets
one as it is drawn, and offline ask judges closeness to a question in that language by it; English memories get
none until their KB is asked in another language; those without one get theirs in the background. Sentences of our
own."""

from __future__ import annotations

from django.core.management import call_command

from kbsite import languages
from kbsite.models import EndUser, JobRun, KnowledgeBase
from memories import reembedding
from memories.models import Memory
from memories.recall.relatives import relatives_named
from tests.conftest import run_queued_tasks
from tests.memories.recall.test_truth import ask, context, say

CHAT = [
    "Hoy se me han quemado las tostadas otra vez.",
    "Llueve todo el día, así que me quedo en casa con una peli.",
    "Por fin he ordenado el trastero, qué alivio.",
    "Mi vecino toca la batería los domingos por la mañana.",
    "Trabajo por mi cuenta arreglando tuberías y calderas desde hace diez años.",
    "El sábado fuimos al mercado y compramos fresas.",
    "Mi pareja, Irene, es profesora de música en un instituto.",
    "No puedo comer marisco, me pongo fatal.",
    "Tenemos un perro viejito que se llama Bruno.",
    "Me encanta nadar en el mar por las mañanas.",
]


def test_a_spanish_memory_gets_a_multilingual_vector_and_an_english_one_none(api, notes):
    say(api, "s1", "Me he mudado a Valencia con mis dos gatos.", "My sister Ines lives in Lisbon now.")
    spanish = Memory.objects.get(text__contains="Valencia")
    english = Memory.objects.get(text__contains="Lisbon")
    assert spanish.language == "es" and spanish.multilingual_embedding is not None
    assert english.language == "en" and english.multilingual_embedding is None


def test_asked_in_spanish_ask_finds_the_statement_that_answers_in_other_words(api, notes):
    """ "¿Practica algún deporte acuático?" shares no word with "Me encanta nadar en el mar", nor "¿Qué no debo
    cocinarle?" with "No puedo comer marisco": judged by the multilingual vector, each is the answer (by
    all-MiniLM-L6-v2 alone, neither was close enough to answer)."""
    say(api, "s1", *CHAT)
    assert "nadar" in ask(api, "¿Practica algún deporte acuático?")["answer"]
    assert "marisco" in ask(api, "¿Qué no debo cocinarle?")["answer"]


def test_asked_in_spanish_of_nothing_held_ask_says_so_in_spanish(api, notes):
    say(api, "s1", *CHAT)
    assert ask(api, "¿Cuál es su color favorito?")["answer"] == "No recuerdo nada de eso."


def test_memories_without_their_multilingual_vector_get_it_in_the_background(api, notes):
    say(api, "s1", *CHAT[:3])
    Memory.objects.update(multilingual_embedding=None)
    assert reembedding.reembed_due()
    assert reembedding.reembed_run()
    assert not Memory.objects.filter(multilingual_embedding__isnull=True).exists()
    assert not reembedding.reembed_due()


def test_a_background_run_of_second_vectors_gives_way_to_queued_jobs(api, notes, monkeypatch):
    """While a job waits in the queue (turns to extract, a document to index), a background run gives one batch of
    rows their second vector, not a worker's minute (a KB asked in Spanish queues all its English memories'): ingest
    goes first. The foreground run gives them all. Before, the background run held a worker for RUN_SECONDS."""
    from memories import multilingual

    say(api, "s1", *CHAT[:3])
    Memory.objects.update(multilingual_embedding=None)
    monkeypatch.setattr(multilingual, "BATCH_ROWS", 1)
    without = Memory.objects.filter(multilingual_embedding__isnull=True).count()
    assert without >= 2
    JobRun.objects.create(kb=notes, kind=JobRun.Kind.INGEST_MESSAGES)
    assert reembedding.reembed_run(seconds=50)
    assert Memory.objects.filter(multilingual_embedding__isnull=True).count() == without - 1
    assert reembedding.reembed_run()
    assert not Memory.objects.filter(multilingual_embedding__isnull=True).exists()


def test_a_run_that_ends_a_re_embedding_goes_on_to_the_second_vectors(api, notes):
    """Rows another model embedded and rows without their second vector: one run re-embeds the first and then gives
    the second theirs, nothing left for the next (it used to stop once the re-embedding was done)."""
    from tests.memories.test_reembedding import _as_if_another_model_made_them

    say(api, "s1", *CHAT[:3])
    _as_if_another_model_made_them()
    Memory.objects.update(multilingual_embedding=None)
    assert reembedding.reembed_run()
    assert not Memory.objects.filter(multilingual_embedding__isnull=True).exists()
    assert not reembedding.reembed_due()


def test_the_reembed_command_gives_the_rows_without_it_their_multilingual_vector(api, notes, capsys):
    """Every vector the configured model's, manage.py reembed still has work while second vectors are missing: it
    says how many and gives them theirs (it used to say there was nothing to do)."""
    say(api, "s1", *CHAT[:3])
    Memory.objects.update(multilingual_embedding=None)
    spanish = Memory.objects.filter(language="es").count()
    assert spanish >= 2
    call_command("reembed")
    out = capsys.readouterr().out
    assert f"Giving {spanish} rows their second, multilingual vector" in out and "Done" in out
    assert not Memory.objects.filter(multilingual_embedding__isnull=True).exists()
    call_command("reembed")
    assert "nothing to do" in capsys.readouterr().out


def test_an_english_question_finds_spanish_facts_in_the_block_and_ask_names_them(api, notes):
    """Asked in English about what was said in Spanish, recall adds the memories nearest the question by their
    multilingual vectors: the block holds the swimming and the shellfish, and ask names them (all-MiniLM-L6-v2 does
    not read the Spanish, and no word is shared)."""
    say(api, "s1", *CHAT)
    block = context(api, "Does she do any water sports?")
    assert "nadar" in block
    assert "nadar" in ask(api, "Does she do any water sports?")["answer"]
    assert "marisco" in ask(api, "What food should I avoid cooking for her?")["answer"]


FRENCH_CHAT = [
    "Encore brûlé les tartines ce matin, l'alarme incendie a sonné.",
    "Il pleut depuis ce matin, je reste à la maison avec un film.",
    "J'ai enfin rangé le cagibi, quel soulagement.",
    "Mon voisin joue de la batterie le dimanche matin.",
    "On est allés au marché samedi et on a acheté des fraises.",
    "Réunion de parents ce soir, puis les copies, avec Biscotte le chat couché sur mon clavier.",
    "Je n'arrive pas à choisir entre la tasse bleue et la verte.",
    "L'imprimante s'est bloquée deux fois avant midi.",
    "J'ai regardé trois épisodes de cette émission de pâtisserie.",
    "Ma sœur m'a appelée pour parler de ses vacances.",
]


def test_an_english_question_naming_a_subject_by_one_of_its_words_is_answered_from_french_facts(api, notes):
    """ "What is her cat called?" names the pets by one of their words, not by "pets": the French facts are searched
    for the pets' words in French, and ask quotes the cat ("chat" shares no word with "cat"; before, ask said it did
    not remember)."""
    say(api, "s1", *FRENCH_CHAT)
    assert "Biscotte" in ask(api, "What is her cat called?")["answer"]


def test_a_large_kbs_memories_are_found_by_their_multilingual_vectors_through_the_index(api, notes):
    """Shared memories of a KB that has outgrown exact search are searched through the HNSW index of their
    multilingual vectors: an English question finds the Spanish fact by them."""
    from tests.memories.ingest.test_restated_supersession import say as say_shared

    say_shared(api, *CHAT, speaker="Marta")
    KnowledgeBase.objects.filter(pk=notes.pk).update(vector_index=True)
    Memory.objects.update(in_vector_index=True)
    hits = api.post("/api/v1/kbs/notes/recall/", json={"query": "Does Marta do any water sports?", "k": 5}).json()
    swimming = next(h for h in hits["results"] if "nadar" in h["text"])
    assert "multilingual" in swimming["signals"]


ENGLISH_CHAT = [
    "Burnt the toast again this morning, the smoke alarm went off.",
    "It has rained all day so I'm staying in with a film.",
    "Finally tidied the box room, what a relief.",
    "My neighbour plays the drums on Sunday mornings.",
    "I love swimming in the sea first thing in the morning.",
    "We went to the market on Saturday and bought strawberries.",
    "I can't eat shellfish, it makes me really ill.",
    "Our old dog Bruno sleeps most of the day now.",
]


def test_a_spanish_question_finds_english_facts_once_the_kb_has_been_asked_in_spanish(api, notes):
    """The reverse of an English question about Spanish facts. An English KB's memories have no second vector; the
    third question in Spanish notes the language on the KB and queues their second vectors, and then, asked in
    Spanish in words the facts do not share, the block holds the swimming and ask names the shellfish. Before, ask
    judged the English facts' closeness to a Spanish question by all-MiniLM-L6-v2 alone, and answered "No recuerdo
    nada de eso."."""
    say(api, "s1", *ENGLISH_CHAT)
    assert not Memory.objects.filter(multilingual_embedding__isnull=False).exists()
    for question in ["¿Practica algún deporte acuático?", "¿Tiene mascotas en casa?"]:
        context(api, question)
    notes.refresh_from_db()
    assert notes.asked_languages == []  # two questions: not yet (one may be an English line told otherwise)
    context(api, "¿Practica algún deporte acuático?")
    notes.refresh_from_db()
    assert notes.asked_languages == ["es"]
    run_queued_tasks()  # the background re-embedding the question queued
    assert not Memory.objects.filter(multilingual_embedding__isnull=True).exists()
    block = context(api, "¿Practica algún deporte acuático?")
    assert "swimming" in block
    assert "shellfish" in ask(api, "¿Qué no debo cocinarle?")["answer"]


def test_an_english_question_to_an_english_kb_notes_no_language_and_gives_no_second_vector(api, notes):
    """Asked in English, an English KB stays as it was: no language counted or noted, no memory given a second
    vector (three questions: as many as note a language other than English)."""
    say(api, "s1", *ENGLISH_CHAT)
    for question in ["Does she do any water sports?", "What should I not cook for her?", "Does she have a dog?"]:
        context(api, question)
    notes.refresh_from_db()
    assert notes.asked_languages == [] and notes.asked_counts == {}
    run_queued_tasks()
    assert not Memory.objects.filter(multilingual_embedding__isnull=False).exists()


def test_a_relative_asked_of_in_spanish_is_found_by_name_in_english_facts(api, notes):
    """ "¿Cómo se llama el marido de Inés?" names a relation Spanish calls "marido": among English facts, the user's
    "my husband Rodrigo" gives his name (each language's relations are the same: partner, sister…); asked without
    the English facts' language, none."""
    say(api, "s1", "My husband Rodrigo works nights at the hospital.", "We adopted a cat called Miso last spring.")
    user = EndUser.objects.get(external_id="alice")
    with languages.override("es"):  # as ask reads a question: in its own language
        assert relatives_named("¿Cómo se llama el marido de Inés?", user.pk, also=["en"]) == ["rodrigo"]
        assert relatives_named("¿Cómo se llama el marido de Inés?", user.pk) == []


def test_a_language_another_process_noted_first_is_not_new(api, notes):
    """Spanish is noted at the third question told in it (two web processes counting on one KB), once: a copy of the
    KB older than the note (another process's, or a replica's) notes nothing, so the background re-embedding is
    queued once; English is never counted."""
    other = KnowledgeBase.objects.get(pk=notes.pk)
    assert [notes.asked_note("es"), other.asked_note("es")] == [False, False]
    assert notes.asked_note("es") is True
    assert other.asked_note("es") is False
    other.refresh_from_db()
    assert other.asked_languages == ["es"] and other.asked_counts == {"es": 3}
    assert notes.asked_note("en") is False and notes.asked_note("") is False


def test_a_word_for_a_friend_or_a_partner_is_not_carried_to_another_language(api, notes):
    """German "Freund" is a friend as often as a boyfriend: asked in English for her boyfriend, "Mein Freund Tom"
    gives no name, while "mein Mann Jonas" gives her husband's."""
    say(api, "s1", "Mein Freund Tom kommt am Samstag zum Grillen.", "Mein Mann Jonas arbeitet bei der Bahn in Köln.")
    user = EndUser.objects.get(external_id="alice")
    assert relatives_named("What's her boyfriend called?", user.pk, also=["de"]) == ["jonas"]
