"""Recall for one end user at scale: p50/p95 of POST /recall/ with ``user_id`` through the HTTP API, in a KB of
1,000,000 memories spread over 10,000 end users (100 each), and the time the load took.

Memories are synthetic, as in the latency benchmark (Zipf-distributed words, random unit vectors); the queries are
LoCoMo questions with two words of the texts' vocabulary, each asked for a random user. An end user's memories are
never in the HNSW index (recall compares a user's few rows exactly), so the load builds no vector index: only the
full-text index and the B-trees. Loaded once into its own database (`kbsite_users_scale`); `--reload` forces it.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import requests

from benchmarks import harness
from benchmarks.latency import _vocabulary
from kbsite.ai.vectors import vector_cursor

TOTAL = 1_000_000
USERS = 10_000
CHUNK = 50_000
QUERIES = 300
# Indexes rebuilt after the COPY rather than kept up to date row by row.
REBUILT = ("memory_fts_gin", "memory_entities_gin", "memory_kb_user_exact", "memory_kb_recent", "memory_kb_hash")


def _load(kb_id: int, user_ids: list[int]) -> float:
    from django.db import transaction
    from django.utils import timezone

    from memories.ingest import bulk

    rng = np.random.default_rng(5)
    vocab = np.array(_vocabulary(np.random.default_rng(7)))
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    started = time.perf_counter()
    owners = np.repeat(np.array(user_ids), TOTAL // len(user_ids))
    rng.shuffle(owners)  # users' memories arrive interleaved, as they would from many conversations
    columns = ", ".join(name for name, _ in bulk.MEMORY_COLUMNS if name != "id")
    types = [t for name, t in bulk.MEMORY_COLUMNS if name != "id"]
    now = timezone.now()
    with harness.indexes_dropped(
        "indexname = ANY(%s) OR indexname LIKE 'memories_memory_end_user_id%%'", [list(REBUILT)]
    ):
        for offset in range(0, TOTAL, CHUNK):
            chunk = owners[offset : offset + CHUNK]
            vectors = rng.standard_normal((len(chunk), 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            lengths = rng.integers(8, 22, size=len(chunk))
            words = rng.choice(vocab, size=int(lengths.sum()), p=weights)
            with transaction.atomic(), vector_cursor() as cursor:
                with cursor.copy(f"COPY memories_memory ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(types)
                    position = 0
                    for i, owner in enumerate(chunk):
                        text = "User: " + " ".join(words[position : position + lengths[i]]) + "."
                        position += lengths[i]
                        copy.write_row(
                            harness.memory_row(
                                kb_id=kb_id,
                                end_user_id=int(owner),
                                text=text,
                                embedding=vectors[i],
                                content_hash=f"{offset + i:064d}",
                                valid_from=now,
                                created_at=now,
                                updated_at=now,
                            )
                        )
            print(f"  loaded {offset + len(chunk):,} memories ({time.perf_counter() - started:.0f}s)", flush=True)
    return time.perf_counter() - started


def _prepare(reload: bool) -> tuple:
    from django.core.management import call_command

    from kbsite.models import Bot, EndUser, KnowledgeBase
    from memories.models import Memory

    call_command("migrate", interactive=False, verbosity=0)
    bot = Bot.objects.filter(name="scale").first()
    if reload or bot is None or Memory.objects.count() < TOTAL:
        call_command("flush", interactive=False, verbosity=0)
        bot = Bot.objects.create(name="scale")
        kb = KnowledgeBase.objects.create(bot=bot, name="users")
        EndUser.objects.bulk_create(EndUser(bot=bot, external_id=f"user-{n:05d}") for n in range(USERS))
        users = list(EndUser.objects.filter(bot=bot).values_list("pk", flat=True))
        print(f"loading {TOTAL:,} synthetic memories of {USERS:,} end users into one KB...", flush=True)
        took = _load(kb.pk, users)
        print(f"loading took {took:.0f}s (COPY and index builds; no vector index is built)")
    return bot, harness.bench_key(bot)


def _prewarm() -> None:
    """Load the memory table and the indexes recall reads into shared buffers, as they are on a server that has been
    answering recalls (the embedded server stops when its last client exits, so every run starts it cold)."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        cursor.execute(
            "SELECT pg_prewarm(c.oid) FROM pg_class c WHERE c.relname IN ('memories_memory', 'memory_fts_gin', "
            "'memory_kb_user_exact') OR c.relname LIKE 'memories_memory_end_user_id%%'"
        )
        loaded = sum(row[0] for row in cursor.fetchall())
    print(
        f"  memory table and indexes loaded into shared buffers ({loaded * 8 // 1024:,} MB) in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )


def run(reload: bool = False):
    env = harness.configure("kbsite_users_scale")
    from kbsite.models import EndUser
    from memories.models import Memory

    bot, key = _prepare(reload)
    total = Memory.objects.filter(kb__bot=bot).count()
    users = list(EndUser.objects.filter(bot=bot).values_list("external_id", flat=True))
    _prewarm()
    product = harness.Product(env, with_workers=False)
    try:
        headers = {"Authorization": f"Bearer {key}"}
        rng = np.random.default_rng(11)
        vocab = _vocabulary(np.random.default_rng(7))
        questions = [qa["question"] for sample in harness.locomo() for qa in sample["qa"]][:QUERIES]
        queries = [(f"{q} {' '.join(rng.choice(vocab[150:5000], size=2))}", rng.choice(users)) for q in questions]
        url = f"{product.url}/api/v1/kbs/users/recall/"
        for q, user in queries[:20]:  # warm up every web worker (model load, kernel preparation)
            requests.post(url, json={"query": q, "k": 10, "user_id": user}, headers=headers, timeout=120)
        latencies, foreign, returned = [], 0, 0
        for q, user in queries:
            started = time.perf_counter()
            response = requests.post(
                url, json={"query": q, "k": 10, "budget_chars": 2000, "user_id": user}, headers=headers, timeout=60
            )
            latencies.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
            ids = [hit["id"] for hit in response.json()["results"] if hit["type"] == "memory"]
            owners = Memory.objects.filter(pk__in=ids).values_list("end_user__external_id", flat=True)
            foreign += sum(1 for owner in owners if owner != user)
            returned += len(ids)
        latencies.sort()
        print(
            f"recall for one end user through the HTTP API, {total:,} memories of {len(users):,} users in the KB, "
            f"{len(latencies)} queries: p50 {statistics.median(latencies):.1f} ms, "
            f"p95 {latencies[int(len(latencies) * 0.95)]:.1f} ms, max {latencies[-1]:.1f} ms (target p95 < 50 ms); "
            f"{returned:,} memories returned, {foreign} of another user"
        )
    finally:
        product.stop()


if __name__ == "__main__":
    run(reload="--reload" in sys.argv)
