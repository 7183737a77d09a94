"""Is the evidence in the context block a bot would get? LoCoMo's five conversations posted as five end users of
one always-on KB (offline ingest); for each question (categories 1-4) the block is asked for as its user would
(``GET /api/v1/context/`` with ``user_id``), once without a session and once with the ``session_id`` of the session
holding the question's evidence: a bot that keeps talking in that session. Prints the share of the evidence turns
that are cited by a memory of the block, for both, and the block's latency.
"""

from __future__ import annotations

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


def run():
    env = harness.configure("kbsite_context")
    harness.reset_database()
    key = harness.make_bot()
    headers = {"Authorization": f"Bearer {key}"}
    product = harness.Product(env)
    try:
        harness.warm_up_workers(int(env["WORKERS"]))
        requests.post(f"{product.url}/api/v1/kbs/", json={"name": KB, "always_on": True}, headers=headers, timeout=60)
        samples = harness.locomo()
        posted = sum(_post(product.url, headers, sample) for sample in samples)
        harness.wait_until_processed()
        product.stop_workers()
        print(f"{posted:,} turns of {len(samples)} users posted and extracted")
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
        print(f"\nevidence turns cited by the context block (4,000 characters), {count} LoCoMo questions:")
        for name, shares in found.items():
            print(f"  {name:<28} {sum(shares) / len(shares):.3f}")
        times = sorted(took)
        print(
            f"context block through the API: p50 {statistics.median(times) * 1000:.1f} ms, "
            f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms"
        )
    finally:
        product.stop()


if __name__ == "__main__":
    run()
