"""End users inside a bot: every read sees the user's own rows plus the shared ones, never another user's; every
write is scoped to its user; supersession, dedup, the graph and consolidation never cross users."""

from __future__ import annotations

import pytest

from kbsite.models import EndUser, JobRun
from knowledge.models import Document
from memories.models import Entity, Insight, Memory, Session
from tests.conftest import run_queued_tasks

# Two users of one bot holding contradicting facts, and shared knowledge of the KB.
ALICE = "alice@example.com"
BOB = "tg:bob_42"
FACTS = {
    ALICE: "I live in Rome and I work as a pharmacist at the harbour clinic.",
    BOB: "I live in Berlin and I work as a pharmacist at the station clinic.",
    None: "The company office is in Milan and every pharmacist trains there.",
}


def post(api, session: str, text: str, user: str | None, external_id: str | None = None):
    body = {"session_id": session, "messages": [{"external_id": external_id or f"{session}-1", "content": text}]}
    if user:
        body["user_id"] = user
    return api.post("/api/v1/kbs/notes/messages/", json=body)


@pytest.fixture
def populated(api, kb):
    for n, (user, text) in enumerate(FACTS.items()):
        assert post(api, f"s{n}", text, user).status_code == 202
    run_queued_tasks()
    return kb


def texts(results) -> str:
    return " | ".join(r["text"] for r in results)


def test_recall_sees_own_and_shared_never_another_users(api, populated):
    for user, own, other in [(ALICE, "Rome", "Berlin"), (BOB, "Berlin", "Rome")]:
        response = api.post(
            "/api/v1/kbs/notes/recall/", json={"query": "where does the pharmacist live", "user_id": user}
        )
        assert response.status_code == 200, response.text
        found = texts(response.json()["results"])
        assert own in found and "Milan" in found and other not in found
    shared_only = texts(api.post("/api/v1/kbs/notes/recall/", json={"query": "pharmacist live"}).json()["results"])
    assert "Milan" in shared_only and "Rome" not in shared_only and "Berlin" not in shared_only
    # A user the bot never named holds nothing: the shared rows only.
    stranger = api.post("/api/v1/kbs/notes/recall/", json={"query": "pharmacist live", "user_id": "carol"}).json()
    assert "Rome" not in texts(stranger["results"]) and "Berlin" not in texts(stranger["results"])


def test_context_ask_and_memory_search_are_scoped(api, populated):
    context = api.get("/api/v1/context/", params={"query": "where do I live, pharmacist", "user_id": ALICE}).json()
    assert "Rome" in context["context"] and "Berlin" not in context["context"]
    assert "Berlin" not in api.get("/api/v1/context/", params={"query": "pharmacist live"}).json()["context"]
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "Where do I live?", "user_id": BOB}).json()
    assert "Rome" not in answer["answer"] and all("Rome" not in m["text"] for m in answer["memories"])
    search = api.post(
        "/api/v1/tools/memory_search/", json={"arguments": {"query": "pharmacist clinic"}, "user_id": ALICE}
    )
    assert search.status_code == 200, search.text
    found = texts(search.json()["result"]["results"])
    assert "harbour" in found and "station" not in found


def test_memories_belong_to_the_user_of_their_session(api, populated):
    alice = EndUser.objects.get(external_id=ALICE)
    assert Session.objects.get(external_id="s0").end_user == alice
    owners = {m.text: m.end_user_id for m in Memory.objects.all()}
    assert all(owner == alice.pk for text, owner in owners.items() if "Rome" in text)
    assert all(owner is None for text, owner in owners.items() if "Milan" in text)
    # Entities are per owner: both users name "pharmacist" in graphs of their own.
    assert Entity.objects.filter(end_user=alice).exists()
    assert not Entity.objects.filter(end_user=alice).filter(display_name__icontains="berlin").exists()


