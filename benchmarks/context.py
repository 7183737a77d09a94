"""Is the evidence in the context block a bot would get? LoCoMo's five conversations posted as five end users of
one always-on KB (offline ingest); for each question (categories 1-4) the block is asked for as its user would
(``GET /api/v1/context/`` with ``user_id``), once without a session and once with the ``session_id`` of the session
holding the question's evidence: a bot that keeps talking in that session. Prints the share of the evidence turns
that are cited by a memory of the block, for both, and the block's latency.

In two modes of extraction, each in a process and a database of its own (see benchmarks/recall.py): ``offline``
(``kbsite_context``) and ``llm``, the LLM path whose LLM replays LoCoMo's observations (benchmarks/replay_llm.py;
``kbsite_context_llm``). ``python -m benchmarks context --mode llm`` (or BENCH_MODES=llm) runs one.
"""

from __future__ import annotations

import json
import statistics
import time

import requests

from benchmarks import harness
from benchmarks.recall import CATEGORIES

KB = "locomo-context"


def _post(url: str, headers: dict, sample: dict) -> int:
    user, posted = sample["sample_id"], 0
    for session, date, turns in harness.conversation_sessions(sample):
        messages = [
            {"external_id": f"{user}:{t['dia_id']}", "speaker": t["speaker"], "content": t["text"], "created_at": date}
            for t in turns
        ]
        body = {"session_id": _session(user, session), "user_id": user, "messages": messages}
        response = requests.post(f"{url}/api/v1/kbs/{KB}/messages/", json=body, headers=headers, timeout=120)
        assert response.status_code == 202, response.text
        posted += len(messages)
    return posted


def _session(user: str, session_key: str) -> str:
    """The session id of LoCoMo's "session_3" (whose turns are "D3:n") of one conversation."""
    return f"{user}-{session_key}"


def _evidence_session(user: str, evidence: set[str]) -> str:
    dia = sorted(evidence)[0]  # "D3:5"
    return _session(user, f"session_{dia.split(':')[0][1:]}")


def _cited(block: dict, evidence: set[str]) -> float:
    found = set()
    for hit in block.get("profile", []) + block["memories"]:
        for source in hit.get("sources", []):
            if source.get("type") == "message" and source.get("external_id") in evidence:
                found.add(source["external_id"])
    return len(found) / len(evidence)


def run(modes: list[str] | None = None) -> dict:
    """Both modes (or ``modes``; by default ``--mode`` or BENCH_MODES), each in a process of its own."""
    modes = modes or harness.bench_modes()
    if len(modes) > 1:
        results = harness.modes_apart("benchmarks.context", modes)
        count = results[modes[0]]["questions"]
        print(f"\nevidence turns cited by the context block (4,000 characters), {count} questions:")
        print(f"  {'':<28}" + "".join(f" {harness.MODE_LABELS[m]:>12}" for m in modes))
        for name in results[modes[0]]["shares"]:
            print(f"  {name:<28}" + "".join(f" {results[m]['shares'][name]:>12.3f}" for m in modes))
        return results
    figures = run_mode(modes[0])
    if path := harness.result_path():
        path.write_text(json.dumps(figures))
    return figures


def run_mode(mode: str) -> dict:
    replay = None
    if mode == "llm":
        from benchmarks.replay_llm import ReplayLLM

        port = harness.free_port()
        # Django is set up (with the endpoint's address) before the endpoint reads the product's salience gate.
        env = harness.configure("kbsite_context_llm", llm_base_url=f"http://127.0.0.1:{port}/v1")
        replay = ReplayLLM(harness.locomo(), port=port)
    else:
        env = harness.configure("kbsite_context")
    try:
        figures = _measure(env, harness.MODE_LABELS[mode])
        if replay:
            figures["replay"] = replay.stats()
            print("replay endpoint: " + json.dumps(figures["replay"]), flush=True)
        return figures
    finally:
        if replay:
            replay.close()


def _measure(env: dict, label: str) -> dict:
    harness.reset_database()
    key = harness.make_bot()
    headers = {"Authorization": f"Bearer {key}"}
    product = harness.Product(env)
    try:
        harness.warm_up_workers(int(env["WORKERS"]))
        requests.post(f"{product.url}/api/v1/kbs/", json={"name": KB, "always_on": True}, headers=headers, timeout=60)
        samples = harness.locomo()
        posted = sum(_post(product.url, headers, sample) for sample in samples)
        harness.wait_until_processed_reporting()
        product.stop_workers()
        print(f"{posted:,} turns of {len(samples)} users posted and extracted ({label})")
        ingest = harness.ingest_totals([KB])
        harness.print_ingest_totals(ingest)
        found: dict[str, list[float]] = {"without a session": [], "in the evidence's session": []}
        took: list[float] = []
        for sample in samples:
            user = sample["sample_id"]
            for qa in sample["qa"]:
                evidence = {f"{user}:{e}" for e in qa.get("evidence") or []}
                if qa["category"] not in CATEGORIES or not evidence:
                    continue
                for name, extra in (
                    ("without a session", {}),
                    ("in the evidence's session", {"session_id": _evidence_session(user, set(qa["evidence"]))}),
                ):
                    started = time.perf_counter()
                    response = requests.get(
                        f"{product.url}/api/v1/context/",
                        params={"query": qa["question"], "user_id": user, **extra},
                        headers=headers,
                        timeout=60,
                    )
                    took.append(time.perf_counter() - started)
                    assert response.status_code == 200, response.text
                    found[name].append(_cited(response.json(), evidence))
        count = len(found["without a session"])
        print(f"\nevidence turns cited by the context block (4,000 characters), {count} LoCoMo questions ({label}):")
        for name, shares in found.items():
            print(f"  {name:<28} {sum(shares) / len(shares):.3f}")
        times = sorted(took)
        p50, p95 = statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000
        print(f"context block through the API: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
        return {
            "questions": count,
            "shares": {name: sum(shares) / len(shares) for name, shares in found.items()},
            "latency_ms": [p50, p95],
            "ingest": ingest,
        }
    finally:
        product.stop()


if __name__ == "__main__":
    run()
