"""Edits are versions, a retired memory can be restored, and a bot can correct or forget its memory (issue 19,
findings 5 and 9)."""

from __future__ import annotations

from memories.models import Memory
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks
from tests.factories import InsightFactory, MemoryFactory, MessageFactory, SessionFactory
from tests.memories.ingest.test_ingest_llm import post_turns

MEMORIES = "/api/v1/kbs/notes/memories"


def _tool(api, name: str, user_id: str | None = None, **arguments):
    body = {"arguments": arguments, **({"user_id": user_id} if user_id else {})}
    return api.post(f"/api/v1/tools/{name}/", json=body)


def test_an_edit_keeps_the_old_wording_in_the_history(api, kb):
    session = SessionFactory(kb=kb, external_id="s1")
    memory = MemoryFactory(kb=kb, text="Alice likes jazz.", kind="preference", entities=["alice"])
    memory.source_messages.add(MessageFactory(session=session, content="I like jazz."))
    insight = InsightFactory(kb=kb, text="Alice's jazz and her piano.", memories=[memory, MemoryFactory(kb=kb)])

    response = api.patch(f"{MEMORIES}/{memory.pk}/", json={"text": "Alice likes blues."})
    assert response.status_code == 200, response.text
    version = response.json()
    assert version["id"] != memory.pk and version["text"] == "Alice likes blues." and version["live"]
    assert version["kind"] == "preference" and version["entities"] == ["alice"]
    assert version["sources"] == [
        {"type": "message", "session_id": "s1", "external_id": memory.source_messages.get().external_id}
    ]
    memory.refresh_from_db()
    assert memory.text == "Alice likes jazz." and memory.retired_reason == "edited"
    assert memory.superseded_by_id == version["id"]
    insight.refresh_from_db()
    assert insight.retired_at is not None  # it quoted the old wording

    history = api.get(f"{MEMORIES}/{version['id']}/history/").json()
    assert [(m["id"], m["text"], m["live"]) for m in history] == [
        (memory.pk, "Alice likes jazz.", False),
        (version["id"], "Alice likes blues.", True),
    ]
    assert api.get(f"{MEMORIES}/{memory.pk}/history/").json() == history
    # A retired wording cannot be edited: restore it first.
    assert api.patch(f"{MEMORIES}/{memory.pk}/", json={"text": "Alice likes rock."}).status_code == 409
    # Other fields change in place.
    same = api.patch(f"{MEMORIES}/{version['id']}/", json={"importance": 0.9}).json()
    assert same["id"] == version["id"] and same["importance"] == 0.9


def test_restore_undoes_a_retirement_and_a_supersession(api, kb, fake_llm):
    fake_llm.reply_json(
        {
            "add": [{"text": "Alice lives in Paris.", "entities": ["alice", "paris"], "source_turns": ["@1"]}],
            "supersede": [],
            "edges": [{"src": "alice", "relation": "lives_in", "dst": "paris"}],
        }
    )
    post_turns(api, [("m1", "I live in Paris.")])
    run_queued_tasks()
    paris = Memory.objects.get()
    fake_llm.reply_json(
        {"add": [], "supersede": [{"id": paris.pk, "by_text": "Alice lives in Berlin.", "kind": "fact"}], "edges": []}
    )
    post_turns(api, [("m2", "I moved to Berlin.")])  # wrongly: it was her sister
    run_queued_tasks()
    berlin = Memory.objects.live().get()

    assert api.post(f"{MEMORIES}/{berlin.pk}/restore/").status_code == 409  # live
    restored = api.post(f"{MEMORIES}/{paris.pk}/restore/")
    assert restored.status_code == 200, restored.text
    assert restored.json()["live"] and restored.json()["retired_reason"] == ""
    berlin.refresh_from_db()
    assert berlin.retired_at is not None and berlin.retired_reason == f"replaced by memory {paris.pk}, restored"
    assert list(Memory.objects.live().values_list("text", flat=True)) == ["Alice lives in Paris."]
    assert paris.edges.get().retired_at is None  # its edge is back
    memories_embed_missing()
    hits = api.post("/api/v1/kbs/notes/recall/", json={"query": "Where does Alice live?"}).json()["results"]
    assert hits[0]["text"] == "Alice lives in Paris."


