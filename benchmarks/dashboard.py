"""The operators' dashboard (the admin's index) with 1,000,000 memories: p50 / p95 of ``GET /admin/`` for a
logged-in superuser through HTTP (target p95 < 300 ms), for all KBs and for one end user, and what a refresh of
the cached counts costs when it falls due (once every DASHBOARD_CACHE_SECONDS in each web process).

The memories are the users_scale benchmark's (one KB, 10,000 end users, loaded once into `kbsite_users_scale`);
30 days of daily figures and 2,000 job runs are added to it. The admin's main lists are timed too, for the
record: the memories (live, and one end user's), the knowledge bases, the end users and the job runs.
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta

import requests

from benchmarks import harness, users_scale

LOADS = 200


def _history(kb) -> None:
    """30 days of figures and 2,000 job runs (10 of them failed), once."""
    from django.utils import timezone

    from kbsite.models import DailyStat, JobRun

    today = timezone.now().date()
    for days_ago in range(30):
        DailyStat.objects.update_or_create(
            kb=kb,
            day=today - timedelta(days=days_ago),
            defaults={"turns": 5000, "recalls": 20000, "llm_calls": 400, "tokens_in": 900_000, "facts_added": 3000},
        )
    if JobRun.objects.filter(kb=kb).count() < 2000:
        JobRun.objects.bulk_create(
            JobRun(
                kb=kb,
                kind=JobRun.Kind.INGEST_MESSAGES,
                status=JobRun.Status.FAILED if n < 10 else JobRun.Status.SUCCEEDED,
                target=f"session-{n}",
            )
            for n in range(2000)
        )


def _login(url: str, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(f"{url}/admin/login/", timeout=60)
    response = session.post(
        f"{url}/admin/login/",
        data={
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
            "next": "/admin/",
        },
        headers={"Referer": f"{url}/admin/login/"},
        timeout=60,
    )
    assert response.ok and "Dashboard" in response.text, response.text[:500]
    return session


def _timed(session: requests.Session, url: str, n: int) -> list[float]:
    latencies = []
    for _ in range(n):
        started = time.perf_counter()
        response = session.get(url, timeout=120)
        latencies.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text[:500]
    return sorted(latencies)


def _figures(latencies: list[float]) -> str:
    return (
        f"p50 {statistics.median(latencies):.0f} ms, p95 {latencies[int(len(latencies) * 0.95)]:.0f} ms, "
        f"max {latencies[-1]:.0f} ms"
    )


def run():
    env = harness.configure("kbsite_users_scale")
    from django.contrib.auth.models import User
    from django.core.cache import cache

    from kbsite.models import EndUser, KnowledgeBase
    from memories.admin.dashboard import kb_counts
    from memories.models import Memory

    bot, _ = users_scale._prepare(False)
    kb = KnowledgeBase.objects.get(bot=bot, name="users")
    _history(kb)
    total = Memory.objects.count()
    if not User.objects.filter(username="bench-admin").exists():
        User.objects.create_superuser("bench-admin", password="bench-pass")
    refresh = []
    for _ in range(5):
        cache.clear()
        started = time.perf_counter()
        kb_counts()
        refresh.append((time.perf_counter() - started) * 1000)
    user = EndUser.objects.filter(bot=bot).order_by("pk").first()

    product = harness.Product(env, with_workers=False)
    try:
        session = _login(product.url, "bench-admin", "bench-pass")
        everything = _timed(session, f"{product.url}/admin/", LOADS)
        one_user = _timed(session, f"{product.url}/admin/?end_user={user.pk}", LOADS // 4)
        lists = {
            name: _timed(session, f"{product.url}{path}", 20)
            for name, path in (
                ("the memory list (live, the default)", "/admin/memories/memory/"),
                ("one end user's memories", f"/admin/memories/memory/?end_user__id__exact={user.pk}&status=all"),
                ("the knowledge base list", "/admin/kbsite/knowledgebase/"),
                ("a knowledge base's page", f"/admin/kbsite/knowledgebase/{kb.pk}/change/"),
                ("the end user list", "/admin/kbsite/enduser/"),
                ("the job run list", "/admin/kbsite/jobrun/"),
            )
        }
    finally:
        product.stop()
    print(
        f"dashboard, {total:,} memories, {LOADS} loads through HTTP: {_figures(everything)} (target p95 < 300 ms; "
        f"the first load of each web process counts anew)"
    )
    print(f"dashboard of one end user, {LOADS // 4} loads: {_figures(one_user)}")
    print(
        f"a refresh of the cached counts (every DASHBOARD_CACHE_SECONDS per web process): "
        f"median {statistics.median(refresh):.0f} ms of 5"
    )
    for name, latencies in lists.items():
        print(f"admin: {name}, 20 loads: {_figures(latencies)}")


if __name__ == "__main__":
    run()
