"""Recall latency at scale: p50/p95 of POST /recall/ through the HTTP API with 100,000 memories in the
queried KB and 1,000,000 in the database.

Memories are synthetic (Zipf-distributed words, random unit vectors: computing real embeddings for a
million texts would take hours on this machine); the queries are LoCoMo questions embedded by the real
model inside the product. The data is loaded once with COPY and kept in its own database
(`kbsite_latency`), so later runs skip the load; `--reload` forces it.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import requests

from benchmarks import harness
from kbsite.ai.vectors import vector_cursor

TOTAL = 1_000_000
QUERIED_KB = 100_000
KBS = 10
CHUNK = 50_000
QUERIES = 300


def _vocabulary(rng) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "do", "ge", "hu", "ji", "qu", "xi"]
    words = {"".join(rng.choice(syllables, size=rng.integers(2, 4))) for _ in range(12000)}
    common = (
        "garden trip dinner music concert book painting school family friend dog cat travel camping "
        "beach mountain job interview cooking recipe guitar piano movie birthday wedding"
    ).split()
    return common + sorted(words)


def _load(kb_ids: list[int]) -> float:
    from django.db import transaction

    from memories.ingest import bulk

    rng = np.random.default_rng(7)
    vocab = np.array(_vocabulary(rng))
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    names = ["Caroline", "Melanie", "Jon", "Gina", "Nate", "Joanna", "Tim", "John", "Maria", "Audrey"]
    started = time.perf_counter()
    plan = [kb_ids[0]] * QUERIED_KB + [kb for kb in kb_ids[1:] for _ in range((TOTAL - QUERIED_KB) // (KBS - 1))]
    columns = ", ".join(name for name, _ in bulk.MEMORY_COLUMNS if name != "id")
    types = [t for name, t in bulk.MEMORY_COLUMNS if name != "id"]
    from django.utils import timezone

    now = timezone.now()
    with harness.indexes_dropped("indexname IN ('memory_embedding_hnsw', 'memory_fts_gin', 'memory_entities_gin')"):
        for offset in range(0, len(plan), CHUNK):
            kbs = plan[offset : offset + CHUNK]
            vectors = rng.standard_normal((len(kbs), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            lengths = rng.integers(8, 22, size=len(kbs))
            words = rng.choice(vocab, size=int(lengths.sum()), p=weights)
            speakers = rng.choice(names, size=len(kbs))
            with transaction.atomic(), vector_cursor() as cursor:
                with cursor.copy(f"COPY memories_memory ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(types)
                    position = 0
                    for i, kb in enumerate(kbs):
                        text = f"{speakers[i]}: " + " ".join(words[position : position + lengths[i]]) + "."
                        position += lengths[i]
                        copy.write_row(
                            harness.memory_row(
                                kb_id=kb,
                                text=text,
                                entities=[speakers[i].lower()],
                                embedding=vectors[i],
                                in_vector_index=True,  # every KB here is far past VECTOR_INDEX_MIN_MEMORIES
                                content_hash=f"{offset + i:064d}",
                                valid_from=now,
                                created_at=now,
                                updated_at=now,
                            )
                        )
            print(f"  loaded {offset + len(kbs):,} memories ({time.perf_counter() - started:.0f}s)", flush=True)
    return time.perf_counter() - started


def _prewarm() -> None:
    """Load the memory indexes into shared buffers, as they are on a server that has been answering recalls.

    The embedded server stops when its last client exits, so every benchmark run starts it cold.
    """
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        for relation in ("memory_embedding_hnsw", "memory_fts_gin", "memory_kb_recent"):
            cursor.execute("SELECT pg_prewarm(%s)", [relation])
    print(f"  indexes loaded into shared buffers in {time.perf_counter() - started:.0f}s", flush=True)


def run(reload: bool = False):
    env = harness.configure("kbsite_latency")
    from django.core.management import call_command
    from django.db import connection

    from kbsite.models import Bot, KnowledgeBase
    from memories.models import Memory

    with connection.cursor() as cursor:
        # A migration that rebuilds the vector index over the million memories took 32 minutes with this
        # memory; with the server's default (64 MB) it takes many times longer.
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
    call_command("migrate", interactive=False, verbosity=0)
    bot, _ = Bot.objects.get_or_create(name="latency")
    if reload or Memory.objects.count() < TOTAL:
        call_command("flush", interactive=False, verbosity=0)
        bot = Bot.objects.create(name="latency")
        others = [Bot.objects.create(name=f"other-{i}") for i in range(KBS - 1)]
        kbs = [KnowledgeBase.objects.create(bot=bot, name="big")]
        kbs += [KnowledgeBase.objects.create(bot=b, name="kb") for b in others]
        KnowledgeBase.objects.filter(pk__in=[kb.pk for kb in kbs]).update(vector_index=True)
        print(f"loading {TOTAL:,} synthetic memories ({QUERIED_KB:,} in the queried KB)...", flush=True)
        took = _load([kb.pk for kb in kbs])
        print(f"loading took {took:.0f}s (COPY + index builds)")
    key = harness.bench_key(bot)
    total = Memory.objects.count()
    in_kb = Memory.objects.filter(kb__bot=bot, kb__name="big").count()
    # What the ingest jobs of a KB this large keep up to date (word statistics for the full-text ranking).
    from memories.services import kb_term_stats_refresh_if_due

    kb_term_stats_refresh_if_due(kb=KnowledgeBase.objects.get(bot=bot, name="big"))
    _prewarm()
    product = harness.Product(env, with_workers=False)
    try:
        headers = {"Authorization": f"Bearer {key}"}
        questions = [qa["question"] for sample in harness.locomo() for qa in sample["qa"]][:QUERIES]
        for q in questions[:20]:  # warm up every web worker (model load, kernel preparation)
            requests.post(
                f"{product.url}/api/v1/kbs/big/recall/", json={"query": q, "k": 10}, headers=headers, timeout=120
            )
        # The synthetic texts share no informative word with LoCoMo's questions under the full-text list's
        # cap (their English words are in most memories), so the questions alone leave that list empty. The
        # second set adds to each question two words of the texts' own vocabulary, of ranks 150 to 5,000
        # (each in about 30 to 1,000 of the KB's memories), so that the full-text list ranks rows too.
        rng = np.random.default_rng(11)
        vocab = _vocabulary(np.random.default_rng(7))  # the vocabulary _load drew the texts from
        worded = [f"{q} {' '.join(rng.choice(vocab[150:5000], size=2))}" for q in questions]
        for label, queries in (("LoCoMo questions", questions), ("questions + 2 words of the texts", worded)):
            latencies = []
            for q in queries:
                started = time.perf_counter()
                response = requests.post(
                    f"{product.url}/api/v1/kbs/big/recall/",
                    json={"query": q, "k": 10, "budget_chars": 2000},
                    headers=headers,
                    timeout=60,
                )
                latencies.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
            latencies.sort()
            print(
                f"recall through the HTTP API, {in_kb:,} memories in the KB, {total:,} in the database, "
                f"{len(latencies)} {label}: p50 {statistics.median(latencies):.1f} ms, "
                f"p95 {latencies[int(len(latencies) * 0.95)]:.1f} ms, max {latencies[-1]:.1f} ms "
                "(target p95 < 50 ms)"
            )
    finally:
        product.stop()


if __name__ == "__main__":
    run(reload="--reload" in sys.argv)
