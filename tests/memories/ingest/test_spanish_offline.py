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
