"""What follows a retired memory: the insights that drew on it and the graph edges it asserted (issue 19, findings
2 and 3). A retired fact must never come back into a bot's prompt by another way."""

from __future__ import annotations

from memories.models import Edge, Insight, Memory
from memories.services import memories_embed_missing
from tests.conftest import run_queued_tasks
from tests.factories import InsightFactory, MemoryFactory
from tests.memories.ingest.test_ingest_llm import post_turns


def _paris_insight(kb):
    paris = MemoryFactory(kb=kb, text="Alice lives in Paris.", entities=["alice", "paris"], consolidated=True)
    bakery = MemoryFactory(kb=kb, text="Alice buys croissants every morning.", entities=["alice"], consolidated=True)
    insight = InsightFactory(kb=kb, text="Alice lives in Paris and buys croissants there every morning.")
    insight.memories.set([paris, bakery])
    memories_embed_missing()
    return paris, bakery, insight


def _recalled(api, query: str) -> list[str]:
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": query, "k": 10})
    assert response.status_code == 200, response.text
    return [hit["text"] for hit in response.json()["results"]]


def test_an_insight_is_retired_with_a_memory_it_drew_on_and_recall_no_longer_returns_it(api, kb):
    paris, bakery, insight = _paris_insight(kb)
    assert insight.text in _recalled(api, "Where does Alice live?")
    assert api.post(f"/api/v1/kbs/notes/memories/{paris.pk}/retire/", json={"reason": "moved"}).status_code == 200
    insight.refresh_from_db()
    assert insight.retired_at is not None and insight.retired_reason == "a memory it drew on was retired (moved)"
    assert not [text for text in _recalled(api, "Where does Alice live?") if "Paris" in text]
    context = api.get("/api/v1/context/", params={"query": "Where does Alice live?"}).json()["context"]
    assert "Paris" not in context
    listed = api.get("/api/v1/kbs/notes/insights/?status=retired").json()["results"]
    assert [(i["id"], i["retired_reason"]) for i in listed] == [(insight.pk, insight.retired_reason)]
    assert api.get("/api/v1/kbs/notes/insights/").json()["results"] == []
    # What still holds is linked again at the next consolidation.
    bakery.refresh_from_db()
    assert bakery.consolidated is False


def test_a_superseded_fact_retires_its_insights(api, kb, fake_llm):
    paris, _, insight = _paris_insight(kb)
    fake_llm.reply_json(
        {"add": [], "supersede": [{"id": paris.pk, "by_text": "Alice lives in Berlin.", "kind": "fact"}], "edges": []}
    )
    post_turns(api, [("m1", "I moved to Berlin last month.")])
    run_queued_tasks()
    insight.refresh_from_db()
    assert insight.retired_at is not None and "superseded" in insight.retired_reason
    assert not [text for text in _recalled(api, "Where does Alice live?") if "Paris" in text]
    assert Insight.objects.live().count() == 0


def test_an_edge_belongs_to_the_memory_that_asserts_it_and_is_retired_with_it(api, kb, fake_llm):
    fake_llm.reply_json(
        {
            "add": [
                {"text": "Alice lives in Paris.", "entities": ["alice", "paris"], "source_turns": ["@1"]},
                {"text": "Alice went hiking on Sunday.", "entities": ["alice"], "source_turns": ["@2"]},
            ],
            "supersede": [],
            "edges": [
                {"src": "alice", "relation": "lives_in", "dst": "paris"},
                {"src": "alice", "relation": "knows", "dst": "zoe"},  # asserted by no fact: not kept
            ],
        }
    )
    post_turns(api, [("m1", "I live in Paris."), ("m2", "I went hiking on Sunday.")])
    run_queued_tasks()
    paris = Memory.objects.get(text="Alice lives in Paris.")
    edge = Edge.objects.get()
    assert (edge.relation, edge.memory) == ("lives_in", paris)

    fake_llm.reply_json(
        {
            "add": [],
            "supersede": [{"id": paris.pk, "by_text": "Alice lives in Berlin.", "entities": ["alice", "berlin"]}],
            "edges": [{"src": "alice", "relation": "lives_in", "dst": "berlin"}],
        }
    )
    post_turns(api, [("m3", "I moved to Berlin.")])
    run_queued_tasks()
    edge.refresh_from_db()
    assert edge.retired_at is not None  # retired with "Alice lives in Paris."
    live = Edge.objects.get(retired_at__isnull=True)
    assert (live.dst.name, live.memory.text) == ("berlin", "Alice lives in Berlin.")


def test_retiring_a_memory_by_hand_retires_its_edges(api, kb, fake_llm):
    fake_llm.reply_json(
        {
            "add": [{"text": "Alice works at Acme.", "entities": ["alice", "acme"], "source_turns": ["@1"]}],
            "supersede": [],
            "edges": [{"src": "alice", "relation": "works_at", "dst": "acme"}],
        }
    )
    post_turns(api, [("m1", "I work at Acme.")])
    run_queued_tasks()
    memory = Memory.objects.get()
    api.post(f"/api/v1/kbs/notes/memories/{memory.pk}/retire/", json={"reason": "left the job"})
    assert Edge.objects.get().retired_at is not None
