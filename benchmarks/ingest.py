"""Ingest throughput: LoCoMo turns posted through the API in offline mode, end to end
(HTTP post → queued job → heuristic extraction → batched embeddings → stored), against the
raw embedding throughput of the same model on the same machine."""

from __future__ import annotations

import os
import time

from benchmarks import harness


def _embed_rounds(texts: list[str], threads: int, barrier, spans) -> None:
    """One embedding process: load and warm the model, then embed ``texts`` once per round, in step
    with the other processes, reporting each round's (start, end) on the shared monotonic clock."""
    import django
    from django.conf import settings

    django.setup()
    settings.EMBEDDING_THREADS = threads
    from memories.embeddings import LocalEmbedder

    embedder = LocalEmbedder()
    embedder.warm_up()
    for _ in range(ROUNDS):
        barrier.wait()
        started = time.monotonic()
        embedder.embed(texts)
        spans.put((started, time.monotonic()))


ROUNDS = 3  # this machine is shared and noisy: keep the best round (of raw and of end to end alike)


def raw_embedding_throughput(texts: list[str], processes: int, threads: int) -> float:
    """Texts per second through the local model alone: ``processes`` processes of ``threads`` threads
    each embed their share, in batches of EMBEDDING_BATCH_SIZE; the best of ROUNDS rounds."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier, spans = context.Barrier(processes), context.Queue()
    shares = [texts[i::processes] for i in range(processes)]  # the same mix of lengths in each share
    children = [context.Process(target=_embed_rounds, args=(share, threads, barrier, spans)) for share in shares]
    for child in children:
        child.start()
    rounds = [[spans.get() for _ in children] for _ in range(ROUNDS)]
    for child in children:
        child.join()
    return max(len(texts) / (max(e for _, e in r) - min(s for s, _ in r)) for r in rounds)


def run(*, keep_running: bool = False):
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
    layouts = {(1, cores), (cores, 1)}
    measured = {(p, t): raw_embedding_throughput(texts, p, t) for p, t in sorted(layouts)}
    for (p, t), rate in measured.items():
        print(f"raw embedding throughput (all-MiniLM-L6-v2, {p} process(es) x {t} thread(s)): {rate:.1f} texts/s")
    raw = max(measured.values())
    print(f"raw embedding throughput, best layout: {raw:.1f} texts/s over {len(texts)} turns")

    product = harness.Product(env)
    try:
        key = harness.make_bot()
        # Warm-up: every worker has loaded the model, and the API and the job path have run once.
        harness.warm_up_workers(int(env["WORKERS"]))
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

        rates = []
        for copy in range(ROUNDS):
            # Each round posts the conversations into KBs of their own: the same work, measured again.
            cpu_before = harness.cpu_seconds_by_role()
            started = time.perf_counter()
            posted = sum(harness.post_conversation(product.url, key, sample, copy) for sample in data)
            post_done = time.perf_counter() - started
            harness.wait_until_processed()
            elapsed = time.perf_counter() - started
            cpu_after = harness.cpu_seconds_by_role()
            used = {role: cpu_after.get(role, 0) - cpu_before.get(role, 0) for role in cpu_after}
            rates.append(posted / elapsed)
            print(
                f"round {copy + 1}: posted {posted} turns through the API in {post_done:.1f}s; all processed after "
                f"{elapsed:.1f}s: {rates[-1]:.1f} messages/s. CPU seconds: "
                + ", ".join(f"{r} {v:.1f}" for r, v in sorted(used.items()))
                + f" (wall {elapsed:.1f}s x {os.cpu_count()} cores = {elapsed * (os.cpu_count() or 1):.1f})"
            )
        from memories.models import Memory

        e2e = max(rates)
        print(
            f"end-to-end ingest throughput (offline mode, {env['WORKERS']} workers), best of {ROUNDS} rounds "
            f"as for raw: {e2e:.1f} messages/s (rounds: {', '.join(f'{r:.1f}' for r in rates)})"
        )
        one_process, median = measured[(1, cores)], sorted(rates)[len(rates) // 2]
        print(
            f"end-to-end / raw embedding: {e2e / raw:.0%} of the best layout (target >= 80%; the median round "
            f"{median / raw:.0%}), {e2e / one_process:.0%} of one process on {cores} cores"
        )
        names = [harness.kb_name(sample) for sample in data]
        print(
            f"memories stored per round: {Memory.objects.filter(kb__name__in=names).count()}, "
            f"failed jobs: {harness.failed_jobs()}"
        )
        return {"raw": raw, "e2e": e2e, "product": product if keep_running else None, "key": key}
    finally:
        if not keep_running:
            product.stop()


if __name__ == "__main__":
    run()
