"""`python -m benchmarks growth`: recall and the context block as a KB grows, and recall in LLM mode over a million
turns; p50/p95 through the HTTP API at each size.

**The curve.** One KB whose memories belong to its end users, 100 each: 100,000 memories of 1,000 users, then
1,000,000 of 10,000, then 3,000,000 of 30,000 (steps are cumulative: each adds to what the last loaded). At each
size, LoCoMo questions are asked as one of the users (recall, k=10, 2,000 characters; then the context block).

**Real text.** A user's memories are the LoCoMo facts (``observation``) of one of the five conversations, its two
speakers renamed to the user's own two names; their vectors are the real embeddings of those facts (the pool is
embedded once; a renamed copy is not embedded again). A user's questions are that conversation's questions,
renamed the same way: full text matches their words and names, and the vector list finds their facts.

**LLM mode, 1,000,000 turns.** A second bot's KB holds the turns an LLM-mode extraction embeds: 10,000 users with 90
turns each in their own sessions (900,000, compared exactly per user, as recall compares a user's rows) and
100,000 turns of shared sessions (under the turns' HNSW index), LoCoMo's turns renamed as above, and 10 facts per
user. Its questions are asked as a user: recall ranks turns beside facts. No LLM is called by recall; the web tier
runs with an LLM endpoint configured, as in LLM mode.

Loaded with COPY into its own database (``kbsite_growth``), kept between runs; ``--sizes 100000,1000000`` stops
at a size, ``--reload`` loads again. The HNSW build over the shared turns runs once.
"""

from __future__ import annotations

import re
import statistics
import sys
import time

import numpy as np
import requests

from benchmarks import harness

SIZES = (100_000, 1_000_000, 3_000_000)
PER_USER = 100
CHUNK = 50_000
QUERIES = 200
LLM_USERS = 10_000
LLM_USER_TURNS = 90
LLM_SHARED_TURNS = 100_000
LLM_FACTS = 10
NOISE = 0.02  # added to a pooled vector (then normalised) so that copies are not identical points
TURN_TYPES = ["bigint", "bigint", "varchar", "varchar", "varchar", "text", "varchar", "jsonb", "timestamptz"]
TURN_TYPES += ["timestamptz", "vector", "boolean", "bigint"]
REBUILT = ("memory_fts_gin", "memory_entities_gin", "memory_kb_user_exact", "memory_kb_recent", "memory_kb_hash")
FIRST = [
    "Nora", "Ivan", "Lea", "Omar", "Ada", "Tom", "Zoe", "Raul", "Mia", "Sven", "Ines", "Paul", "Yara", "Kai", "Eva",
    "Luis", "Ana", "Ben", "Ida", "Max", "Lina", "Noah", "Rosa", "Finn", "Alma", "Hugo", "Emma", "Jonas", "Sara",
]  # fmt: skip
LAST = ["Berg", "Costa", "Dahl", "Ertl", "Faro", "Gould", "Holm", "Ibsen", "Jansen", "Kovac", "Lund", "Moreau"]


class Pool:
    """LoCoMo's facts, turns and questions per conversation, with the facts' and turns' real embeddings."""

    def __init__(self):
        from kbsite.ai import embeddings

        self.samples = harness.locomo()
        self.speakers = [(s["conversation"]["speaker_a"], s["conversation"]["speaker_b"]) for s in self.samples]
        self.facts = [
            [fact for facts in s["observation"].values() for items in facts.values() for fact, _ in items]
            for s in self.samples
        ]
        self.turns = [
            [(turn["speaker"], turn["text"]) for _, _, turns in harness.conversation_sessions(s) for turn in turns]
            for s in self.samples
        ]
        self.questions = [[qa["question"] for qa in s["qa"]] for s in self.samples]
        started = time.perf_counter()
        self.fact_vectors = [np.asarray(embeddings.embed(f), dtype=np.float32) for f in self.facts]
        self.turn_vectors = [
            np.asarray(embeddings.embed([text for _, text in t]), dtype=np.float32) for t in self.turns
        ]
        texts = sum(len(f) + len(t) for f, t in zip(self.facts, self.turns, strict=True))
        print(f"  embedded {texts:,} LoCoMo facts and turns in {time.perf_counter() - started:.0f}s", flush=True)

    def names(self, user: int) -> tuple[str, str]:
        """The user's own two names (unique in the first 360 users; full text sees the pair)."""
        return (
            f"{FIRST[user % len(FIRST)]} {LAST[(user // len(FIRST)) % len(LAST)]}",
            f"{FIRST[(user * 7 + 3) % len(FIRST)]}",
        )

    def renamed(self, text: str, conversation: int, user: int) -> str:
        a, b = self.speakers[conversation]
        new_a, new_b = self.names(user)
        return re.sub(rf"\b{re.escape(b)}\b", new_b, re.sub(rf"\b{re.escape(a)}\b", new_a, text))


