"""The soak's LLM: the tests' OpenAI-protocol fake (tests/fake_llm.py), answering for as long as a soak runs, and
failing while its weather says so (500, 429, or answers later than the callers' time-outs).

Fair weather: an extraction gets one fact per turn it is shown (the turn's own words, citing it), a streamed chat a
few chunks, anything else the smallest valid reply of its kind (as :mod:`benchmarks.replay_llm` answers them).
"""

from __future__ import annotations

import json
import threading
from collections import Counter

from benchmarks.replay_llm import parse_turns
from tests.fake_llm import FakeLLM

FAILURES = ("500", "429", "timeout")


class Weather:
    """FakeLLM's script, endless: it pops one step per call. FakeLLM appends the call's body to its ``requests``
    and pops, both under its lock, so the step is chosen here for that body (and the list is emptied again: a soak
    makes thousands of calls)."""

    def __init__(self, fake: FakeLLM, timeout_sleep: float):
        self.fake, self.timeout_sleep = fake, timeout_sleep
        self.failing: str | None = None  # one of FAILURES while a bad stretch lasts
        self.counts: Counter = Counter()  # (kind of call, "ok" or the failure) -> calls
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return True

    def __iter__(self):
        return iter(())  # nothing is ever left unused

    def popleft(self) -> tuple:
        body = self.fake.requests[-1] if self.fake.requests else {}
        self.fake.requests.clear()
        kind = call_kind(body)
        failing = self.failing
        with self._lock:
            self.counts[(kind, failing or "ok")] += 1
        if failing == "500":
            return ("status", 500, "soak: the provider is down")
        if failing == "429":
            return ("status", 429, "soak: rate limited")
        if failing == "timeout":
            return ("sleep", self.timeout_sleep)
        if body.get("stream"):
            return ("stream", ["Noted", ", thank you", " for telling me."], 0.02)
        return ("content", json.dumps(reply(kind, body)), 100, 20)


class SoakLLM:
    """The fake server with its endless :class:`Weather` script. ``timeout_sleep``: how long a call waits while the
    weather is "timeout" (longer than the workers' LLM_TIMEOUT_SECONDS and the proxy's PROXY_TIMEOUT_SECONDS)."""

    def __init__(self, timeout_sleep: float = 8.0):
        self.fake = FakeLLM()
        self.weather = Weather(self.fake, timeout_sleep)
        self.fake.script = self.weather

    @property
    def base_url(self) -> str:
        return self.fake.base_url

    def close(self) -> None:
        self.fake.close()


def call_kind(body: dict) -> str:
    """What the product asks for, read from the system prompt (as :class:`benchmarks.replay_llm.ReplayLLM` does)."""
    if body.get("stream"):
        return "chat stream"
    system = "\n".join(_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system")
    if '"add"' in system and "source_turns" in system:
        return "extraction"
    for kind, marker in (("consolidation", '"insights"'), ("ask", '"citations"'), ("archive", '"summary"')):
        if marker in system:
            return kind
    return "chat"


def reply(kind: str, body: dict) -> dict:
    """The smallest valid reply of its kind; an extraction's adds one fact per turn shown, in its own words."""
    if kind == "extraction":
        user = "\n".join(_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user")
        add = [
            {
                "text": turn.text,
                "kind": "fact",
                "entities": [turn.speaker.lower()] if turn.speaker else [],
                "topics": [],
                "source_turns": [turn.ref],
                "valid_from": None,
            }
            for turn in parse_turns(user)
        ]
        return {"add": add, "supersede": [], "edges": []}
    return {
        "consolidation": {"insights": []},
        "ask": {"answer": "I don't know.", "citations": []},
        "archive": {"summary": "A conversation.", "topics": [], "entities": [], "decisions": []},
    }.get(kind, {"answer": "Sure."})


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""
