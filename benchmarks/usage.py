"""Recall latency with usage accounting on and off (issue 32): POST /recall/ through the HTTP API of two web tiers
side by side on one database, one with USAGE_ACCOUNTING=true and one with it false, the same LoCoMo questions sent
to each in turn (so that whatever else the machine does weighs on both alike), in two rounds that start the tiers in
either order. The KB holds the turns of LoCoMo's first conversation as memories, embedded by the real model. Kept in
its own database (``kbsite_usage``).
"""

from __future__ import annotations

import statistics
import time

import requests

from benchmarks import harness

QUERIES = 300
WARM_UP = 20


def _kb_filled():
    """The bot ``usage`` and its KB ``chat``, holding LoCoMo's first conversation's turns as embedded memories."""
    from kbsite.models import Bot, KnowledgeBase
    from memories.models import Memory
    from memories.services import memories_embed_missing

    bot, _ = Bot.objects.get_or_create(name="usage")
    kb, _ = KnowledgeBase.objects.get_or_create(bot=bot, name="chat")
    if not Memory.objects.filter(kb=kb).exists():
        sample = harness.locomo()[0]
        turns = [turn for _, _, session in harness.conversation_sessions(sample) for turn in session]
        Memory.objects.bulk_create(
            Memory(kb=kb, text=f"{t['speaker']}: {t['text']}", kind="fact", entities=[t["speaker"].lower()])
            for t in turns
        )
        memories_embed_missing(kb_id=kb.pk)
    return bot, kb


def _timed(url: str, headers: dict, query: str) -> float:
    started = time.perf_counter()
    response = requests.post(url, json={"query": query, "k": 10}, headers=headers, timeout=60)
    took = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.text
    return took


def _report(label: str, latencies: list[float]) -> None:
    ordered = sorted(latencies)
    print(
        f"  {label}: p50 {statistics.median(ordered):.2f} ms, mean {statistics.fmean(ordered):.2f} ms, "
        f"p95 {ordered[int(len(ordered) * 0.95)]:.2f} ms ({len(ordered)} recalls)"
    )


def _round(env: dict, first: str, kb_name: str, headers: dict, questions: list[str]) -> dict[str, list[float]]:
    """One round: two web tiers, the one started first with accounting ``first`` ("on" or "off"), the same questions
    sent to each in turn (neither always first). Returns each one's latencies."""
    products = {}
    try:
        for name in (first, {"on": "off", "off": "on"}[first]):
            accounting = {**env, "USAGE_ACCOUNTING": "true" if name == "on" else "false"}
            products[name] = harness.Product(accounting, web_workers=1, with_workers=False)
        urls = {name: f"{product.url}/api/v1/kbs/{kb_name}/recall/" for name, product in products.items()}
        for name, url in urls.items():
            answer = requests.post(url, json={"query": questions[0]}, headers=headers, timeout=60).json()
            assert ("usage" in answer) == (name == "on"), f"accounting {name}, yet: {answer}"
        for q in questions[:WARM_UP]:
            for url in urls.values():
                _timed(url, headers, q)
        latencies: dict[str, list[float]] = {"on": [], "off": []}
        for n, q in enumerate(questions):
            for name in ("on", "off") if n % 2 == 0 else ("off", "on"):
                latencies[name].append(_timed(urls[name], headers, q))
        return latencies
    finally:
        for product in products.values():
            product.stop()


def run() -> None:
    env = harness.configure("kbsite_usage")
    from django.core.management import call_command

    from memories.models import Memory

    call_command("migrate", interactive=False, verbosity=0)
    bot, kb = _kb_filled()
    headers = {"Authorization": f"Bearer {harness.bench_key(bot)}"}
    questions = [qa["question"] for sample in harness.locomo() for qa in sample["qa"]][:QUERIES]
    # Two rounds, the tiers started in the other order in the second: what differs between two processes (which
    # core, which memory) weighs on both settings alike.
    latencies: dict[str, list[float]] = {"on": [], "off": []}
    pairs: list[float] = []
    for first in ("on", "off"):
        got = _round(env, first, kb.name, headers, questions)
        for name in latencies:
            latencies[name] += got[name]
        pairs += [a - b for a, b in zip(got["on"], got["off"], strict=True)]
    memories = Memory.objects.filter(kb=kb).count()
    print(f"recall through the HTTP API, {memories:,} memories in the KB, usage accounting on and off, interleaved:")
    _report("accounting on ", latencies["on"])
    _report("accounting off", latencies["off"])
    p50 = statistics.median(latencies["on"]) - statistics.median(latencies["off"])
    print(
        f"  on - off: p50 {p50:+.2f} ms, median of paired differences {statistics.median(pairs):+.2f} ms "
        "(target: at most 1 ms apart)"
    )


if __name__ == "__main__":
    run()
