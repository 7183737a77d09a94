"""429s from two web processes sharing one limit: two real web servers (gunicorn, one worker each, the product's own
settings on the test database) hit alternately with one key let through the key's burst plus what refilled while
the requests were sent (in a minute: the limit and the burst), once in all, not once per process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest
import requests

from kbsite.keys import key_issue
from kbsite.models import Bot, RateLimitedDay
from tests.conftest import ROOT, database_url, wait_for
from tests.factories import BotFactory, KnowledgeBaseFactory
from tests.kbsite.test_web_tier import _answers, _free_port

pytestmark = pytest.mark.e2e


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


@pytest.fixture
def two_processes(transactional_db, settings, tmp_path):
    """Two web processes of their own on the test database: their URLs."""
    with ExitStack() as stack:
        yield [web_process(stack, settings, tmp_path, name) for name in ("web-a", "web-b")]


def key_of(per_minute: int) -> tuple[Bot, dict]:
    """A bot with this limit and a KB, and the headers of a key of it."""
    bot = BotFactory(name="shared", requests_per_minute=per_minute)
    KnowledgeBaseFactory(bot=bot, name="notes")
    return bot, {"Authorization": f"Bearer {key_issue(bot)[1]}"}


def hit(urls: list[str], headers: dict, count: int, every: float = 0.0) -> tuple[list[tuple], float]:
    """``count`` requests, to each URL in turn, one every ``every`` seconds (or as fast as they answer): each one's
    URL, status and Retry-After, and the seconds they took."""
    started = time.monotonic()
    answers = []
    for i in range(count):
        if every:
            time.sleep(max(0.0, started + i * every - time.monotonic()))
        response = requests.get(f"{urls[i % len(urls)]}/api/v1/kbs/", headers=headers, timeout=30)
        answers.append((urls[i % len(urls)], response.status_code, response.headers.get("Retry-After")))
    return answers, time.monotonic() - started


def test_two_web_processes_share_one_keys_limit(two_processes):
    """40 requests of one key at once, alternately to two processes: at most the burst plus the tokens refilled
    while they were sent pass (a bucket of each process's own would let through twice the burst and twice the
    refill); every refusal is a 429 with Retry-After, from both processes, and each is counted once for the bot's
    day."""
    bot, headers = key_of(30)  # a burst of 5 (10 s' worth), then one every 2 s
    answers, elapsed = hit(two_processes, headers, 40)
    passed = [answer for answer in answers if answer[1] == 200]
    refused = [answer for answer in answers if answer[1] == 429]
    assert len(passed) + len(refused) == 40, answers
    refilled = int(elapsed * 30 / 60) + 1
    print(f"{len(passed)} of 40 let through in {elapsed:.1f} s (burst {bot.burst}, at most {refilled} refilled)")
    assert bot.burst == 5 and bot.burst <= len(passed) <= bot.burst + refilled, (len(passed), elapsed, answers)
    assert {url for url, _, _ in refused} == set(two_processes)
    assert all(retry and 1 <= int(retry) <= 2 for _, _, retry in refused), refused
    assert RateLimitedDay.objects.get(bot=bot).refused == len(refused)


def test_in_a_minute_two_processes_let_through_the_limit_and_the_burst_once(two_processes):
    """A key at 60 a minute asking 5 times a second for a minute, alternately to two processes: the limit plus the
    burst pass in all (70), not twice that."""
    bot, headers = key_of(60)  # a burst of 10, then one a second
    answers, elapsed = hit(two_processes, headers, 300, every=0.2)
    passed = sum(status == 200 for _, status, _ in answers)
    print(f"{passed} of 300 let through in {elapsed:.1f} s (limit 60 a minute, burst {bot.burst})")
    assert 59 <= elapsed < 75, elapsed  # the last request is sent at 59.8 s
    # Every token is taken as soon as it is back: the burst, and one a second while the minute lasts.
    assert bot.burst + int(elapsed) - 2 <= passed <= bot.burst + int(elapsed) + 1, (passed, elapsed)
    assert {url for url, status, _ in answers if status == 200} == set(two_processes)
