"""`python -m benchmarks fresh`: recall right after a KB's first ingest, before and after the database analyses it.

A bot recalls first where a history has just arrived. A new KB smaller than a tenth of a table does not trigger
PostgreSQL's autoanalyze, so the planner plans its queries with the table's old statistics, which know nothing of the
new KB. This benchmark:

1. fills a database with other KBs (LoCoMo's other four conversations, three copies each, about 15,000 memories,
   posted through the API and extracted offline), and analyses it, as autoanalyze would have by then;
2. turns autoanalyze off on the tables a new KB fills (as on a large table, where a new KB never reaches a tenth);
3. posts one LoCoMo conversation (about 600 turns) to a new KB, waits until it is extracted, stops the workers;
4. asks its first 60 questions through the API (recall, k=20), twice, and times the second pass ("fresh");
5. runs ANALYZE, asks them again twice and times the second pass ("analysed");

and prints both p50 and p95 and their ratio. Autoanalyze is turned back on at the end.
"""

from __future__ import annotations

import statistics
import time

import requests

from benchmarks import harness

QUESTIONS = 60
OTHER_COPIES = 3
TABLES = ["memories_memory", "memories_message", "memories_memory_source_messages", "memories_session"]


def _sql(statement: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(statement)


def _autoanalyze(on: bool) -> None:
    for table in TABLES:
        _sql(f"ALTER TABLE {table} SET (autovacuum_enabled = {'on' if on else 'off'})")


def _ask(product, key: str, kb: str, questions: list[str]) -> list[float]:
    headers = {"Authorization": f"Bearer {key}"}
    latencies = []
    for question in questions:
        started = time.perf_counter()
        response = requests.post(
            f"{product.url}/api/v1/kbs/{kb}/recall/", headers=headers, timeout=60, json={"query": question, "k": 20}
        )
        latencies.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    return latencies


def _figures(latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    return statistics.median(ordered) * 1000, ordered[int(len(ordered) * 0.95)] * 1000


def _live_memories(kb: str) -> tuple[int, int]:
    from memories.models import Memory

    return Memory.objects.filter(kb__name=kb).live().count(), Memory.objects.live().count()


def run() -> dict:
    env = harness.configure("kbsite_fresh")
    harness.reset_database()
    key = harness.make_bot()
    samples = harness.locomo()
    target, others = samples[0], samples[1:]
    product = harness.Product(env)
    try:
        started = time.perf_counter()
        for copy in range(OTHER_COPIES):
            for sample in others:
                harness.post_conversation(product.url, key, sample, copy=copy + 1)
        harness.wait_until_processed()
        for table in TABLES:
            _sql(f"ANALYZE {table}")
        print(f"other KBs ingested and analysed in {time.perf_counter() - started:.0f}s", flush=True)
        _autoanalyze(False)
        turns = harness.post_conversation(product.url, key, target)
        harness.wait_until_processed()
        product.stop_workers()
        kb = harness.kb_name(target)
        live, everyone = _live_memories(kb)
        print(f"new KB {kb}: {turns} turns, {live} live memories; {everyone} live memories in the database")
        questions = [qa["question"] for qa in target["qa"] if qa["category"] in (1, 2, 3, 4)][:QUESTIONS]
        _ask(product, key, kb, questions)  # the first pass warms the caches; the second is timed
        fresh = _figures(_ask(product, key, kb, questions))
        for table in TABLES:
            _sql(f"ANALYZE {table}")
        _ask(product, key, kb, questions)
        analysed = _figures(_ask(product, key, kb, questions))
    finally:
        _autoanalyze(True)
        product.stop()
    print(f"\nRecall through the API right after a KB's first ingest, {len(questions)} questions (k=20):")
    print(f"{'statistics':<12} {'p50 ms':>8} {'p95 ms':>8}")
    print(f"{'fresh':<12} {fresh[0]:>8.1f} {fresh[1]:>8.1f}")
    print(f"{'analysed':<12} {analysed[0]:>8.1f} {analysed[1]:>8.1f}")
    print(f"fresh / analysed: p50 {fresh[0] / analysed[0]:.2f}x, p95 {fresh[1] / analysed[1]:.2f}x", flush=True)
    return {"fresh_ms": fresh, "analysed_ms": analysed, "turns": turns, "live": live, "database_live": everyone}


if __name__ == "__main__":
    run()
