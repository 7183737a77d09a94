"""Shared fixtures: bots with real API keys, and an API client: in process inside the test's transaction, or real HTTP
against a live server for a test that asks for one."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.db import connection

from kbsite.keys import key_issue
from tests.factories import BotFactory, KnowledgeBaseFactory
from tests.fake_llm import FakeLLM
from tests.in_process import IN_PROCESS_URL, autocommit_at_the_test_level, in_process_request


@dataclass
class ApiClient:
    """A client of the API, authenticated as one bot: requests' calls and answers, sent over real HTTP to
    ``base_url``, or through Django's test client when that is ``IN_PROCESS_URL``."""

    base_url: str
    key: str | None
    bot: object = None

    def _headers(self, extra: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = self._headers(kwargs.pop("headers", None))
        send = in_process_request if self.base_url == IN_PROCESS_URL else requests.request
        return send(method, f"{self.base_url}{path}", headers=headers, timeout=60, **kwargs)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


@pytest.fixture(scope="session")
def django_db_modify_db_settings():
    """No persistent connections in tests: the live server's thread must not hold the test DB open."""
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0


@pytest.fixture(scope="session", autouse=True)
def _autocommit_at_the_test_level():
    """A test inside a transaction sees jobs queued on commit, and keeps its connection (see
    ``autocommit_at_the_test_level``)."""
    with autocommit_at_the_test_level():
        yield


@pytest.fixture
def bot(db):
    return BotFactory(name="alpha")


@pytest.fixture
def other_bot(db):
    return BotFactory(name="beta")


def api_url(request) -> str:
    """Where a test's API clients send their requests: the live server for a test that asks for one (its data
    committed, ``transactional_db``), else in process, inside the test's transaction."""
    return request.getfixturevalue("live_server").url if "live_server" in request.fixturenames else IN_PROCESS_URL


@pytest.fixture
def api(request, bot) -> ApiClient:
    _, plain = key_issue(bot)
    return ApiClient(base_url=api_url(request), key=plain, bot=bot)


@pytest.fixture
def other_api(request, other_bot) -> ApiClient:
    _, plain = key_issue(other_bot)
    return ApiClient(base_url=api_url(request), key=plain, bot=other_bot)


@pytest.fixture
def anon(request, db) -> ApiClient:
    return ApiClient(base_url=api_url(request), key=None)


def operator_of(*bots, username: str = "olga", password: str = "x"):
    """A staff user in the Operators group who operates ``bots``, and only them (none: no bot at all)."""
    from django.contrib.auth.models import Group, User

    from kbsite.operators import OPERATORS_GROUP

    user = User.objects.create_user(username, password=password, is_staff=True)
    user.groups.add(Group.objects.get(name=OPERATORS_GROUP))
    for bot in bots:
        bot.operators.add(user)
    return user


def logged_in(user):
    """A Django test client logged in as ``user``."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def kb(bot):
    return KnowledgeBaseFactory(bot=bot, name="notes")


@pytest.fixture
def other_kb(other_bot):
    return KnowledgeBaseFactory(bot=other_bot, name="secret")


@dataclass
class AsgiServer:
    """The product's ASGI application (Django, the chat proxy, MCP) under a real uvicorn, in a thread of this
    process: the same database as the test, real HTTP, the serving model of ``manage.py serve``."""

    url: str
    server: object
    thread: threading.Thread


@pytest.fixture
def asgi_server(transactional_db) -> AsgiServer:
    import uvicorn

    from kbsite.asgi import build_application
    from kbsite.serving import Worker  # serve's uvicorn settings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        build_application(), host="127.0.0.1", port=port, log_level="warning", **Worker.CONFIG_KWARGS
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="asgi-server", daemon=True)
    thread.start()
    wait_for(lambda: server.started, 20, "the ASGI server to start")
    yield AsgiServer(url=f"http://127.0.0.1:{port}", server=server, thread=thread)
    server.should_exit = True
    thread.join(timeout=20)


@pytest.fixture
def asgi_api(asgi_server, bot) -> ApiClient:
    """The bot's API client against the ASGI server."""
    _, plain = key_issue(bot)
    return ApiClient(base_url=asgi_server.url, key=plain, bot=bot)


@pytest.fixture(autouse=True)
def isolated_data_dir(settings, tmp_path):
    """Per-KB folders (inbox, processed, failed, knowledge) of each test live in its own tmp dir."""
    settings.KBSITE_DATA_DIR = tmp_path / "data"


@pytest.fixture(autouse=True)
def fresh_cache():
    """The dashboard's cached counts (also on the KB pages) are counted anew in each test, never another test's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def offline(settings):
    """No LLM configured unless a test asks for fake_llm: heuristic mode."""
    settings.LLM_BASE_URL = ""
    settings.LLM_MODEL = ""


@pytest.fixture
def fake_llm(settings):
    """A scripted OpenAI-compatible server, configured as the product's LLM. Its time-out is a realistic one (a
    pause of a loaded machine must not turn into a time-out that takes the next scripted reply); a test of
    time-outs sets a short one itself. A test that leaves scripted replies unused fails (see
    ``FakeLLM.allow_unused``)."""
    server = FakeLLM()
    settings.LLM_BASE_URL = server.base_url
    settings.LLM_MODEL = "fake-model"
    settings.LLM_API_KEY = "test"
    settings.LLM_TIMEOUT_SECONDS = 30.0
    settings.LLM_MAX_RETRIES = 2
    settings.LLM_RETRY_BACKOFF_SECONDS = 0.01
    yield server
    server.close()
    unused = server.unused
    if unused and not server.unused_allowed:
        pytest.fail(f"{len(unused)} scripted LLM replies were never asked for: {[step[:2] for step in unused]}")


def run_queued_tasks() -> int:
    """Run every task waiting in the django-q ORM queue, the way a worker would. Returns how many ran."""
    from django_q.brokers import get_broker
    from django_q.tasks import _sync

    broker = get_broker()
    ran = 0
    # An empty queue is seen without dequeue's wait of a poll interval (0.25 s).
    while broker.queue_size():
        for ack_id, payload in broker.dequeue() or ():
            _sync(payload)
            broker.acknowledge(ack_id)
            ran += 1
    return ran


# --- Real worker processes ------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def database_url(name: str | None = None) -> str:
    """URL of the test database (or of database ``name`` on the same server), for processes of their own."""
    db = {**connection.settings_dict, **({"NAME": name} if name else {})}
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ":"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    if str(db.get("HOST", "")).startswith("/"):
        return f"postgresql://{db['USER']}{password}@{port}/{db['NAME']}?host={db['HOST']}"
    return f"postgresql://{db['USER']}{password}@{db['HOST']}{port}/{db['NAME']}"


@pytest.fixture
def qcluster_env() -> dict:
    """Extra environment of the qcluster fixture's process; a test overrides it with ``parametrize``."""
    return {}


