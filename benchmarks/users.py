"""End users in one KB: LoCoMo's five conversations posted into one KB as five end users (``user_id`` = the
conversation's id), every question asked with its user, against the same conversations in five KBs of their own.

Prints evidence recall (R@5/10/20, within 2,000 characters) and latency for both, and how many results came from
another user (the target is none). Offline ingest, through the HTTP API, on the real product.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict

import requests

from benchmarks import harness
from benchmarks.recall import CATEGORIES, evidence_found

SHARED_KB = "locomo-users"


def _post_as_user(url: str, headers: dict, sample: dict) -> int:
    """The conversation's sessions as turns of its user in the one shared KB (turn ids prefixed by the
    conversation: a KB's turn ids are unique, and LoCoMo's repeat across conversations)."""
    user, posted = sample["sample_id"], 0
    for session, date, turns in harness.conversation_sessions(sample):
        messages = [
            {"external_id": f"{user}:{t['dia_id']}", "speaker": t["speaker"], "content": t["text"], "created_at": date}
            for t in turns
        ]
        body = {"session_id": f"{user}-{session}", "user_id": user, "messages": messages}
        response = requests.post(f"{url}/api/v1/kbs/{SHARED_KB}/messages/", json=body, headers=headers, timeout=120)
        assert response.status_code == 202, response.text
        posted += len(messages)
    return posted


def _ask(url: str, headers: dict, kb: str, question: str, user: str | None) -> tuple[list, list, float]:
    extra = {"user_id": user} if user else {}
    started = time.perf_counter()
    top = requests.post(
        f"{url}/api/v1/kbs/{kb}/recall/", headers=headers, timeout=60, json={"query": question, "k": 20, **extra}
    ).json()["results"]
    took = time.perf_counter() - started
    budget = requests.post(
        f"{url}/api/v1/kbs/{kb}/recall/",
        headers=headers,
        timeout=60,
        json={"query": question, "k": 100, "budget_chars": 2000, **extra},
    ).json()["results"]
    return top, budget, took


def _scores(top: list, budget: list, evidence: set[str]) -> tuple[float, ...]:
    found = tuple(len(evidence_found(top[:n], evidence)) / len(evidence) for n in (5, 10, 20))
    return found + (len(evidence_found(budget, evidence)) / len(evidence),)


def _foreign(hits_by_user: dict[str, set[tuple[str, int]]]) -> tuple[int, int]:
    """(results owned by another user than the one asking, results checked), read from the database."""
    from memories.models import Insight, Memory

    foreign = checked = 0
    for user, hits in hits_by_user.items():
        for model, kind in ((Memory, "memory"), (Insight, "insight")):
            ids = [pk for t, pk in hits if t == kind]
            owners = model.objects.filter(pk__in=ids).values_list("end_user__external_id", flat=True)
            checked += len(ids)
            foreign += sum(1 for owner in owners if owner != user)
    return foreign, checked


def run():
    env = harness.configure("kbsite_users")
    harness.reset_database()
    key = harness.make_bot()
    headers = {"Authorization": f"Bearer {key}"}
    product = harness.Product(env)
    try:
        harness.warm_up_workers(int(env["WORKERS"]))
        samples = harness.locomo()
        requests.post(f"{product.url}/api/v1/kbs/", json={"name": SHARED_KB}, headers=headers, timeout=60)
        started = time.perf_counter()
        posted = sum(harness.post_conversation(product.url, key, sample) for sample in samples)
        posted += sum(_post_as_user(product.url, headers, sample) for sample in samples)
        harness.wait_until_processed()
        print(f"{posted:,} turns posted and extracted in {time.perf_counter() - started:.0f}s (both layouts)")
        rows: dict[str, list] = defaultdict(list)
        latencies: dict[str, list] = defaultdict(list)
        hits_by_user: dict[str, set] = defaultdict(set)
        for sample in samples:
            user = sample["sample_id"]
            for qa in sample["qa"]:
                evidence = set(qa.get("evidence") or [])
                if qa["category"] not in CATEGORIES or not evidence:
                    continue
                top, budget, took = _ask(product.url, headers, harness.kb_name(sample), qa["question"], None)
                rows["five KBs, one per conversation"].append(_scores(top, budget, evidence))
                latencies["five KBs, one per conversation"].append(took)
                top, budget, took = _ask(product.url, headers, SHARED_KB, qa["question"], user)
                rows["one KB, five users (user_id)"].append(_scores(top, budget, {f"{user}:{e}" for e in evidence}))
                latencies["one KB, five users (user_id)"].append(took)
                hits_by_user[user].update((h["type"], h["id"]) for h in top + budget)
        _report(rows, latencies, _foreign(hits_by_user), harness.failed_jobs())
    finally:
        product.stop()


def _report(rows: dict, latencies: dict, foreign: tuple[int, int], failed: int) -> None:
    count = len(next(iter(rows.values())))
    print(f"\nLoCoMo evidence recall, {count} questions (categories 1-4), offline ingest, asked with k=20:")
    print(f"{'layout':<34} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'2000 chars':>11} {'p50 ms':>8} {'p95 ms':>8}")
    for layout, scores in rows.items():
        means = [sum(s[i] for s in scores) / len(scores) for i in range(4)]
        times = sorted(latencies[layout])
        p50, p95 = statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000
        print(f"{layout:<34} " + " ".join(f"{m:>6.3f}" for m in means[:3]) + f" {means[3]:>11.3f}", end="")
        print(f" {p50:>8.1f} {p95:>8.1f}")
    print(f"results from another user than the one asking: {foreign[0]} of {foreign[1]:,} (target 0)")
    print(f"failed jobs: {failed}")


if __name__ == "__main__":
    run()
