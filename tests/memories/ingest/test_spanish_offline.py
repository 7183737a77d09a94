"""A Spanish user's memory offline, end to end: a move retires the old home, the block and ask give the new one, and
a Spanish allergy is filed under the profile. Sentences of our own."""

from __future__ import annotations

from memories.ingest.supersession import SUPERSEDED
from memories.models import Memory, ReviewItem
from tests.conftest import run_queued_tasks
from tests.memories.ingest.test_restated_supersession import say


def test_a_spanish_move_retires_the_old_home_and_the_block_and_ask_give_the_new_one(api, kb):
    """ "Vivo en Zaragoza." then, months later, "¡Por fin nos hemos mudado a Gijón!": Zaragoza is retired as restated
    (residence), the change is in the review queue, the block shows Gijón and not Zaragoza, and ask answers with
    Gijón. Before Spanish was read, nothing was superseded and ask answered Zaragoza."""
    say(api, "Vivo en Zaragoza.", speaker="Inés", when="2024-01-10T09:00:00Z", user="ines")
    say(api, "¡Por fin nos hemos mudado a Gijón!", speaker="Inés", session="s2", when="2024-06-01T09:00:00Z",
        user="ines")  # fmt: skip
    old = Memory.objects.get(text__contains="Zaragoza")
    new = Memory.objects.get(text__contains="Gijón")
    assert old.retired_at is not None and old.superseded_by == new
    assert old.retired_reason == f"{SUPERSEDED} (restated: residence)"
    assert ReviewItem.objects.filter(older=old, newer=new).exists()
    block = api.get("/api/v1/context/", params={"query": "¿Dónde vive Inés ahora?", "user_id": "ines"}).json()
    assert "Gijón" in block["context"] and "Zaragoza" not in block["context"]
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "¿Dónde vive ahora?", "user_id": "ines"}).json()
    assert "Gijón" in answer["answer"] and "Zaragoza" not in answer["answer"]


def test_a_spanish_home_said_with_more_is_an_open_conflict_shown_as_earlier(api, kb):
    """ "Vivo en Zaragoza con dos compañeras de piso" says more than where: the move to Gijón opens a conflict on
    residence instead of retiring it, and the block shows Zaragoza as what held until the move."""
    say(api, "Vivo en Zaragoza con dos compañeras de piso.", speaker="Inés", when="2024-01-10T09:00:00Z", user="ines")
    say(api, "¡Por fin nos hemos mudado a Gijón!", speaker="Inés", session="s2", when="2024-06-01T09:00:00Z",
        user="ines")  # fmt: skip
    assert ReviewItem.objects.get().attribute == "residence"
    block = api.get("/api/v1/context/", params={"query": "¿Dónde vive Inés ahora?", "user_id": "ines"}).json()
    (line,) = [line for line in block["context"].splitlines() if "Zaragoza" in line]
    assert "(earlier, until 2024-06-01)" in line


def test_a_spanish_allergy_is_filed_under_the_profile_and_shown_for_a_vague_question(api, kb):
    """ "Soy alérgica a los frutos secos" is a profile fact, shown under "About this user" for "¿alguna idea para
    cenar?", while what she did on Sunday is not."""
    turns = [
        {"external_id": "t1", "speaker": "Inés", "content": "Soy alérgica a los frutos secos, qué rollo."},
        {"external_id": "t2", "speaker": "Inés", "content": "El domingo fuimos al mercado del puerto por la mañana."},
        {"external_id": "t3", "speaker": "Inés", "content": "Hoy estoy agotada, no he pegado ojo."},
        {"external_id": "t4", "speaker": "Inés", "content": "Soy profesora de química en un instituto."},
    ]
    response = api.post("/api/v1/kbs/notes/messages/", json={"session_id": "s1", "user_id": "ines", "messages": turns})
    assert response.status_code == 202
    run_queued_tasks()
    kinds = dict(Memory.objects.values_list("text", "kind"))
    assert kinds["Inés: Soy alérgica a los frutos secos, qué rollo."] == "user_profile"
    assert kinds["Inés: Soy profesora de química en un instituto."] == "user_profile"  # what she is
    assert kinds["Inés: Hoy estoy agotada, no he pegado ojo."] == "fact"  # how she is today
    block = api.get("/api/v1/context/", params={"query": "¿alguna idea para cenar?", "user_id": "ines"}).json()
    about = block["context"].split("### About this user", 1)[1]
    assert "frutos secos" in about.split("###")[0]


