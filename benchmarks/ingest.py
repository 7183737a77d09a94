"""Ingest throughput: LoCoMo turns posted through the API in offline mode, end to end
(HTTP post → queued job → heuristic extraction → batched embeddings → stored), against the
raw embedding throughput of the same model on the same machine.

The machine is shared and its speed drifts by 5-15 % over minutes, so the two are measured in turns:
each round embeds the turns raw in every layout, then posts them end to end, and the best round of
each is compared (the model stays loaded in the raw processes between their rounds).

``--languages`` measures instead what a second, multilingual vector costs at ingest (MULTILINGUAL_VECTORS: a
memory in a language other than English is embedded by multilingual-e5-small too): the language benchmark's cases
(benchmarks/language_cases/: the same 16 end users' chat in Spanish, German, French and Portuguese, and in English)
posted end to end, each language in its own KBs, in turns, with the setting on and off. Only figures are printed.

    python -m benchmarks ingest
    python -m benchmarks ingest --languages
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path

from benchmarks import harness

ROUNDS = 3


def _embed_rounds(texts: list[str], threads: int, barrier, commands, spans) -> None:
    """One raw embedding process: load and warm the model, then embed ``texts`` at each command, in step
    with the other processes of its layout, reporting each round's (start, end) on the monotonic clock."""
    import django
    from django.conf import settings

    django.setup()
    settings.EMBEDDING_THREADS = threads
    from kbsite.ai.embeddings import LocalEmbedder

    embedder = LocalEmbedder()
    embedder.warm_up()
    spans.put(None)  # ready
    while commands.get():
        barrier.wait()
        started = time.monotonic()
        embedder.embed(texts)
        spans.put((started, time.monotonic()))


class RawLayout:
    """``processes`` processes of ``threads`` threads each, embedding their share of the texts in batches of
    EMBEDDING_BATCH_SIZE, one round at a time."""

    def __init__(self, texts: list[str], processes: int, threads: int):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self.texts, self.processes, self.threads = texts, processes, threads
        barrier, self.spans = context.Barrier(processes), context.Queue()
        self.commands = [context.Queue() for _ in range(processes)]
        shares = [texts[i::processes] for i in range(processes)]  # the same mix of lengths in each share
        self.children = [
            context.Process(target=_embed_rounds, args=(share, threads, barrier, queue, self.spans), daemon=True)
            for share, queue in zip(shares, self.commands, strict=True)
        ]
        for child in self.children:
            child.start()
        for _ in self.children:
            self.spans.get()

    def round(self) -> float:
        """Texts per second over one round."""
        for queue in self.commands:
            queue.put(True)
        spans = [self.spans.get() for _ in self.children]
        return len(self.texts) / (max(e for _, e in spans) - min(s for s, _ in spans))

    def stop(self) -> None:
        for queue in self.commands:
            queue.put(False)
        for child in self.children:
            child.join(timeout=30)

    def __str__(self) -> str:
        return f"{self.processes} process(es) x {self.threads} thread(s)"


def _warm_up_product(product, key: str, workers: int) -> None:
    """Every worker has loaded the model, and the API and the job path have run once."""
    harness.warm_up_workers(workers)
    warm = {
        "sample_id": "warmup",
        "conversation": {
            "session_1_date_time": "1:00 pm on 1 January, 2023",
            "session_1": [
                {"speaker": "W", "dia_id": f"W:{i}", "text": f"I am warming up worker number {i} today."}
                for i in range(4)
            ],
        },
    }
    harness.post_conversation(product.url, key, warm)
    warm["conversation"]["session_2_date_time"] = "1:00 pm on 2 January, 2023"
    warm["conversation"]["session_2"] = [{"speaker": "W", "dia_id": "W:9", "text": "I am still warming up here."}]
    harness.post_conversation(product.url, key, warm)
    harness.wait_until_processed()


def _end_to_end_round(product, key: str, data: list[dict], copy: int) -> tuple[float, str]:
    """Post the conversations into KBs of their own (``copy``) and wait until every turn is processed.
    Returns messages per second and a line on where the time and the CPU went."""
    cpu_before = harness.cpu_seconds_by_role()
    started = time.perf_counter()
    posted = sum(harness.post_conversation(product.url, key, sample, copy) for sample in data)
    post_done = time.perf_counter() - started
    harness.wait_until_processed()
    elapsed = time.perf_counter() - started
    cpu_after = harness.cpu_seconds_by_role()
    used = {role: cpu_after.get(role, 0) - cpu_before.get(role, 0) for role in cpu_after}
    cores = os.cpu_count() or 1
    return posted / elapsed, (
        f"posted {posted} turns in {post_done:.1f}s, all processed after {elapsed:.1f}s; CPU seconds: "
        + ", ".join(f"{r} {v:.1f}" for r, v in sorted(used.items()))
        + f" (wall {elapsed:.1f}s x {cores} cores = {elapsed * cores:.1f})"
    )


