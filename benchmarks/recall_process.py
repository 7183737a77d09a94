"""`python -m benchmarks recall_process`: recall's own cost, in process, without HTTP: LoCoMo's questions asked of the
KBs the ``recall`` (or ``ingest``) benchmark left in ``kbsite_bench``, each question three times, its best time kept
(the machine's noise is most of a single time). Run ``… recall --mode offline`` first; runs only when named.

``--profile`` then runs the questions once more under cProfile and prints where the time goes.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import sys
import time

from benchmarks import harness

QUESTIONS_PER_CONVERSATION = 60
PASSES = 3


def run() -> None:
    harness.configure("kbsite_bench")
    from kbsite.models import KnowledgeBase
    from memories.recall.hybrid import RecallQuery, recall

    kbs = {kb.name: kb for kb in KnowledgeBase.objects.all()}
    questions = [
        (kbs[harness.kb_name(sample)], qa["question"])
        for sample in harness.locomo()
        if harness.kb_name(sample) in kbs
        for qa in sample["qa"][:QUESTIONS_PER_CONVERSATION]
        if qa.get("category") in (1, 2, 3, 4)
    ]
    if not questions:
        raise SystemExit("no LoCoMo KBs in kbsite_bench: run `python -m benchmarks recall --mode offline` first")

    def ask(kb, text):
        return recall(RecallQuery(kbs=(kb,), text=text, k=20))

    for kb, text in questions[:20]:  # warm: the models, the connection, the caches
        ask(kb, text)
    best = [float("inf")] * len(questions)
    for _ in range(PASSES):
        for index, (kb, text) in enumerate(questions):
            started = time.perf_counter()
            ask(kb, text)
            best[index] = min(best[index], (time.perf_counter() - started) * 1000)
    best.sort()
    print(
        f"recall in process, {len(questions)} LoCoMo questions, each one's best of {PASSES}: "
        f"p50 {statistics.median(best):.1f} ms, p95 {best[int(len(best) * 0.95)]:.1f} ms, "
        f"mean {statistics.mean(best):.1f} ms",
        flush=True,
    )
    if "--profile" in sys.argv:
        profile = cProfile.Profile()
        profile.enable()
        for kb, text in questions:
            ask(kb, text)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