@dataclass
class Cluster:
    """A real `manage.py qcluster` process (in a process group of its own) and its log."""

    process: subprocess.Popen
    log: object

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.seek(0)
        print(self.log.read()[-3000:])
        self.log.close()

    def kill(self) -> None:
        """kill -9 of the whole cluster: the sentinel, its workers, monitor and pusher."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture
def start_qcluster(settings, qcluster_env, live_server):
    """Start real `manage.py qcluster` processes against the test database; all are stopped afterwards. The
    workers read what the test committed (``live_server`` makes it ``transactional_db``, and the test's API
    clients talk to it over HTTP)."""
    started: list[Cluster] = []

    def start() -> Cluster:
        env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}  # the product's own settings
        env.update(
            {
                "DATABASE_URL": database_url(),
                "KBSITE_DATA_DIR": str(settings.KBSITE_DATA_DIR),
                "LLM_BASE_URL": settings.LLM_BASE_URL,
                "LLM_MODEL": settings.LLM_MODEL,
                "LLM_TIMEOUT_SECONDS": str(settings.LLM_TIMEOUT_SECONDS),
                "LLM_MAX_RETRIES": str(settings.LLM_MAX_RETRIES),
                "LLM_RETRY_BACKOFF_SECONDS": str(settings.LLM_RETRY_BACKOFF_SECONDS),
                "WORKERS": "2",
                "PYTHONUNBUFFERED": "1",
                **qcluster_env,
            }
        )
        log = open(settings.KBSITE_DATA_DIR.parent / f"qcluster-{len(started)}.log", "w+")  # noqa: SIM115 - closed in stop
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "qcluster"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        started.append(Cluster(process, log))
        return started[-1]

    yield start
    for cluster in started:
        cluster.stop()


@pytest.fixture
def qcluster(start_qcluster) -> Cluster:
    """The real `manage.py qcluster` against the test database, stopped (and its log printed) afterwards."""
    return start_qcluster()


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


# --- A real browser ---------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def browser(tmp_path, monkeypatch):
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail("the browser test needs Debian's chromium and chromium-driver (make test installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium Manager look for a driver online
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture
def embedding_model(request, settings):
    """The local embedder a test names (``parametrize(..., indirect=True)``: all-MiniLM-L6-v2, or
    multilingual-e5-small, loaded from its wheel) for the whole test."""
    from kbsite.ai import embeddings

    settings.EMBEDDING_MODEL = request.param
    embeddings.get_embedder.cache_clear()
    embeddings.get_multilingual.cache_clear()
    yield
    embeddings.get_embedder.cache_clear()
    embeddings.get_multilingual.cache_clear()


def _replica_alias(settings, monkeypatch, **server):
    """The alias ``replica1`` on a connection of its own to the test database's server (or to ``server``'s settings
    instead), routed to as a replica; removed afterwards."""
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper

    from kbsite import replicas

    # Made here, not in DATABASES: a connection Django's test case did not set up, which it allows.
    connections["replica1"] = DatabaseWrapper({**connections["default"].settings_dict, **server}, "replica1")
    settings.DATABASE_REPLICAS = ["replica1"]
    settings.DATABASE_ROUTERS = ["kbsite.replicas.ReplicaRouter"]
    monkeypatch.setattr(replicas, "_down_until", {})
    yield "replica1"
    if hasattr(connections._connections, "replica1"):
        connections["replica1"].close()
        delattr(connections._connections, "replica1")


@pytest.fixture
def dead_replica(settings, monkeypatch):
    """A replica alias whose server is gone (nothing listens on its port), routed to as a replica."""
    from benchmarks.harness import free_port

    yield from _replica_alias(settings, monkeypatch, PORT=free_port())


@pytest.fixture
def replica_of_the_test_database(settings, monkeypatch):
    """A replica alias on a connection of its own to the test database: a server that answers until it is killed."""
    yield from _replica_alias(settings, monkeypatch)
