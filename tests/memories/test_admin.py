"""Operators' admin: every change list loads with a bounded number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from knowledge.models import Chunk, Document
from memories.models import Edge, Entity, IngestItem, JobRun
from tests.factories import InsightFactory, KnowledgeBaseFactory, MemoryFactory, MessageFactory, SessionFactory

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "memories_bot",
    "memories_apikey",
    "memories_knowledgebase",
    "memories_session",
    "memories_message",
    "memories_memory",
    "memories_consolidation",
    "memories_entity",
    "memories_edge",
    "memories_jobrun",
    "memories_ingestitem",
    "knowledge_document",
    "knowledge_chunk",
]


def _populate(n: int) -> None:
    for _ in range(n):
        kb = KnowledgeBaseFactory()
        kb.bot.issue_key()
        message = MessageFactory(session=SessionFactory(kb=kb))
        memory = MemoryFactory(kb=kb)
        memory.source_messages.add(message)
        InsightFactory(kb=kb, memories=[memory])
        a = Entity.objects.create(kb=kb, name=f"a{kb.pk}")
        b = Entity.objects.create(kb=kb, name=f"b{kb.pk}")
        Edge.objects.create(kb=kb, src=a, relation="knows", dst=b, memory=memory)
        JobRun.objects.create(kb=kb, kind="ingest_messages", status="failed", error="boom")
        IngestItem.objects.create(kb=kb, text="some text", source="api")
        document = Document.objects.create(kb=kb, slug=f"doc-{kb.pk}", title="Doc")
        Chunk.objects.create(document=document, kb=kb, ordinal=0, text="chunk text")


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


@pytest.mark.parametrize("changelist", CHANGELISTS)
def test_changelist_query_count_does_not_grow_with_rows(admin_client, changelist):
    """No N+1: the query count of a change list is the same for 2 rows and for 8."""
    url = reverse(f"admin:{changelist}_changelist")
    _populate(2)
    few = _queries(admin_client, url)
    _populate(6)
    many = _queries(admin_client, url)
    assert many == few, f"{changelist}: {few} queries for 2 rows, {many} for 8"
    assert many <= 15


@pytest.mark.parametrize("changelist", ["memories_memory", "memories_consolidation", "memories_knowledgebase"])
def test_change_pages_load(admin_client, changelist):
    """Change pages of the busiest models render (provenance, linked memories, counts)."""
    _populate(1)
    from django.apps import apps

    model = apps.get_model(*changelist.split("_", 1))
    obj = model.objects.first()
    response = admin_client.get(reverse(f"admin:{changelist}_change", args=[obj.pk]))
    assert response.status_code == 200


def test_admin_shows_which_mode_is_running(admin_client):
    """The admin header says whether an LLM is configured or the product runs offline."""
    response = admin_client.get(reverse("admin:index"))
    assert b"Offline mode" in response.content


def test_new_bot_key_is_shown_once(admin_client):
    """Adding a bot in the admin shows its API key once, and stores only the hash."""
    response = admin_client.post(
        reverse("admin:memories_bot_add"),
        {
            "name": "helper",
            "description": "",
            "is_active": "on",
            "api_keys-TOTAL_FORMS": "0",
            "api_keys-INITIAL_FORMS": "0",
        },
        follow=True,
    )
    shown = [str(m) for m in response.context["messages"] if "shown once" in str(m)]
    assert len(shown) == 1
    plain = shown[0].rsplit(" ", 1)[-1]
    from memories.models import ApiKey

    key = ApiKey.objects.get(bot__name="helper")
    assert key.hashed_key == ApiKey.hash(plain)
    assert plain not in admin_client.get(reverse("admin:memories_apikey_change", args=[key.pk])).content.decode()


def test_recall_console_shows_what_a_bot_would_get(admin_client):
    """The operator's recall console lists results with score, signals and sources."""
    from memories.services import memories_embed_missing

    kb = KnowledgeBaseFactory(name="notes")
    message = MessageFactory(session=SessionFactory(kb=kb, external_id="s1"), external_id="m1")
    memory = MemoryFactory(kb=kb, text="Alice adopted a golden retriever named Max.")
    memory.source_messages.add(message)
    memories_embed_missing()
    response = admin_client.get(
        reverse("admin:memories_knowledgebase_recall"),
        {"kb": kb.pk, "query": "Alice dog", "k": 5, "budget_chars": 2000},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Alice adopted a golden retriever named Max." in page and "s1 / m1" in page and "vector" in page
    assert admin_client.get(reverse("admin:memories_knowledgebase_recall"), {"kb": kb.pk, "k": 0}).status_code == 200