def run(*, keep_running: bool = False):
    if "--languages" in sys.argv:
        return run_languages()
    env = harness.configure("kbsite_bench")
    harness.reset_database()
    data = harness.locomo()
    texts = [
        f"{t['speaker']}: {t['text']}"
        for sample in data
        for _, _, turns in harness.conversation_sessions(sample)
        for t in turns
    ]
    cores = os.cpu_count() or 1
    # Raw throughput is the best this machine gives the model alone: one process on every core, or
    # one single-threaded process per core (what the product's default workers are).
    layouts = [RawLayout(texts, p, t) for p, t in sorted({(1, cores), (cores, 1)})]
    product = harness.Product(env)
    raw_rates: dict[str, list[float]] = {str(layout): [] for layout in layouts}
    rates: list[float] = []
    try:
        key = harness.make_bot()
        _warm_up_product(product, key, int(env["WORKERS"]))
        for n in range(ROUNDS):
            # The product's processes stay up, idle, while the raw layouts embed.
            idle_before = sum(harness.cpu_seconds_by_role().values())
            for layout in layouts:
                raw_rates[str(layout)].append(layout.round())
            idle_cpu = sum(harness.cpu_seconds_by_role().values()) - idle_before
            rate, detail = _end_to_end_round(product, key, data, n)
            rates.append(rate)
            best_raw = max(r[-1] for r in raw_rates.values())
            print(
                f"round {n + 1}: raw "
                + ", ".join(f"{name} {r[-1]:.1f}" for name, r in raw_rates.items())
                + f" texts/s (the idle product used {idle_cpu:.2f} CPU-s meanwhile); end to end {rate:.1f} "
                f"messages/s ({rate / best_raw:.0%} of this round's raw): {detail}",
                flush=True,
            )
    finally:
        for layout in layouts:
            layout.stop()
        if not keep_running or not rates:
            product.stop()

    best = {name: max(r) for name, r in raw_rates.items()}
    for name, rate in best.items():
        print(f"raw embedding throughput (all-MiniLM-L6-v2, {name}), best of {ROUNDS} rounds: {rate:.1f} texts/s")
    raw = max(best.values())
    print(f"raw embedding throughput, best layout: {raw:.1f} texts/s over {len(texts)} turns")
    e2e = max(rates)
    print(
        f"end-to-end ingest throughput (offline mode, {env['WORKERS']} workers), best of {ROUNDS} rounds as for "
        f"raw: {e2e:.1f} messages/s (rounds: {', '.join(f'{r:.1f}' for r in rates)})"
    )
    one_process, median = best[str(layouts[0])], sorted(rates)[len(rates) // 2]
    print(
        f"end-to-end / raw embedding: {e2e / raw:.0%} of the best layout (target >= 80%; the median round "
        f"{median / raw:.0%}), {e2e / one_process:.0%} of one process on {cores} cores"
    )
    from memories.models import Memory

    names = [harness.kb_name(sample) for sample in data]
    print(
        f"memories stored per round: {Memory.objects.filter(kb__name__in=names).count()}, "
        f"failed jobs: {harness.failed_jobs()}"
    )
    return {"raw": raw, "e2e": e2e, "product": product if keep_running else None, "key": key}


LANGUAGE_CASES = Path(__file__).with_name("language_cases")
LANGUAGES = ("en", "es", "de", "fr", "pt")


def language_samples(code: str) -> list[dict]:
    """The language benchmark's cases in ``code`` as conversations to post: an end user's sessions each, the bot's
    turns as the assistant's."""
    cases = json.loads((LANGUAGE_CASES / f"{code}.json").read_text())
    samples = []
    for user in cases["users"]:
        conversation = {}
        for n, session in enumerate(user["sessions"], 1):
            when = datetime.fromisoformat(session["date"].replace("Z", "+00:00"))
            conversation[f"session_{n}_date_time"] = when.strftime("%I:%M %p on %d %B, %Y")
            conversation[f"session_{n}"] = [
                {
                    "dia_id": f"{user['user_id']}:{n}:{i}",
                    "role": turn["role"],
                    "speaker": user["speaker"] if turn["role"] == "user" else "",
                    "text": turn["text"],
                }
                for i, turn in enumerate(session["turns"])
            ]
        samples.append(
            {"sample_id": f"{code}-{user['user_id']}", "user_id": user["user_id"], "conversation": conversation}
        )
    return samples


def run_languages() -> dict:
    """Each language's cases posted end to end with MULTILINGUAL_VECTORS on and off, ROUNDS rounds each in turn;
    the best round of each printed, in messages per second."""
    env = harness.configure("kbsite_bench")
    harness.reset_database()
    samples = {code: language_samples(code) for code in LANGUAGES}
    rates: dict[tuple[str, str], list[float]] = {}
    for setting in ("true", "false"):
        product = harness.Product(env | {"MULTILINGUAL_VECTORS": setting})
        try:
            key = harness.make_bot(f"bench-{setting}")
            harness.warm_up_workers(int(env["WORKERS"]), multilingual=True)
            for code in LANGUAGES:  # the job path run once in each language
                harness.post_conversation(product.url, key, samples[code][0], copy=99)
            harness.wait_until_processed()
            for n in range(ROUNDS):
                for code in LANGUAGES:
                    rate, detail = _end_to_end_round(product, key, samples[code], n + (10 if setting == "true" else 20))
                    rates.setdefault((code, setting), []).append(rate)
                    print(
                        f"MULTILINGUAL_VECTORS={setting} round {n + 1} {code}: {rate:.1f} messages/s: {detail}",
                        flush=True,
                    )
        finally:
            product.stop()
    from memories.models import Memory

    print(f"\nend-to-end ingest (offline, {env['WORKERS']} workers), best of {ROUNDS} rounds, messages/s:")
    print(f"{'language':10} {'turns':>6} {'second vector on':>17} {'off':>7} {'on / off':>9} {'e5 vectors':>11}")
    for code in LANGUAGES:
        on, off = max(rates[(code, "true")]), max(rates[(code, "false")])
        turns = sum(len(t) for s in samples[code] for _, _, t in harness.conversation_sessions(s))
        vectors = Memory.objects.filter(
            kb__name__startswith=f"locomo-{code}-", multilingual_embedding__isnull=False
        ).count()
        print(f"{code:10} {turns:>6} {on:>17.1f} {off:>7.1f} {on / off:>9.0%} {vectors:>11}")
    print(f"failed jobs: {harness.failed_jobs()}")
    return {key: max(value) for key, value in rates.items()}


if __name__ == "__main__":
    run()
