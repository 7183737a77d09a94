"""The web tier started each way docs/scaling.md names, against an external database (the
test database, as DATABASE_URL): each answers its health check and an authenticated API call."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest
import requests

from kbsite.keys import key_issue
from tests.conftest import ROOT, database_url, wait_for
from tests.factories import BotFactory, KnowledgeBaseFactory

GUNICORN = [sys.executable, "-m", "gunicorn"]
CONFIG = ["--config", "python:kbsite.gunicorn_conf"]
# The commands of docs/scaling.md, with this test's address and one web process.
WAYS = {
    "serve --no-worker": [sys.executable, "manage.py", "serve", "--no-worker", "--web-workers", "1", "--bind"],
    "gunicorn kbsite.asgi with the project's config": [*GUNICORN, "kbsite.asgi:application", *CONFIG, "-w", "1", "-b"],
    "gunicorn kbsite.wsgi with the project's config": [*GUNICORN, "kbsite.wsgi", *CONFIG, "-w", "1", "-b"],
    "gunicorn kbsite.wsgi, gunicorn's defaults": [*GUNICORN, "kbsite.wsgi", "-w", "1", "-b"],
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


@pytest.mark.e2e
@pytest.mark.parametrize("way", list(WAYS))
def test_the_web_tier_serves_each_way_the_readme_names(way, transactional_db, settings, tmp_path):
    """Each command answers /api/health/, a bot's authenticated list of its KBs and a posted turn, on the
    database of DATABASE_URL."""
    bot = BotFactory(name="scale")
    KnowledgeBaseFactory(bot=bot, name="notes")
    _, key = key_issue(bot)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}  # the product's own settings
    env.update(
        {
            "DATABASE_URL": database_url(),
            "KBSITE_VAR_DIR": str(tmp_path / "var"),
            "KBSITE_DATA_DIR": str(settings.KBSITE_DATA_DIR),
            "LLM_BASE_URL": "",
            "LLM_MODEL": "",
            "PYTHONUNBUFFERED": "1",
        }
    )
    log = open(tmp_path / "web.log", "w+")  # noqa: SIM115 - closed below
    web = subprocess.Popen(
        [*WAYS[way], f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_for(lambda: web.poll() is not None or _answers(f"{base}/api/health/"), 120, "the web tier")
            assert web.poll() is None, "the web tier stopped"
            assert requests.get(f"{base}/api/health/", timeout=10).json()["status"] == "ok"
            headers = {"Authorization": f"Bearer {key}"}
            listed = requests.get(f"{base}/api/v1/kbs/", headers=headers, timeout=30)
            assert listed.status_code == 200 and [kb["name"] for kb in listed.json()["results"]] == ["notes"]
            turn = {"session_id": "s-1", "messages": [{"external_id": "t1", "content": "I live in Porto."}]}
            posted = requests.post(f"{base}/api/v1/kbs/notes/messages/", json=turn, headers=headers, timeout=30)
            assert posted.status_code == 202 and posted.json()["accepted"] == 1
        except AssertionError:
            log.seek(0)
            print(log.read()[-5000:])
            raise
    finally:
        os.killpg(web.pid, signal.SIGTERM)  # serve stops its gunicorn; gunicorn its workers
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()
        log.close()