def test_a_session_belongs_to_one_user(api, kb):
    assert post(api, "chat-1", "I like green tea in the morning.", ALICE).status_code == 202
    for other in (BOB, None):
        response = post(api, "chat-1", "I like black coffee.", other, external_id="chat-1-2")
        assert response.status_code == 409, response.text
        assert "belongs to end user 'alice@example.com'" in response.json()["detail"]
    assert post(api, "shared-1", "The office opens at nine.", None).status_code == 202
    refused = post(api, "shared-1", "I like cake.", ALICE, external_id="shared-1-2")
    assert refused.status_code == 409 and "shared" in refused.json()["detail"]


@pytest.mark.parametrize("user_id", ["", "a b", "x" * 201, "a/b", "../etc", "café☕"])
def test_a_bad_user_id_is_a_clear_400(api, kb, user_id):
    body = {"session_id": "s", "user_id": user_id, "messages": [{"external_id": "1", "content": "I like tea."}]}
    response = api.post("/api/v1/kbs/notes/messages/", json=body)
    assert response.status_code == 400, response.text
    assert "user_id" in response.json()
    assert api.post("/api/v1/kbs/notes/recall/", json={"query": "tea", "user_id": user_id}).status_code == 400


def test_dedup_never_crosses_users(api, kb):
    for n, user in enumerate((ALICE, BOB, None)):
        post(api, f"tea-{n}", "I really like drinking green tea every single morning.", user)
    run_queued_tasks()
    owners = sorted(str(m.end_user_id) for m in Memory.objects.filter(text__icontains="green tea"))
    assert len(owners) == 3 and len(set(owners)) == 3


def test_supersession_and_the_prompt_stay_within_one_user(api, kb, fake_llm):
    fake_llm.reply_json(
        {"add": [{"text": "Bob lives in Berlin.", "kind": "fact", "source_turns": []}], "supersede": [], "edges": []}
    )
    post(api, "b", "I live in Berlin.", BOB)
    run_queued_tasks()
    bobs = Memory.objects.get(text="Bob lives in Berlin.")
    # Alice's extraction is shown only Alice's live facts; an id of Bob's fact from the model is refused.
    fake_llm.reply_json(
        {
            "add": [],
            "supersede": [{"id": bobs.pk, "by_text": "Alice lives in Paris.", "kind": "fact", "source_turns": []}],
            "edges": [],
        }
    )
    post(api, "a", "I moved to Paris.", ALICE)
    run_queued_tasks()
    assert "Bob lives in Berlin" not in fake_llm.user_prompt()
    bobs.refresh_from_db()
    assert bobs.retired_at is None


def test_documents_and_knowledge_tools_are_scoped(api, kb):
    diary = {"content": "# Diary\nThe garden gate code is 2468 and the tulips bloom in April.", "user_id": ALICE}
    assert api.post("/api/v1/kbs/notes/documents/", json={**diary, "slug": "alice-diary"}).status_code == 202
    shared = {"content": "# Garden rules\nThe garden closes at dusk; tulips may not be picked.", "slug": "rules"}
    assert api.post("/api/v1/kbs/notes/documents/", json=shared).status_code == 202
    run_queued_tasks()
    assert Document.objects.get(slug="alice-diary").end_user.external_id == ALICE

    def search(user):
        body = {"query": "garden tulips", "limit": 10, **({"user_id": user} if user else {})}
        return {r["slug"] for r in api.post("/api/v1/kbs/notes/documents/search/", json=body).json()["results"]}

    assert search(ALICE) == {"alice-diary", "rules"}
    assert search(BOB) == {"rules"} and search(None) == {"rules"}

    def tool(name, user, **arguments):
        return api.post(f"/api/v1/tools/{name}/", json={"arguments": arguments, **({"user_id": user} if user else {})})

    assert tool("knowledge_read", ALICE, slug="alice-diary").status_code == 200
    assert tool("knowledge_read", BOB, slug="alice-diary").status_code == 404
    assert tool("knowledge_read", None, slug="alice-diary").status_code == 404
    listed = {d["slug"] for d in tool("knowledge_list", BOB).json()["result"]["documents"]}
    assert listed == {"rules"}
    found = {r["slug"] for r in tool("search_knowledge_base", BOB, query="garden tulips").json()["result"]["results"]}
    assert found == {"rules"}
    # A write while serving a user is theirs, kept out of the shared knowledge folder.
    written = tool("knowledge_write", BOB, slug="bob-notes", content="# Notes\nBob's bike lock code is 9753.")
    assert written.status_code == 200, written.text
    run_queued_tasks()
    assert Document.objects.get(slug="bob-notes").end_user.external_id == BOB
    assert not (kb.knowledge_dir / "bob-notes.md").exists()
    assert tool("knowledge_read", ALICE, slug="bob-notes").status_code == 404
    assert tool("knowledge_write", ALICE, slug="bob-notes", content="# Mine\nno").status_code == 400
    assert tool("knowledge_write", ALICE, slug="rules", content="# Mine\nno").status_code == 400


