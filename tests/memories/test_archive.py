"""Archived conversations: a session's older turns become a searchable conversation document."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kbsite.models import JobRun
from knowledge.models import Document
from memories.archive import enqueue_archive
from memories.models import Session
from tests.conftest import run_queued_tasks
from tests.factories import MessageFactory, SessionFactory

TURNS = [
    ("Maya", "We decided to move the team offsite to Lisbon in June."),
    ("Leo", "Great, I will book the hotel near the Alfama district."),
    ("Maya", "Budget is 4000 euros for the whole trip."),
    ("Leo", "ok"),
    ("Maya", "The agenda covers the Q3 roadmap and hiring."),
    ("Leo", "Let's invite Priya from the Berlin office too."),
    ("Maya", "What time is it?"),
    ("Leo", "Almost noon."),
]


def _post(api, session_id: str, turns=TURNS, start=0):
    base = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
    messages = [
        {
            "external_id": f"{session_id}-{start + i}",
            "speaker": speaker,
            "content": text,
            "created_at": (base + timedelta(minutes=start + i)).isoformat(),
        }
        for i, (speaker, text) in enumerate(turns)
    ]
    response = api.post("/api/v1/kbs/notes/messages/", json={"session_id": session_id, "messages": messages})
    assert response.status_code == 202, response.text


def _search(api, **arguments):
    response = api.post("/api/v1/tools/search_knowledge_base/", json={"arguments": arguments})
    assert response.status_code == 200, response.text
    return response.json()["result"]["results"]


def test_a_long_session_archives_its_older_turns_offline(api, kb, settings):
    """Past ARCHIVE_AFTER_TURNS, all but the newest ARCHIVE_KEEP_TURNS turns are summarised (extractively,
    offline) into a conversation document with session id, date range, topics, entities and decisions."""
    settings.ARCHIVE_AFTER_TURNS = 6
    settings.ARCHIVE_KEEP_TURNS = 2
    _post(api, "offsite", TURNS[:5])
    run_queued_tasks()
    assert not Document.objects.exists()  # 5 turns: not yet
    _post(api, "offsite", TURNS[5:], start=5)
    run_queued_tasks()
    (document,) = Document.objects.filter(doc_type=Document.Type.CONVERSATION)
    meta = document.metadata
    assert document.namespace == "conversations" and document.status == Document.Status.DONE
    assert meta["session_id"] == "offsite" and meta["message_count"] == 6 and meta["mode"] == "heuristic"
    assert meta["date_range"] == {"start": "2026-05-04T09:00:00+00:00", "end": "2026-05-04T09:05:00+00:00"}
    assert meta["first_external_id"] == "offsite-0" and meta["last_external_id"] == "offsite-5"
    assert "lisbon" in meta["entities"] and "maya" in meta["entities"]
    assert any("decided" in d for d in meta["decisions"])
    assert "Lisbon" in document.content and "What time is it" not in document.content  # kept turns stay out
    session = Session.objects.get(external_id="offsite")
    assert session.archived_through == session.messages.order_by("id")[5].pk


def test_archive_is_searchable_from_other_sessions_but_not_its_own(api, kb):
    """Cross-session search finds the archived conversation, and leaves it out for the session itself."""
    _post(api, "offsite")
    assert api.post("/api/v1/kbs/notes/archive/", json={"session_id": "offsite"}).status_code == 202
    run_queued_tasks()
    hits = _search(api, query="where is the offsite?", search_type="conversations", session_id="later-chat")
    assert hits and hits[0]["session_id"] == "offsite" and hits[0]["doc_type"] == "conversation"
    assert _search(api, query="where is the offsite?", search_type="conversations", session_id="offsite") == []
    assert _search(api, query="where is the offsite?", search_type="documents") == []
    context = api.get("/api/v1/context/", params={"query": "offsite Lisbon hotel", "session_id": "offsite"}).json()
    assert not [d for d in context["documents"] if d["doc_type"] == "conversation"]
    context = api.get("/api/v1/context/", params={"query": "offsite Lisbon hotel", "session_id": "other"}).json()
    assert [d for d in context["documents"] if d["doc_type"] == "conversation"]


def test_archive_on_request_errors(api, other_api, kb):
    """Unknown sessions and other bots' KBs are 404s; a session with nothing left to archive is skipped."""
    assert api.post("/api/v1/kbs/notes/archive/", json={"session_id": "nope"}).status_code == 404
    _post(api, "s1", TURNS[:2])
    assert other_api.post("/api/v1/kbs/notes/archive/", json={"session_id": "s1"}).status_code == 404
    api.post("/api/v1/kbs/notes/archive/", json={"session_id": "s1"})
    run_queued_tasks()
    api.post("/api/v1/kbs/notes/archive/", json={"session_id": "s1"})
    run_queued_tasks()
    runs = list(JobRun.objects.filter(kind=JobRun.Kind.ARCHIVE).order_by("id").values_list("status", flat=True))
    assert runs == ["succeeded", "skipped"]
    assert Document.objects.filter(doc_type=Document.Type.CONVERSATION).count() == 1


