"""A Portuguese user's memory offline, end to end, posted as the README posts (``user_id`` only): a move and a diet
given up each open a review item, the block shows the old values as what held until then, and ask answers with the
new home. Sentences of our own."""

from __future__ import annotations

import pytest

from memories.models import ReviewItem
from tests.conftest import run_queued_tasks


def _chat(api, session: str, when: str, *texts: str) -> None:
    turns = [
        {"external_id": f"{session}-{i}", "role": "user", "content": text, "created_at": when}
        for i, text in enumerate(texts)
    ]
    body = {"session_id": session, "user_id": "bia", "messages": turns}
    response = api.post("/api/v1/kbs/notes/messages/", json=body)
    assert response.status_code == 202, response.text
    run_queued_tasks()


def test_a_portuguese_move_and_a_diet_given_up_are_read_as_changes(api, kb):
    """Before Portuguese statements were read, "Nos mudamos para Aveiro!" changed nothing: Coimbra stayed current in
    the block and ask answered with it."""
    _chat(api, "s1", "2024-03-01T10:00:00Z", "Oi, me chamo Bia e moro em Coimbra.", "Sou vegetariana há anos.")
    _chat(api, "s2", "2024-03-02T10:00:00Z", "Choveu a tarde toda, fiquei vendo séries.")
    _chat(api, "s3", "2024-09-01T10:00:00Z", "Finalmente nos mudamos para Aveiro!", "Não sou mais vegetariana.")
    assert set(ReviewItem.objects.values_list("attribute", flat=True)) == {"residence", "diet"}
    block = api.get("/api/v1/context/", params={"query": "Onde ela mora agora?", "user_id": "bia"}).json()["context"]
    assert all("(earlier, until 2024-09-01)" in line for line in block.splitlines() if "Coimbra" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Onde a Bia mora agora?", "user_id": "bia"}).json()
    assert "Aveiro" in answer["answer"].splitlines()[0]


def test_portuguese_memories_stored_before_get_their_reading_from_the_migration(api, kb):
    """Migration 0022 reads every Portuguese memory again: those stored before Portuguese had a reader of statements
    get the attributes they state."""
    import importlib

    from django.db import connection

    from memories.models import Memory

    _chat(api, "s1", "2024-03-01T10:00:00Z", "Moro em Coimbra desde 2019.")
    home = Memory.objects.get(text__contains="Coimbra")
    released = {"speaker": "", "slots": {}, "whole": False, "hints": [], "changes": [], "places": ["Coimbra"]}
    Memory.objects.filter(pk=home.pk).update(reading=released)  # as the release before read it
    migration = importlib.import_module("memories.migrations.0022_own_words_reread")
    with connection.schema_editor() as editor:
        migration.reread(None, editor)
    home.refresh_from_db()
    assert home.reading["slots"] == {"residence": "coimbra"}


def test_a_new_home_of_ones_own_named_in_passing_is_a_move(api, kb):
    """ "Da janela do nosso apartamento novo em Aveiro dá pra ver a ria": where she lives now, said in passing, as
    English ("my new flat in Hove") and Spanish ("mi piso nuevo en Gijón") are read; Coimbra becomes what held until
    then, and ask answers with Aveiro."""
    _chat(api, "s1", "2024-03-01T10:00:00Z", "Moro em Coimbra.")
    _chat(api, "s2", "2024-09-01T10:00:00Z", "Da janela do nosso apartamento novo em Aveiro dá pra ver a ria.")
    assert "residence" in set(ReviewItem.objects.values_list("attribute", flat=True))
    block = api.get("/api/v1/context/", params={"query": "Onde ela mora agora?", "user_id": "bia"}).json()["context"]
    assert all("(earlier, until 2024-09-01)" in line for line in block.splitlines() if "Coimbra" in line)
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Onde a Bia mora agora?", "user_id": "bia"}).json()
    assert "Aveiro" in answer["answer"].splitlines()[0]


@pytest.mark.parametrize(
    "text",
    ["A nossa casa nova em construção atrasou outra vez.", "Meu apartamento novo no centro é barulhento."],
)
def test_a_new_home_named_by_no_place_is_no_move(text):
    """ "Em construção", "no centro": no name of a place (a place is named with a capital), no home read."""
    from memories.ingest.statements import statement_read

    assert "residence" not in statement_read(f"Bia: {text}", "pt", None).slots
