"""Retrieval quality on LoCoMo: ingest the five conversations offline through the API, then ask every
category 1-4 question through the recall endpoint and check whether the evidence turns are among the
sources of what comes back. Figures next to the reference retrievers of shared/eval/README.md."""

from __future__ import annotations

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


def evidence_found(results: list[dict], evidence: set[str]) -> set[str]:
    found = set()
    for result in results:
        for source in result["sources"]:
            if source.get("type") == "message" and source.get("external_id") in evidence:
                found.add(source["external_id"])
    return found


def run(*, ingest_first: bool = True):
    """With ``ingest_first`` false (``python -m benchmarks.recall --reuse``), the KBs the last ingest benchmark left
    in ``kbsite_bench`` are asked again, by a product started without workers."""
    from benchmarks import ingest

    if ingest_first:
        state = ingest.run(keep_running=True)
        product, key = state["product"], state["key"]
    else:
        env = harness.configure("kbsite_bench")
        key = harness.make_bot()
        product = harness.Product(env, with_workers=False)
    headers = {"Authorization": f"Bearer {key}"}
    try:
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

        print(f"\nLoCoMo evidence recall, {len(everything)} questions (categories 1-4), offline ingest:")
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
        print(
            f"recall latency through the API (k=20): p50 {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.1f} ms"
        )
        return {"recall@10": mean(everything, 1), "budget": mean(everything, 3)}
    finally:
        product.stop()


if __name__ == "__main__":
    run(ingest_first="--reuse" not in sys.argv)