def test_memory_add_tool_writes_for_the_user(api, kb):
    response = api.post(
        "/api/v1/tools/memory_add/", json={"arguments": {"text": "Alice is allergic to shellfish."}, "user_id": ALICE}
    )
    assert response.status_code == 200, response.text
    memory = Memory.objects.get(pk=response.json()["result"]["id"])
    assert memory.end_user.external_id == ALICE
    # The same text for Bob is Bob's own memory, not a duplicate of Alice's.
    again = api.post(
        "/api/v1/tools/memory_add/", json={"arguments": {"text": "Alice is allergic to shellfish."}, "user_id": BOB}
    )
    assert again.json()["result"]["created"] is True


def test_consolidation_never_links_two_users(api, kb):
    for user in (ALICE, BOB):
        for n in range(3):
            post(api, f"{user}-{n}", f"I enjoy hiking trip number {n} in the green mountains near home.", user)
    run_queued_tasks()
    for _ in range(3):
        api.post("/api/v1/kbs/notes/consolidate/")
        run_queued_tasks()
    insights = list(Insight.objects.prefetch_related("memories"))
    assert insights, JobRun.objects.filter(kind="consolidate").values_list("status", "error", "detail")
    for insight in insights:
        owners = {m.end_user_id for m in insight.memories.all()}
        assert owners == {insight.end_user_id}


def test_lists_show_and_filter_the_owner(api, populated):
    memories = api.get("/api/v1/kbs/notes/memories/").json()["results"]
    owners = {m["user_id"] for m in memories}
    assert owners == {ALICE, BOB, None}
    only_alice = api.get("/api/v1/kbs/notes/memories/", params={"user_id": ALICE}).json()["results"]
    assert only_alice and all(m["user_id"] == ALICE and "Berlin" not in m["text"] for m in only_alice)
    shared = api.get("/api/v1/kbs/notes/memories/", params={"shared": "true"}).json()["results"]
    assert shared and all(m["user_id"] is None for m in shared)
    assert api.get("/api/v1/kbs/notes/memories/", params={"shared": "maybe"}).status_code == 400
    api.post("/api/v1/kbs/notes/documents/", json={"content": "Bob's notes.", "slug": "bob-notes", "user_id": BOB})
    documents = api.get("/api/v1/kbs/notes/documents/", params={"user_id": BOB}).json()["results"]
    assert [(d["slug"], d["user_id"]) for d in documents] == [("bob-notes", BOB)]
    assert api.get("/api/v1/kbs/notes/insights/", params={"shared": "false"}).status_code == 200


def test_a_user_id_may_hold_accented_letters(api, kb):
    """A user id of letters of any script ("josé") is accepted, as the message about user ids says: turns are
    stored for him and his page answers."""
    response = api.post(
        "/api/v1/kbs/notes/messages/",
        json={"session_id": "s1", "user_id": "josé", "messages": [{"external_id": "1", "content": "Hola!"}]},
    )
    assert response.status_code == 202, response.text
    assert api.get("/api/v1/users/josé/").status_code == 200
    assert (
        api.post(
            "/api/v1/kbs/notes/messages/",
            json={"session_id": "s2", "user_id": "jo sé", "messages": [{"external_id": "1", "content": "Hola!"}]},
        ).status_code
        == 400
    )
