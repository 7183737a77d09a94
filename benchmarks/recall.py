"""Retrieval quality on LoCoMo: ingest the five conversations through the API, then ask every category 1-4 question
through the recall endpoint and check whether the evidence turns are among the sources of what comes back. Figures
next to the reference retrievers of shared/eval/README.md.

Two modes, side by side (each run in a process and a database of its own, one after the other):

- ``offline``: the offline ingest of :mod:`benchmarks.ingest` (heuristic extraction of whole turns), in
  ``kbsite_bench``;
- ``llm``: the product's LLM path (the request, the reply's validation, the apply with dedup and supersession,
  the embeddings) with ``LLM_BASE_URL`` at :mod:`benchmarks.replay_llm`, which answers each extraction with
  LoCoMo's own LLM-written observations of the turns in the batch (``LLM_MODEL=replay``), in ``kbsite_bench_llm``.

``python -m benchmarks recall`` runs both; one of them: ``python -m benchmarks recall --mode llm`` (or
``python -m benchmarks.recall --mode llm``, or ``BENCH_MODES=llm``). ``python -m benchmarks.recall --reuse [--mode
...]`` asks the KBs the last run of that mode left in its database again, by a product started without workers.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import defaultdict

import requests

from benchmarks import harness

REFERENCE = {
    "BM25 (bm25s)": (0.453, 0.528, 0.606, 0.562),
    "all-MiniLM-L6-v2 cosine": (0.408, 0.510, 0.605, 0.560),
    "RRF of the two (k=60)": (0.480, 0.568, 0.627, 0.602),
}
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
LLM_DB = "kbsite_bench_llm"


def evidence_found(results: list[dict], evidence: set[str]) -> set[str]:
    found = set()
    for result in results:
        for source in result["sources"]:
            if source.get("type") == "message" and source.get("external_id") in evidence:
                found.add(source["external_id"])
    return found


def run(*, ingest_first: bool = True, modes: list[str] | None = None) -> dict:
    """Both modes (or ``modes``; by default ``--mode`` or BENCH_MODES), each in a process of its own, then their
    figures side by side. One mode runs here."""
    modes = modes or harness.bench_modes()
    if len(modes) > 1:
        results = harness.modes_apart("benchmarks.recall", modes, [] if ingest_first else ["--reuse"])
        print_side_by_side(results)
        return results
    figures = run_mode(modes[0], ingest_first=ingest_first)
    if path := harness.result_path():
        path.write_text(json.dumps(figures))
    return figures


def run_mode(mode: str, *, ingest_first: bool = True) -> dict:
    """With ``ingest_first`` false (``--reuse``), the KBs the last ingest of this mode left in its database are
    asked again, by a product started without workers."""
    if mode == "llm":
        return _run_llm(ingest_first=ingest_first)
    from benchmarks import ingest

    if ingest_first:
        state = ingest.run(keep_running=True)
        product, key = state["product"], state["key"]
    else:
        env = harness.configure("kbsite_bench")
        key = harness.make_bot()
        product = harness.Product(env, with_workers=False)
    try:
        figures = ask_all(product, key, "offline ingest")
        figures["ingest"] = harness.ingest_totals([harness.kb_name(sample) for sample in harness.locomo()])
        harness.print_ingest_totals(figures["ingest"])
        return figures
    finally:
        product.stop()


def _run_llm(*, ingest_first: bool) -> dict:
    """The conversations posted once (one KB each) to a product in LLM mode whose LLM is the replay endpoint."""
    from benchmarks.replay_llm import ReplayLLM

    data = harness.locomo()
    port = harness.free_port()
    # Django is set up (with the endpoint's address) before the endpoint reads the product's salience gate.
    env = harness.configure(LLM_DB, llm_base_url=f"http://127.0.0.1:{port}/v1" if ingest_first else "")
    replay = ReplayLLM(data, port=port) if ingest_first else None
    try:
        if ingest_first:
            harness.reset_database()
        key = harness.make_bot()
        product = harness.Product(env, with_workers=ingest_first)
        try:
            if ingest_first:
                harness.warm_up_workers(int(env["WORKERS"]))
                started = time.perf_counter()
                posted = sum(harness.post_conversation(product.url, key, sample) for sample in data)
                harness.wait_until_processed_reporting()
                elapsed = time.perf_counter() - started
                print(
                    f"{posted} turns posted and extracted through the LLM path (replayed observations) in "
                    f"{elapsed:.0f}s: {posted / elapsed:.1f} messages/s",
                    flush=True,
                )
            figures = ask_all(product, key, "LLM replay ingest")
            figures["ingest"] = harness.ingest_totals([harness.kb_name(sample) for sample in data])
            harness.print_ingest_totals(figures["ingest"])
            if replay:
                figures["replay"] = replay.stats()
                print("replay endpoint: " + json.dumps(figures["replay"]), flush=True)
            figures["ceiling"] = evidence_ceiling(data)
            print(
                "the most the replay can recall (evidence turns some observation cites): "
                + ", ".join(f"{name} {share:.3f}" for name, share in figures["ceiling"].items()),
                flush=True,
            )
            return figures
        finally:
            product.stop()
    finally:
        if replay:
            replay.close()


def evidence_ceiling(data: list[dict]) -> dict[str, float]:
    """The share of the questions' evidence turns that some LoCoMo observation cites, overall and by category: what
    recall would be in LLM replay mode if every observation that cites an evidence turn were found."""
    shares: dict[str, list[float]] = defaultdict(list)
    for sample in data:
        cited = {
            dia
            for session in sample.get("observation", {}).values()
            for items in session.values()
            for _, source in items
            for dia in ([source] if isinstance(source, str) else source)
        }
        for qa in sample["qa"]:
            evidence = set(qa.get("evidence") or [])
            if qa["category"] in CATEGORIES and evidence:
                share = len(evidence & cited) / len(evidence)
                shares["all"].append(share)
                shares[CATEGORIES[qa["category"]]].append(share)
    return {name: sum(rows) / len(rows) for name, rows in shares.items()}


def ask_all(product, key: str, label: str) -> dict:
    """Every category 1-4 question of each conversation asked of its KB; the figures printed and returned."""
    headers = {"Authorization": f"Bearer {key}"}
    per_category: dict[int, list[tuple[float, float, float, float]]] = defaultdict(list)
    latencies: list[float] = []
    for sample in harness.locomo():
        kb = harness.kb_name(sample)
        for qa in sample["qa"]:
            evidence = set(qa.get("evidence") or [])
            if qa["category"] not in CATEGORIES or not evidence:
                continue
            started = time.perf_counter()
            top = requests.post(
                f"{product.url}/api/v1/kbs/{kb}/recall/",
                headers=headers,
                timeout=60,
                json={"query": qa["question"], "k": 20},
            ).json()["results"]
            latencies.append(time.perf_counter() - started)
            budget = requests.post(
                f"{product.url}/api/v1/kbs/{kb}/recall/",
                headers=headers,
                timeout=60,
                json={"query": qa["question"], "k": 100, "budget_chars": 2000},
            ).json()["results"]
            scores = tuple(len(evidence_found(top[:n], evidence)) / len(evidence) for n in (5, 10, 20))
            scores += (len(evidence_found(budget, evidence)) / len(evidence),)
            per_category[qa["category"]].append(scores)
    everything = [s for rows in per_category.values() for s in rows]

    def mean(rows, i):
        return sum(r[i] for r in rows) / len(rows)

    print(f"\nLoCoMo evidence recall, {len(everything)} questions (categories 1-4), {label}:")
    print(f"{'retriever':<34} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'2000 chars':>11}")
    for name, ref in REFERENCE.items():
        print(f"{name:<34} " + " ".join(f"{v:>6.3f}" for v in ref[:3]) + f" {ref[3]:>11.3f}")
    print(
        f"{'kbsite recall':<34} "
        + " ".join(f"{mean(everything, i):>6.3f}" for i in range(3))
        + f" {mean(everything, 3):>11.3f}"
    )
    for category, rows in sorted(per_category.items()):
        label = f"  category {category} ({CATEGORIES[category]}, n={len(rows)})"
        print(f"{label:<34} " + " ".join(f"{mean(rows, i):>6.3f}" for i in range(3)) + f" {mean(rows, 3):>11.3f}")
    latencies.sort()
    p50, p95 = statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.95)] * 1000
    print(f"recall latency through the API (k=20): p50 {p50:.1f} ms, p95 {p95:.1f} ms", flush=True)
    return {
        "recall@10": mean(everything, 1),
        "budget": mean(everything, 3),
        "questions": len(everything),
        "overall": [mean(everything, i) for i in range(4)],
        "categories": {
            str(c): {"name": CATEGORIES[c], "n": len(rows), "scores": [mean(rows, i) for i in range(4)]}
            for c, rows in sorted(per_category.items())
        },
        "latency_ms": [p50, p95],
    }


def print_side_by_side(results: dict[str, dict]) -> None:
    modes = list(results)
    first = results[modes[0]]
    print(f"\nLoCoMo evidence recall, {first['questions']} questions (categories 1-4), by mode of extraction:")
    head = f"{'':<34}" + "".join(f" | {harness.MODE_LABELS[m]:^31}" for m in modes)
    print(head)
    print(f"{'':<34}" + " | R@5    R@10   R@20   2000 chars" * len(modes))
    rows = [("all", first["questions"], lambda r: r["overall"])]
    for c, cat in first["categories"].items():
        rows.append((f"  category {c} ({cat['name']})", cat["n"], lambda r, c=c: r["categories"][c]["scores"]))
    for name, n, get in rows:
        label = f"{name}, n={n}"
        print(
            f"{label:<34}"
            + "".join(
                " | " + " ".join(f"{v:<6.3f}" for v in get(results[m])[:3]) + f" {get(results[m])[3]:<10.3f}"
                for m in modes
            )
        )
    print(
        f"{'recall latency p50 / p95 (ms)':<34}"
        + "".join(f" | {results[m]['latency_ms'][0]:>6.1f} / {results[m]['latency_ms'][1]:<21.1f}" for m in modes)
    )
    print(
        f"{'memories live / retired':<34}"
        + "".join(
            f" | {results[m]['ingest']['memories']['live']:>6} / {results[m]['ingest']['memories']['retired']:<21}"
            for m in modes
        )
    )


if __name__ == "__main__":
    run(ingest_first="--reuse" not in sys.argv)
