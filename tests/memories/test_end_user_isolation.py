"""Every way in against every way out: what one end user's turns, texts, files, uploads and tool writes leave behind
is found by that user on every read path (recall, context, ask, document search, every tool), and by no other user
and by no user-less request."""

from __future__ import annotations

import json
import os

import pytest

from memories import ingest
from tests.conftest import run_queued_tasks

ALICE, BOB = "alice", "bob"
# One rare word per way in; each is in nothing but what Alice sent that way.
WORDS = {
    "turn": "zebrafinch",
    "text": "marmoset",
    "upload": "okapi",
    "document": "axolotl",
    "memory_add": "pangolin",
    "knowledge_write": "quetzal",
    "inbox": "narwhal",
}
QUERY = " ".join(WORDS.values())


def tool(api, name, user, **arguments):
    body = {"arguments": arguments, **({"user_id": user} if user else {})}
    return api.post(f"/api/v1/tools/{name}/", json=body)


def accepted(response, status: int = 202):
    assert response.status_code == status, response.text
    return response


@pytest.fixture
def alices(api, kb):
    """Alice writes through every way in; Bob and the KB hold things of their own."""
    w = WORDS
    accepted(
        api.post(
            "/api/v1/kbs/notes/messages/",
            json={
                "session_id": "alice-chat",
                "user_id": ALICE,
                "messages": [{"external_id": "a1", "content": f"I keep a pet {w['turn']} in a big cage at home."}],
            },
        )
    )
    text = {"text": f"Alice adopted a {w['text']} from the zoo.", "user_id": ALICE}
    accepted(api.post("/api/v1/kbs/notes/ingest/", json=text))
    accepted(
        api.post(
            "/api/v1/kbs/notes/documents/",
            files={"file": ("trip.txt", f"Alice photographed an {w['upload']} in the rainforest.".encode())},
            data={"user_id": ALICE},
        )
    )
    accepted(
        api.post(
            "/api/v1/kbs/notes/documents/",
            json={
                "content": f"# Pond\nAlice's {w['document']} lives in the garden pond.",
                "slug": "pond",
                "user_id": ALICE,
            },
        )
    )
    accepted(tool(api, "memory_add", ALICE, text=f"Alice rescued a {w['memory_add']} last spring."), 200)
    birds = f"# Birds\nAlice saw a {w['knowledge_write']} in Peru."
    accepted(tool(api, "knowledge_write", ALICE, slug="birds", content=birds), 200)
    inbox = kb.inbox_dir / "users" / ALICE
    inbox.mkdir(parents=True)
    (inbox / "notes.txt").write_text(f"Alice dreams of seeing a {w['inbox']} in the Arctic sea.")
    os.utime(inbox / "notes.txt", (0, 0))
    assert ingest.inbox_scan() == 1
    accepted(
        api.post(
            "/api/v1/kbs/notes/messages/",
            json={
                "session_id": "bob-chat",
                "user_id": BOB,
                "messages": [{"external_id": "b1", "content": "I keep a pet cockatoo in a big cage at home."}],
            },
        )
    )
    accepted(api.post("/api/v1/kbs/notes/ingest/", json={"text": "The city zoo opens at nine every morning."}))
    run_queued_tasks()
    return kb


def everything_read(api, user) -> dict[str, str]:
    """What each read path returns for the query, as text, read as ``user`` (None: no user). Each path must answer
    (200), so that an error's body never passes for an answer that leaks nothing; Alice's documents, read by slug,
    are not found (404) for anyone else."""
    as_user = {"user_id": user} if user else {}
    out = {
        "recall": api.post("/api/v1/kbs/notes/recall/", json={"query": QUERY, "k": 50, **as_user}),
        "context": api.get("/api/v1/context/", params={"query": QUERY, **as_user}),
        "ask": api.post("/api/v1/kbs/notes/ask/", json={"question": QUERY, **as_user}),
        "documents search": api.post(
            "/api/v1/kbs/notes/documents/search/", json={"query": QUERY, "limit": 50, **as_user}
        ),
    }
    for name, arguments in [
        ("memory_search", {"query": QUERY, "limit": 50}),
        ("knowledge_search", {"query": QUERY, "limit": 20}),
        ("search_knowledge_base", {"query": QUERY, "limit": 20, "search_type": "all"}),
        ("knowledge_list", {}),
    ]:
        out[name] = tool(api, name, user, **arguments)
    for slug in ("pond", "birds", "trip"):
        out[f"knowledge_read {slug}"] = tool(api, "knowledge_read", user, slug=slug)
    statuses = {path: response.status_code for path, response in out.items()}
    expected = {path: 404 if path.startswith("knowledge_read") and user != ALICE else 200 for path in out}
    assert statuses == expected, {path: out[path].text[:300] for path in out if statuses[path] != expected[path]}
    # What the answers hold, without the query some of them echo.
    return {
        path: json.dumps({k: v for k, v in response.json().items() if k != "query"}) for path, response in out.items()
    }


def test_what_a_user_sends_reaches_only_them(api, alices):
    for reader in (BOB, None):
        seen = everything_read(api, reader)
        leaks = {path: [w for w in WORDS.values() if w in text.lower()] for path, text in seen.items()}
        assert not any(leaks.values()), f"{reader or 'no user'} saw Alice's: {leaks}"
    own = everything_read(api, ALICE)
    recalled = json.loads(own["recall"])["results"]
    for way, word in WORDS.items():
        assert any(word in hit["text"].lower() for hit in recalled), f"Alice's {way} ({word}) is not recalled for her"
    assert all(w in own["context"].lower() for w in (WORDS["turn"], WORDS["memory_add"]))
    for word in (WORDS["upload"], WORDS["document"], WORDS["knowledge_write"]):
        assert word in own["documents search"].lower() and word in own["search_knowledge_base"].lower()
    assert all(f'"{slug}"' in own["knowledge_list"] for slug in ("pond", "birds"))
    assert WORDS["document"] in own["knowledge_read pond"] and WORDS["knowledge_write"] in own["knowledge_read birds"]
    # Bob's turn is his alone; the KB's shared text is everyone's.
    for reader, sees_cockatoo in ((ALICE, False), (BOB, True), (None, False)):
        body = {"query": "cockatoo zoo", **({"user_id": reader} if reader else {})}
        found = " ".join(h["text"] for h in api.post("/api/v1/kbs/notes/recall/", json=body).json()["results"]).lower()
        assert "city zoo" in found and ("cockatoo" in found) == sees_cockatoo, (reader, found)