@pytest.fixture
def session(kb):
    session = SessionFactory(kb=kb, external_id="llm-chat")
    for i, (speaker, text) in enumerate(TURNS):
        MessageFactory(session=session, external_id=f"m{i}", speaker=speaker, content=text)
    return session


SUMMARY = {
    "summary": "Maya and Leo planned a June team offsite in Lisbon with a 4000 euro budget.",
    "topics": ["offsite", "budget"],
    "entities": ["maya", "leo", "lisbon"],
    "decisions": ["Move the offsite to Lisbon in June."],
}


def test_llm_summary_after_a_malformed_reply(kb, session, fake_llm):
    """The LLM's summary (untrusted turns delimited in the prompt) becomes the document; a malformed reply is
    retried, and the tokens of both attempts are recorded."""
    fake_llm.reply_raw("not json at all", tokens_in=50, tokens_out=5).reply_json(SUMMARY, tokens_in=70, tokens_out=20)
    enqueue_archive(session=session, keep=0)
    run_queued_tasks()
    run = JobRun.objects.get(kind=JobRun.Kind.ARCHIVE)
    assert run.status == "succeeded" and run.mode == "llm"
    assert (run.tokens_in, run.tokens_out) == (120, 25)
    assert '<untrusted source="conversation">' in fake_llm.user_prompt()
    document = Document.objects.get(doc_type=Document.Type.CONVERSATION)
    assert SUMMARY["summary"] in document.content and "## Decisions" in document.content
    assert document.metadata["decisions"] == SUMMARY["decisions"] and document.metadata["message_count"] == 8


def test_llm_failure_leaves_the_turns_for_a_retry(kb, session, fake_llm):
    """After the bounded retries the run fails with its error; the cursor does not move and nothing is stored."""
    fake_llm.reply_status(500).reply_status(500).reply_status(500)
    enqueue_archive(session=session, keep=0)
    run_queued_tasks()
    run = JobRun.objects.get(kind=JobRun.Kind.ARCHIVE)
    assert run.status == "failed" and "500" in run.error
    assert Session.objects.get(pk=session.pk).archived_through == 0
    assert not Document.objects.exists()


def test_an_embedding_failure_leaves_the_turns_for_a_retry(kb, session, settings):
    """The summary is embedded before anything is stored: when the backend fails, the run fails with the reason,
    the cursor stays, no document is left behind, and the retry then archives the turns."""
    from kbsite.ai import embeddings

    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # a remote backend that is down: nothing listens there
    embeddings.get_embedder.cache_clear()
    try:
        enqueue_archive(session=session, keep=0)
        run_queued_tasks()
    finally:
        settings.EMBEDDING_BACKEND = "local"  # the backend is back
        embeddings.get_embedder.cache_clear()
    run = JobRun.objects.get(kind=JobRun.Kind.ARCHIVE)
    assert run.status == "failed" and "embedding endpoint failed" in run.error, run.error
    assert Session.objects.get(pk=session.pk).archived_through == 0
    assert not Document.objects.exists()

    enqueue_archive(session=session, keep=0)
    run_queued_tasks()
    assert Document.objects.get(doc_type=Document.Type.CONVERSATION).chunks.exists()
    assert Session.objects.get(pk=session.pk).archived_through == session.messages.order_by("id").last().pk