def _chat(api, session: str, when: str, *texts: str, asked: str = "") -> None:
    """Nerea's turns as a bot that sends only her ``user_id`` posts them (no speaker's name: the README's way), the
    first after the bot's question ``asked``, if any."""
    turns = (
        [{"external_id": f"{session}-q", "role": "assistant", "content": asked, "created_at": when}] if asked else []
    )
    turns += [
        {"external_id": f"{session}-{i}", "role": "user", "content": text, "created_at": when}
        for i, text in enumerate(texts)
    ]
    response = api.post(
        "/api/v1/kbs/notes/messages/", json={"session_id": session, "user_id": "nerea", "messages": turns}
    )
    assert response.status_code == 202, response.text
    run_queued_tasks()


def test_a_spanish_user_whose_name_the_bot_never_sends_is_read_in_her_own_words(api, kb):
    """Posted with no speaker's name, "Trabajo de camarera en el bar La Perla" is Nerea's own work (Spanish drops
    the "I"; before, "Trabajo" was read as someone of that name, and nothing she said of her work was read), and a
    home said in the same sentence as her name ("me llamo Nerea y vivo en Cuenca") is read too: each change opens
    a conflict, the block shows the old value as what held until then, and ask answers with the new one."""
    _chat(api, "s1", "2024-02-01T10:00:00Z", "Hola, me llamo Nerea y vivo en Cuenca.")
    _chat(api, "s2", "2024-02-02T10:00:00Z", "Trabajo de camarera en el bar La Perla.", asked="¿Y a qué te dedicas?")
    work = Memory.objects.get(text__startswith="Trabajo de camarera")
    assert work.reading["speaker"] == "" and work.reading["slots"] == {
        "occupation": "camarera",
        "employer": "bar la perla",
    }
    _chat(api, "s3", "2024-07-01T10:00:00Z", "Te cuento: me he mudado a Teruel.", "Ahora trabajo en una panadería.")
    assert set(ReviewItem.objects.values_list("attribute", flat=True)) == {"residence", "employer"}
    block = api.get("/api/v1/context/", params={"query": "¿Dónde vive y trabaja ahora?", "user_id": "nerea"}).json()
    lines = block["context"].splitlines()
    assert all("(earlier, until 2024-07-01)" in line for line in lines if "Cuenca" in line or "La Perla" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "¿Dónde vive ahora?", "user_id": "nerea"}).json()
    assert "Teruel" in answer["answer"] and "Cuenca" not in answer["answer"]


def test_facts_read_before_as_someone_elses_are_read_again_as_their_speakers_own_by_the_migration(api, kb):
    """Migration 0022 reads again the offline facts of users' turns that an earlier release read as someone else's
    words ("Trabajo…" as a person called Trabajo); a fact of a named speaker's turn, read right, is left as it is."""
    import importlib

    from django.db import connection

    _chat(api, "s1", "2024-02-01T10:00:00Z", "Trabajo de camarera en el bar La Perla.")
    say(api, "Vivo en Zaragoza.", speaker="Inés", session="ines-1", when="2024-01-10T09:00:00Z", user="ines")
    work, home = Memory.objects.get(text__startswith="Trabajo"), Memory.objects.get(text__contains="Zaragoza")
    released = {"speaker": "trabajo", "slots": {}, "whole": False, "hints": [], "changes": [], "places": []}
    Memory.objects.filter(pk=work.pk).update(reading=released)  # as the release before read it
    migration = importlib.import_module("memories.migrations.0022_own_words_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    work.refresh_from_db()
    assert work.reading["speaker"] == "" and work.reading["slots"]["employer"] == "bar la perla"
    assert Memory.objects.get(pk=home.pk).reading == home.reading


def test_a_name_an_age_and_a_home_said_together_are_kept_apart_and_a_move_retires_only_the_home(api, kb):
    """ "Me llamo Aitana, tengo 31 años y vivo en Logroño" states three things: each is a memory of its own, so her
    move to Soria retires only her home: her name and age stay current in the block, and ask still answers her
    age. Before, the sentence was one memory, retired or marked earlier as a whole."""
    _chat(api, "s1", "2024-03-01T10:00:00Z", "Me llamo Aitana, tengo 31 años y vivo en Logroño.")
    assert sorted(Memory.objects.values_list("text", flat=True)) == [
        "Me llamo Aitana",
        "Tengo 31 años",
        "Vivo en Logroño.",
    ]
    _chat(api, "s2", "2024-09-01T10:00:00Z", "Me he mudado a Soria, por fin.")
    block = api.get("/api/v1/context/", params={"query": "¿Cómo se llama, cuántos años tiene y dónde vive?",
                                                "user_id": "nerea"}).json()  # fmt: skip
    lines = block["context"].splitlines()
    assert Memory.objects.get(text="Vivo en Logroño.").retired_at is not None
    assert not [line for line in lines if "Logroño" in line and "(earlier" not in line]
    assert [line for line in lines if "Aitana" in line and "(earlier" not in line]
    assert [line for line in lines if "31 años" in line and "(earlier" not in line]
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "¿Cuántos años tiene?", "user_id": "nerea"}).json()
    assert "31" in answer["answer"]
