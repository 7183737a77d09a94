"""429s from two web processes sharing one limit: two real web servers (gunicorn, one worker each, the product's own
settings on the test database) hit alternately with one key let through the key's burst plus what refilled while
the requests were sent, once in all, not once per process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest
import requests

from kbsite.models import Bot, RateLimitedDay
from tests.conftest import ROOT, database_url, wait_for
from tests.factories import BotFactory, KnowledgeBaseFactory
from tests.kbsite.test_web_tier import _answers, _free_port

pytestmark = pytest.mark.e2e

PER_MINUTE = 30  # a burst of 5 (10 s' worth), then one every 2 s


def web_process(stack: ExitStack, settings, tmp_path, name: str) -> str:
    """A web server of its own (``gunicorn kbsite.wsgi``, one worker) on the test database; its URL. Stopped when
    ``stack`` closes."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}  # the product's own settings
    env.update(
        {
            "DATABASE_URL": database_url(),
            "KBSITE_VAR_DIR": str(tmp_path / "var"),
            "KBSITE_DATA_DIR": str(settings.KBSITE_DATA_DIR),
            "LLM_BASE_URL": "",
            "LLM_MODEL": "",
        }
    )
    log = stack.enter_context(open(tmp_path / f"{name}.log", "w+"))
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "kbsite.wsgi", "-w", "1", "-b", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )

    def stop():
        os.killpg(web.pid, signal.SIGTERM)
        try:
            web.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()

    stack.callback(stop)
    url = f"http://127.0.0.1:{port}"
    wait_for(lambda: web.poll() is not None or _answers(f"{url}/api/health/"), 120, f"web process {name}")
    assert web.poll() is None, (tmp_path / f"{name}.log").read_text()[-3000:]
    return url


def test_two_web_processes_share_one_keys_limit(transactional_db, settings, tmp_path):
    """40 requests of one key, alternately to two processes: at most the burst plus the tokens refilled while they
    were sent pass (per-process counters would let through twice the burst); every refusal is a 429 with
    Retry-After, from both processes, and each is counted once for the bot's day."""
    bot = BotFactory(name="shared", requests_per_minute=PER_MINUTE)
    KnowledgeBaseFactory(bot=bot, name="notes")
    _, key = bot.issue_key()
    headers = {"Authorization": f"Bearer {key}"}
    with ExitStack() as stack:
        urls = [web_process(stack, settings, tmp_path, name) for name in ("web-a", "web-b")]
        started = time.monotonic()
        answers = []
        for i in range(40):
            url = urls[i % 2]
            response = requests.get(f"{url}/api/v1/kbs/", headers=headers, timeout=30)
            answers.append((url, response.status_code, response.headers.get("Retry-After")))
        elapsed = time.monotonic() - started
    burst = Bot.objects.get(pk=bot.pk).burst
    passed = [answer for answer in answers if answer[1] == 200]
    refused = [answer for answer in answers if answer[1] == 429]
    assert len(passed) + len(refused) == 40, answers
    refilled = int(elapsed * PER_MINUTE / 60) + 1
    # A bucket of each process's own would have let through twice the burst and twice the refill.
    assert burst == 5 and burst <= len(passed) <= burst + refilled, (len(passed), elapsed, answers)
    assert {url for url, _, _ in refused} == set(urls)
    assert all(retry and 1 <= int(retry) <= 2 for _, _, retry in refused), refused
    assert RateLimitedDay.objects.get(bot=bot).refused == len(refused)
