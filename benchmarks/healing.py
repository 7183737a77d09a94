"""`python -m benchmarks healing`: what the jobs' healing costs each minute on a large database: its check for rows
left without their second, multilingual vector (memories.multilingual), and the background batch that gives them.

Two KBs in a database of their own (``kbsite_healing``, kept between runs; ``--reload`` loads again): a large one of
300,000 English memories and a small one of 1,000. Each memory is a copy of one row (the text and vectors do not
matter here: only which rows have which vector). Three states are timed, five runs each, the median printed:

- the large KB asked in Spanish, every memory with its second vector (the steady state: nothing left to do);
- the small KB asked, a third of its memories without theirs, the large one not asked and none of its memories with
  one (an English KB beside a KB being backfilled);
- no KB asked (an English-only deployment).

The batch's time is its selection only: it is timed with no row left to embed, or with the embedder's work left out
(the rows are selected, not embedded).
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from benchmarks import harness

LARGE = 300_000
SMALL = 1_000
RUNS = 5


def _load() -> tuple[int, int]:
    from django.db import connection

    from kbsite.models import Bot, KnowledgeBase
    from memories.models import Memory

    harness.reset_database()
    bot = Bot.objects.create(name="healing")
    large = KnowledgeBase.objects.create(bot=bot, name="large")
    small = KnowledgeBase.objects.create(bot=bot, name="small")
    vector = np.random.default_rng(1).random(384, dtype=np.float32)
    vector /= np.linalg.norm(vector)
    seed = Memory.objects.create(kb=large, text="I live in Lisbon with my two cats.", embedding=vector, language="en")
    columns = [f.column for f in Memory._meta.concrete_fields if f.column not in ("id", "search_vector")]
    listed = ", ".join(columns)
    with connection.cursor() as cursor:
        for kb, count in ((large, LARGE - 1), (small, SMALL)):
            chosen = ", ".join(str(kb.pk) if c == "kb_id" else c for c in columns)
            cursor.execute(
                f"INSERT INTO memories_memory ({listed}) SELECT {chosen} FROM memories_memory, generate_series(1, %s)"
                " WHERE id = %s",
                [count, seed.pk],
            )
    return large.pk, small.pk


def _state(large: int, small: int, asked: list[int], with_vector: str) -> None:
    from django.db import connection

    from kbsite.models import KnowledgeBase

    KnowledgeBase.objects.update(asked_languages=[])
    KnowledgeBase.objects.filter(pk__in=asked).update(asked_languages=["es"])
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE memories_memory SET multilingual_embedding = CASE WHEN {with_vector} THEN embedding END"
        )
        cursor.execute("VACUUM ANALYZE memories_memory")


def _selected() -> int:
    """The batch's selection: the ids the next batch would embed."""
    from django.db import connection

    from memories import multilingual

    for table, without in multilingual.without_second():
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {table} WHERE {without} ORDER BY id LIMIT %s", [multilingual.BATCH_ROWS])
            rows = cursor.fetchall()
        if rows:
            return len(rows)
    return 0


def _timed(function) -> float:
    runs = []
    for _ in range(RUNS):
        started = time.perf_counter()
        function()
        runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(runs)


def run() -> None:
    harness.configure("kbsite_healing")
    from django.core.management import call_command

    from kbsite.models import KnowledgeBase
    from memories import multilingual

    call_command("migrate", interactive=False, verbosity=0)
    kbs = list(KnowledgeBase.objects.filter(name__in=["large", "small"]).order_by("name").values_list("id", flat=True))
    if "--reload" in sys.argv or len(kbs) != 2:
        print(f"  loading {LARGE + SMALL:,} memories…", flush=True)
        large, small = _load()
    else:
        large, small = kbs
    states = [
        ("the large KB asked, all its memories with their second vector", [large], "true"),
        ("the small KB asked, a third of its memories without; the large one not asked", [small],
         f"kb_id = {small} AND id % 3 <> 0"),
        ("no KB asked (English only)", [], "false"),
    ]  # fmt: skip
    print(f"  {'state':<80} {'check':>9} {'batch':>9} {'left':>9}   (median of {RUNS}, ms)")
    for label, asked, with_vector in states:
        _state(large, small, asked, with_vector)
        check = _timed(multilingual.multilingual_due)
        batch = _timed(_selected)
        left = _timed(multilingual.multilingual_left)
        print(f"  {label:<80} {check:>9.1f} {batch:>9.1f} {left:>9.1f}", flush=True)