def _noisy(rng, vector: np.ndarray) -> np.ndarray:
    noisy = vector + rng.standard_normal(vector.shape).astype(np.float32) * NOISE
    return noisy / np.linalg.norm(noisy)


def _memories_load(pool: Pool, kb_id: int, users: list[tuple[int, int]], facts_each: int, seed: int) -> float:
    """COPY ``facts_each`` facts for each (end user id, user number), its indexes rebuilt afterwards."""
    from django.db import transaction
    from django.utils import timezone

    from kbsite.ai.vectors import vector_cursor
    from memories.ingest import bulk

    rng = np.random.default_rng(seed)
    columns = ", ".join(name for name, _ in bulk.MEMORY_COLUMNS if name != "id")
    types = [t for name, t in bulk.MEMORY_COLUMNS if name != "id"]
    now = timezone.now()
    started = time.perf_counter()
    rows = 0
    with harness.indexes_dropped(
        "indexname = ANY(%s) OR indexname LIKE 'memories_memory_end_user_id%%'", [list(REBUILT)]
    ):
        for first in range(0, len(users), CHUNK // facts_each):
            with transaction.atomic(), vector_cursor() as cursor:
                with cursor.copy(f"COPY memories_memory ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(types)
                    for end_user_id, user in users[first : first + CHUNK // facts_each]:
                        conversation = user % len(pool.samples)
                        facts = pool.facts[conversation]
                        for index in rng.choice(len(facts), size=min(facts_each, len(facts)), replace=False):
                            copy.write_row(
                                harness.memory_row(
                                    kb_id=kb_id,
                                    end_user_id=end_user_id,
                                    text=pool.renamed(facts[index], conversation, user),
                                    entities=[name.lower() for name in pool.names(user)],
                                    embedding=_noisy(rng, pool.fact_vectors[conversation][index]),
                                    content_hash=f"{kb_id}-{end_user_id}-{index}",
                                    valid_from=now,
                                    created_at=now,
                                    updated_at=now,
                                )
                            )
                            rows += 1
            print(f"  loaded {rows:,} memories ({time.perf_counter() - started:.0f}s)", flush=True)
    return time.perf_counter() - started


def _users(bot, first: int, count: int) -> list[tuple[int, int]]:
    from kbsite.models import EndUser

    EndUser.objects.bulk_create(
        [EndUser(bot=bot, external_id=f"user-{n:05d}") for n in range(first, first + count)], batch_size=5000
    )
    ids = EndUser.objects.filter(bot=bot).values_list("external_id", "pk")
    return sorted((pk, int(external[5:])) for external, pk in ids if first <= int(external[5:]) < first + count)


def _turns_load(pool: Pool, kb, users: list[tuple[int, int]], seed: int) -> float:
    """Each user's session of LLM_USER_TURNS turns, and LLM_SHARED_TURNS turns of shared sessions (in the HNSW
    index), with their vectors, as an LLM-mode extraction leaves them."""
    from django.db import connection, transaction
    from django.utils import timezone
    from psycopg.types.json import Jsonb

    from kbsite.ai.vectors import vector_cursor
    from memories.models import Session

    rng = np.random.default_rng(seed)
    now = timezone.now()
    started = time.perf_counter()
    Session.objects.bulk_create(
        [Session(kb=kb, external_id=f"s-{user}", end_user_id=pk, created_at=now, updated_at=now) for pk, user in users]
        + [Session(kb=kb, external_id=f"shared-{n}", created_at=now, updated_at=now) for n in range(1000)],
        batch_size=5000,
    )
    sessions = dict(Session.objects.filter(kb=kb).values_list("external_id", "pk"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'message_embedding_hnsw'")
        hnsw = cursor.fetchone()[0]
        cursor.execute("DROP INDEX message_embedding_hnsw")
    columns = "kb_id, session_id, external_id, role, speaker, content, language, metadata, created_at, received_at, "
    columns += "embedding, in_vector_index, end_user_id"
    plan = [(sessions[f"s-{user}"], user, pk, LLM_USER_TURNS) for pk, user in users]
    plan += [(sessions[f"shared-{n}"], n, None, LLM_SHARED_TURNS // 1000) for n in range(1000)]
    rows = 0
    for first in range(0, len(plan), CHUNK // LLM_USER_TURNS):
        with transaction.atomic(), vector_cursor() as cursor:
            with cursor.copy(f"COPY memories_message ({columns}) FROM STDIN WITH (FORMAT BINARY)") as copy:
                copy.set_types(TURN_TYPES)
                for session_id, user, end_user, count in plan[first : first + CHUNK // LLM_USER_TURNS]:
                    conversation = user % len(pool.samples)
                    turns = pool.turns[conversation]
                    start = int(rng.integers(0, len(turns) - count))
                    for n in range(count):
                        speaker, text = turns[start + n]
                        vector = _noisy(rng, pool.turn_vectors[conversation][start + n])
                        copy.write_row(
                            (
                                kb.pk,
                                session_id,
                                f"t{n}",
                                "user",
                                pool.renamed(speaker, conversation, user),
                                pool.renamed(text, conversation, user),
                                "en",
                                Jsonb({}),
                                now,
                                now,
                                vector,
                                end_user is None,  # shared turns are in the HNSW index
                                end_user,
                            )
                        )
                        rows += 1
        if rows % 200_000 < CHUNK:
            print(f"  loaded {rows:,} turns ({time.perf_counter() - started:.0f}s)", flush=True)
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 1")
        built = time.perf_counter()
        cursor.execute(hnsw)
        print(f"  built message_embedding_hnsw over the shared turns in {time.perf_counter() - built:.0f}s", flush=True)
        cursor.execute("ANALYZE memories_message")
        cursor.execute("ANALYZE memories_session")
    return time.perf_counter() - started


def _percentiles(latencies: list[float]) -> str:
    latencies = sorted(latencies)
    return f"p50 {statistics.median(latencies):.1f} ms, p95 {latencies[int(len(latencies) * 0.95)]:.1f} ms"


def _measure(product, key: str, kb: str, pool: Pool, users: list[int], seed: int, label: str) -> None:
    """Recall (k=10, 2,000 characters) and the context block, QUERIES questions each asked as a random user, after
    20 of warm-up; what each found of the user's own facts is checked by name."""
    rng = np.random.default_rng(seed)
    headers = {"Authorization": f"Bearer {key}"}
    asked = []
    for _ in range(QUERIES + 20):
        user = int(rng.choice(users))
        conversation = user % len(pool.samples)
        question = pool.questions[conversation][int(rng.integers(len(pool.questions[conversation])))]
        asked.append((pool.renamed(question, conversation, user), user))
    recalls, contexts, named, cited = [], [], 0, 0
    for n, (question, user) in enumerate(asked):
        user_id = f"user-{user:05d}"
        started = time.perf_counter()
        answer = requests.post(
            f"{product.url}/api/v1/kbs/{kb}/recall/",
            json={"query": question, "k": 10, "budget_chars": 2000, "user_id": user_id},
            headers=headers,
            timeout=60,
        )
        took = (time.perf_counter() - started) * 1000
        assert answer.status_code == 200, answer.text
        if n >= 20:
            recalls.append(took)
            names = pool.names(user)
            named += any(names[0] in hit["text"] or names[1] in hit["text"] for hit in answer.json()["results"])
        started = time.perf_counter()
        answer = requests.get(
            f"{product.url}/api/v1/context/",
            params={"query": question, "user_id": user_id},
            headers=headers,
            timeout=60,
        )
        took = (time.perf_counter() - started) * 1000
        assert answer.status_code == 200, answer.text
        if n >= 20:
            contexts.append(took)
            cited += any(name in answer.json()["context"] for name in pool.names(user))
    print(
        f"{label}: recall {_percentiles(recalls)}; context {_percentiles(contexts)}; "
        f"{named} of {len(recalls)} recalls and {cited} context blocks name the user's own people",
        flush=True,
    )


def _count(sql: str, params=None) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()[0]


def run() -> None:
    """Options: ``--sizes=100000,1000000`` (the steps), ``--reload``, ``--no-llm``."""
    chosen = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--sizes=")), None)
    sizes = tuple(int(size) for size in chosen.split(",")) if chosen else SIZES
    reload, llm = "--reload" in sys.argv, "--no-llm" not in sys.argv
    env = harness.configure("kbsite_growth")
    from django.core.management import call_command

    from kbsite.models import Bot, KnowledgeBase

    call_command("migrate", interactive=False, verbosity=0)
    if reload:
        call_command("flush", interactive=False, verbosity=0)
    bot, _ = Bot.objects.get_or_create(name="growth")
    kb, _ = KnowledgeBase.objects.get_or_create(bot=bot, name="chat")
    KnowledgeBase.objects.filter(pk=kb.pk).update(always_on=True)  # the context block reads it
    key = harness.bench_key(bot)
    pool = Pool()
    for size in sizes:
        users = size // PER_USER
        have = _count("SELECT count(*) FROM kbsite_enduser WHERE bot_id = %s", [bot.pk])
        if have < users:
            print(f"adding {(users - have) * PER_USER:,} memories of {users - have:,} users...", flush=True)
            took = _memories_load(pool, kb.pk, _users(bot, have, users - have), PER_USER, seed=have)
            print(f"  took {took:.0f}s (COPY and index builds; a user's memories are compared exactly)", flush=True)
        in_kb = _count("SELECT count(*) FROM memories_memory WHERE kb_id = %s", [kb.pk])
        total = _count("SELECT count(*) FROM memories_memory")
        product = harness.Product(env, with_workers=False)
        try:
            _measure(product, key, "chat", pool, list(range(users)), seed=size, label=f"{in_kb:,} memories of "
                     f"{users:,} users in the KB ({total:,} in the database)")  # fmt: skip
        finally:
            product.stop()
    if llm:
        _llm_mode(env, pool)


def _llm_mode(env: dict, pool: Pool) -> None:
    from kbsite.models import Bot, KnowledgeBase

    bot, _ = Bot.objects.get_or_create(name="growth-llm")
    kb, _ = KnowledgeBase.objects.get_or_create(bot=bot, name="llm", defaults={"vector_index": True})
    KnowledgeBase.objects.filter(pk=kb.pk).update(vector_index=True, always_on=True)
    key = harness.bench_key(bot)
    if not _count("SELECT count(*) FROM memories_message WHERE kb_id = %s", [kb.pk]):
        users = _users(bot, 0, LLM_USERS)
        print(f"LLM mode: {LLM_USERS * LLM_USER_TURNS + LLM_SHARED_TURNS:,} turns and {LLM_USERS * LLM_FACTS:,} facts",
              flush=True)  # fmt: skip
        _memories_load(pool, kb.pk, users, LLM_FACTS, seed=1)
        took = _turns_load(pool, kb, users, seed=2)
        print(f"  turns took {took:.0f}s", flush=True)
    turns = _count("SELECT count(*) FROM memories_message")
    # An LLM configured, as in LLM mode; recall never calls it (nothing listens there).
    llm = {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "LLM_MODEL": "replay", "LLM_API_KEY": "replay"}
    product = harness.Product({**env, **llm}, with_workers=False)
    try:
        _measure(product, key, "llm", pool, list(range(LLM_USERS)), seed=3, label=f"LLM mode, {turns:,} turns in "
                 f"the database ({LLM_SHARED_TURNS:,} shared, under HNSW)")  # fmt: skip
    finally:
        product.stop()


if __name__ == "__main__":
    run()
