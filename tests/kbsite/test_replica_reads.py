"""Which API requests read from a replica, and where the ORM sends reads and writes (the real replica:
``test_replicas.py``)."""

from __future__ import annotations

import pytest
from django.db import connections
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from kbsite import replicas
from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.models import Bot, WriteMark
from memories.api.kbs import KnowledgeBaseViewSet
from memories.api.tools import ToolCallView
from memories.models import Memory
from tests.factories import MemoryFactory


def _api_views(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            view = getattr(pattern.callback, "cls", None)
            ours = view is not None and view.__module__.split(".")[0] in ("kbsite", "memories", "knowledge")
            if ours and issubclass(view, APIView):  # not the API's root or its schema pages: they read no rows
                yield prefix + str(pattern.pattern), view


def test_every_api_view_reads_from_replicas_and_marks_its_writes():
    views = dict(_api_views(get_resolver().url_patterns))
    assert len(views) > 20
    missing = sorted(path for path, view in views.items() if not issubclass(view, ReplicaReadsMixin))
    assert missing == [], "API views that would read every request from the primary and leave no write mark"


@pytest.mark.parametrize(
    ("view", "method", "kwargs", "action", "reads"),
    [
        (KnowledgeBaseViewSet, "post", {}, "recall", True),
        (KnowledgeBaseViewSet, "post", {}, "ask", True),
        (KnowledgeBaseViewSet, "get", {}, "list", True),
        (KnowledgeBaseViewSet, "post", {}, "messages", False),
        (KnowledgeBaseViewSet, "patch", {}, "partial_update", False),
        (ToolCallView, "post", {"name": "memory_search"}, None, True),
        (ToolCallView, "post", {"name": "memory_add"}, None, False),
        (ToolCallView, "post", {"name": "memory_forget"}, None, False),
    ],
)
def test_a_request_reads_from_a_replica_only_when_it_changes_nothing(view, method, kwargs, action, reads):
    request = getattr(APIRequestFactory(), method)("/")
    instance = view()
    instance.request, instance.kwargs, instance.action = request, kwargs, action
    assert instance.reads_only(request) is reads


@pytest.mark.django_db
def test_the_orm_reads_where_the_request_reads_and_always_writes_on_the_primary(settings, bot):
    settings.DATABASE_REPLICAS = []  # no replica: no statement, the primary
    router = replicas.ReplicaRouter()
    assert router.db_for_read(Memory) == "default"
    token = replicas._reading.set("replica1")
    try:
        assert router.db_for_read(Memory) == "replica1"
        assert replicas.reading_from() == "replica1"
        assert router.db_for_write(Memory) == "default"
        assert router.db_for_write(Bot, instance=bot) == "default"
    finally:
        replicas._reading.reset(token)
    assert router.allow_migrate("replica1", "memories") is False
    assert router.allow_migrate("default", "memories") is True
    replicas.written(bot.pk)  # without replicas: nothing, not even the table's statement
    assert not WriteMark.objects.exists()


@pytest.mark.django_db
def test_a_replica_that_fails_mid_request_leaves_the_read_to_the_primary_with_no_error(
    api, kb, dead_replica, monkeypatch
):
    MemoryFactory(kb=kb, text="Alice lives in Lisbon.")
    # Chosen as if its replay check had passed: the view's own queries are the first to find it gone.
    monkeypatch.setattr(replicas, "_chosen", lambda bot_id: dead_replica)
    listed = api.get(f"/api/v1/kbs/{kb.name}/memories/")
    assert listed.status_code == 200, listed.text
    assert [m["text"] for m in listed.json()["results"]] == ["Alice lives in Lisbon."]
    assert replicas._down_until[dead_replica] > 0  # left alone for REPLICA_DOWN_SECONDS
    assert replicas.reading_from() == "default"


@pytest.mark.django_db
def test_a_replica_that_refuses_its_check_serves_nothing_and_the_bots_writes_leave_their_mark(api, kb, dead_replica):
    assert api.patch(f"/api/v1/kbs/{kb.name}/", json={"description": "notes"}).status_code == 200
    mark = WriteMark.objects.get(bot=api.bot)
    assert mark.lsn.count("/") == 1  # a pg_lsn, e.g. 0/1A2B3C4
    assert api.get(f"/api/v1/kbs/{kb.name}/").json()["description"] == "notes"
    assert replicas._down_until[dead_replica] > 0
    # A read leaves no mark of its own.
    before = WriteMark.objects.get(bot=api.bot).lsn
    assert api.get(f"/api/v1/kbs/{kb.name}/memories/").status_code == 200
    assert WriteMark.objects.get(bot=api.bot).lsn == before


@pytest.mark.django_db
def test_the_dashboard_and_the_health_check_say_a_replica_is_down_and_the_process_stays_healthy(
    admin_client, client, dead_replica
):
    page = admin_client.get("/admin/").content.decode()
    table = page[page.index('<table id="replicas">') :]
    assert "replica1" in table and "down</strong>: its reads go to the primary" in table
    health = client.get("/api/health/")
    assert health.status_code == 200
    assert health.json()["replicas"] == [{"name": "replica1", "status": "down", "lag_bytes": None, "lag_seconds": None}]


@pytest.mark.django_db
def test_a_view_that_raises_leaves_no_replica_to_the_next_request_of_its_thread(api, kb, dead_replica, monkeypatch):
    monkeypatch.setattr(replicas, "_chosen", lambda bot_id: dead_replica)

    def crash(*args, **kwargs):
        raise RuntimeError("a bug in a view")

    monkeypatch.setattr(KnowledgeBaseViewSet, "retrieve", crash)
    with pytest.raises(RuntimeError):
        api.get(f"/api/v1/kbs/{kb.name}/")
    assert replicas.reading_from() == "default"


def test_an_mcp_tool_that_changes_nothing_reads_from_a_replica_and_one_that_writes_never_does(
    kb, dead_replica, monkeypatch
):
    """MCP's tools are the API's: memory_search reads from the replica chosen for the bot, and when that replica
    fails mid-call, answers from the primary with no error; memory_add never asks for a replica."""
    from kbsite.caller import Caller
    from memories import tools
    from memories.mcp.server import tool_metered

    MemoryFactory(kb=kb, text="Alice lives in Lisbon.")
    chosen, read_from = [], []
    monkeypatch.setattr(replicas, "_chosen", lambda bot_id: chosen.append(bot_id) or dead_replica)
    execute = tools.tool_execute
    monkeypatch.setattr(
        tools, "tool_execute", lambda **kwargs: read_from.append(replicas.reading_from()) or execute(**kwargs)
    )
    caller = Caller(bot=kb.bot)
    found = tool_metered(caller=caller, name="memory_search", arguments={"query": "Lisbon", "kb": kb.name})
    assert "Lisbon" in str(found)
    assert chosen == [kb.bot.pk] and read_from == [dead_replica, "default"]  # the replica, then the primary
    assert replicas.reading_from() == "default"  # nothing left to the next call of this thread
    tool_metered(caller=caller, name="memory_add", arguments={"text": "Alice plays chess.", "kb": kb.name})
    assert chosen == [kb.bot.pk] and read_from[-1] == "default"


def test_a_replica_killed_in_the_middle_of_a_recall_costs_no_error(
    api, kb, replica_of_the_test_database, monkeypatch, transactional_db
):
    """The replica's connection dies between two statements of one recall (make scale-out's kill found it: one
    context block in 177 answered 500). The recall's transaction, ending, connected again and so cleared Django's
    mark of the failed connection, and the failure was taken for the primary's. It is kept by replicas' own watch
    of their statements: the block is served again by the primary."""
    from memories.recall import hybrid

    MemoryFactory(kb=kb, text="Alice lives in Lisbon.")
    replica = replica_of_the_test_database
    monkeypatch.setattr(replicas, "_chosen", lambda bot_id: replica)
    vector_ranked, killed = hybrid.vector_ranked, []

    def killed_first(*args, **kwargs):
        if not killed:  # the replica's server ends its connection, as a killed server does
            with connections[replica].cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                killed.append(cursor.fetchone()[0])
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(%s)", killed)
        return vector_ranked(*args, **kwargs)

    monkeypatch.setattr(hybrid, "vector_ranked", killed_first)
    block = api.get("/api/v1/context/", params={"query": "Where does Alice live?"})
    assert block.status_code == 200, block.text
    assert "Lisbon" in block.json()["context"] and killed
    assert replicas._down_until[replica] > 0