def test_restore_in_the_admin(admin_client, kb):
    memory = MemoryFactory(kb=kb, text="Alice plays chess.")
    memory.retire(reason="wrong")
    response = admin_client.post(
        "/admin/memories/memory/?status=retired",
        {"action": "restore_memories", "_selected_action": [memory.pk]},
        follow=True,
    )
    assert "1 memories restored." in response.content.decode()
    memory.refresh_from_db()
    assert memory.is_live


def test_an_edit_in_the_admin_is_a_new_version_and_the_page_shows_the_history(admin_client, kb):
    memory = MemoryFactory(kb=kb, text="Alice plays chess.", kind="fact", importance=0.5)
    page = admin_client.get(f"/admin/memories/memory/{memory.pk}/change/")
    form = page.context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items()}
    data.update(text="Alice plays chess on Tuesdays.", entities="alice", topics="")
    response = admin_client.post(f"/admin/memories/memory/{memory.pk}/change/", data, follow=True)
    assert response.status_code == 200
    version = Memory.objects.live().get()
    assert version.pk != memory.pk and version.text == "Alice plays chess on Tuesdays."
    assert response.redirect_chain[-1][0].endswith(f"/admin/memories/memory/{version.pk}/change/")
    html = response.content.decode()
    assert "Saved as a new version" in html
    assert "Alice plays chess." in html and "(edited)" in html  # the old wording, in the history


def test_a_bot_corrects_and_forgets_its_users_memory_and_no_one_elses(api, kb, other_api, other_kb):
    alice = _tool(api, "memory_add", user_id="alice", text="Alice is vegetarian.").json()["result"]
    bob = _tool(api, "memory_add", user_id="bob", text="Bob is vegan.").json()["result"]
    shared = _tool(api, "memory_add", text="The canteen opens at noon.").json()["result"]

    updated = _tool(api, "memory_update", user_id="alice", id=alice["id"], text="Alice is pescatarian.")
    assert updated.status_code == 200, updated.text
    result = updated.json()["result"]
    assert result["replaces"] == alice["id"] and result["text"] == "Alice is pescatarian."
    assert Memory.objects.get(pk=alice["id"]).retired_reason == "edited"

    # Another user's memory, a shared one (for a user), a retired one, another bot's: not found.
    for user_id, memory_id in (("alice", bob["id"]), ("alice", shared["id"]), ("alice", alice["id"])):
        response = _tool(api, "memory_forget", user_id=user_id, id=memory_id, reason="wrong")
        assert response.status_code == 404, (user_id, memory_id)
    # Another bot (with a KB of its own, so that the tool runs) does not find this bot's memory.
    refused = _tool(other_api, "memory_forget", id=shared["id"], reason="x")
    assert refused.status_code == 404 and "no live memory" in refused.json()["detail"], refused.text
    assert Memory.objects.get(pk=shared["id"]).is_live

    forgotten = _tool(api, "memory_forget", user_id="alice", id=result["id"], reason="she eats meat again")
    assert forgotten.status_code == 200, forgotten.text
    memory = Memory.objects.get(pk=result["id"])
    assert not memory.is_live and memory.retired_reason == "she eats meat again"
    found = _tool(api, "memory_search", user_id="alice", query="what does Alice eat?").json()["result"]["results"]
    assert all("Alice" not in hit["text"] for hit in found)
    # Without a user, a shared memory can be forgotten.
    assert _tool(api, "memory_forget", id=shared["id"], reason="moved").status_code == 200
    assert Memory.objects.get(pk=bob["id"]).is_live


def test_tool_arguments_are_checked(api, kb):
    memory = _tool(api, "memory_add", text="The canteen opens at noon.").json()["result"]
    nothing = _tool(api, "memory_update", id=memory["id"])
    assert nothing.status_code == 400 and "nothing to change" in nothing.text
    assert _tool(api, "memory_forget", id="x", reason="r").status_code == 400
    assert _tool(api, "memory_forget", id=5).status_code == 400  # no reason
    names = [t["function"]["name"] for t in api.get("/api/v1/tools/").json()["tools"]]
    assert {"memory_update", "memory_forget"} <= set(names)
