"""An OpenAI-compatible endpoint that replays LoCoMo's LLM-written observations as the product's LLM extraction.

LoCoMo holds, for every session, ``observation``: atomic third-person facts written by an LLM, each with the
``dia_id`` (or ids) of the turns it came from. :class:`ReplayLLM` serves ``POST /v1/chat/completions`` (and
``/chat/completions``) and ``GET /v1/models`` on a local port, so that the product, started with ``LLM_BASE_URL``
at it and ``LLM_MODEL=replay``, runs its real LLM path (the request, the reply's validation, the apply with
dedup and supersession, the embeddings, recall) on LLM-quality facts, without an LLM.

An extraction request (recognised by its system prompt, which asks for ``"add"`` / ``"supersede"`` and
``source_turns``) is answered from the turns of its user message, the lines under "New turns" as
``memories.extraction.render_user_message`` writes them: ``[<ref>] <speaker> [<role>] (<YYYY-MM-DD HH:MM>): <text>``
(a turn's further lines follow it). Each turn is matched to its LoCoMo ``dia_id`` by speaker and exact text (the
prompt shows the product's own refs, ``m123``, not the posted external ids). The reply adds one fact per
observation whose turns are in the batch:
``{"text", "kind": "fact", "entities", "topics": [], "source_turns": [the refs of its turns in the batch],
"valid_from": null}``, and supersedes nothing. An observation goes with the batch that holds the first of its
turns the product shows the model (its first turn that passes the product's salience gate), so it is added once
however its turns are batched, and a retried batch is answered the same. Observations whose turns are all held
back by the gate are never added (:meth:`ReplayLLM.stats` counts them). Entities: the conversation's speakers named
in the observation (lowercased), or its own speaker if it names neither.

Other requests get the smallest valid reply of their kind: consolidation ``{"insights": []}``, ask
``{"answer": "I don't know.", "citations": []}``, archive a one-sentence summary. ``response_format`` (``json_object``
or ``json_schema``) is accepted and the reply is JSON either way; ``max_tokens`` cuts a longer reply as a model would
(``finish_reason: "length"``). ``usage`` counts about four characters a token.

Evaluation only: nothing in the product knows of this server or of LoCoMo.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "replay"
TURN_LINE = re.compile(
    r"^\[(?P<ref>[^\]\s]+)\] (?:(?P<speaker>.+?) \[(?P<role>\w+)\]|(?P<role_only>\w+))"
    r"(?: \((?P<when>\d{4}-\d\d-\d\d \d\d:\d\d)\))?: (?P<text>.*)$"
)
CONVERSATION_BLOCK = re.compile(r'New turns:\n<untrusted source="conversation">\n(?P<body>.*)\n</untrusted>\s*$', re.S)


def _salience_gate(wait: float = 120.0):
    """The product's salience gate (a turn it fails is never shown to the model). Where it lives has moved before:
    each known home is tried, for a while if none imports (a module being moved as this runs). Call it once
    Django is set up (a home may import models)."""
    deadline = time.monotonic() + wait
    while True:
        for module in ("memories.text", "memories.ingest.extraction", "memories.extraction"):
            try:
                return __import__(module, fromlist=["is_salient"]).is_salient
            except (ImportError, AttributeError) as exc:
                error = exc
        if time.monotonic() > deadline:
            raise RuntimeError(f"the product's salience gate (is_salient) cannot be imported: {error}")
        time.sleep(5)


def _normal(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Observation:
    key: int
    sample: int  # index of the conversation
    text: str
    speaker: str
    dia_ids: list[str]  # in conversation order
    entities: list[str]
    anchor: str | None = None  # the first of its turns the product shows the model


@dataclass
class Turn:
    ref: str
    speaker: str
    text: str


class ReplayLLM:
    """The replay endpoint, serving in a daemon thread from construction until :meth:`close`."""

    def __init__(self, samples: list[dict], host: str = "127.0.0.1", port: int = 0):
        self._lock = threading.Lock()
        self._index(samples)
        self.counts: Counter = Counter()
        self.emitted: Counter = Counter()  # (observation key, ref of its anchor turn) -> times added
        self.unmatched: list[str] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    return self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
                return self._json(404, {"error": {"message": f"no such path: {self.path}", "type": "replay"}})

            def do_POST(self):
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._json(404, {"error": {"message": f"no such path: {self.path}", "type": "replay"}})
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"{}")
                    return self._json(200, replay.complete(body))
                except Exception as exc:  # noqa: BLE001 - answered as a provider would, and counted
                    with replay._lock:
                        replay.counts["error"] += 1
                    return self._json(500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "replay"}})

            def _json(self, code, payload):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True, name="replay-llm")
        self.thread.start()

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> ReplayLLM:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the data ---------------------------------------------------------------------------------------------

    def _index(self, samples: list[dict]) -> None:
        salient = _salience_gate()
        self.turns: dict[tuple[str, str], list[tuple[int, str]]] = {}  # (speaker, text) -> [(sample, dia_id)]
        self.turns_normal: dict[tuple[str, str], list[tuple[int, str]]] = {}
        self.observations: list[Observation] = []
        self.by_turn: dict[tuple[int, str], list[Observation]] = {}
        for n, sample in enumerate(samples):
            conv = sample["conversation"]
            order: dict[str, int] = {}
            shown: set[str] = set()
            for key in conv:
                if not (key.startswith("session_") and isinstance(conv[key], list)):
                    continue
                for turn in conv[key]:
                    order[turn["dia_id"]] = len(order) + int(key.split("_")[1]) * 100_000
                    if salient(turn["text"]):
                        shown.add(turn["dia_id"])
                    self.turns.setdefault((turn["speaker"], turn["text"]), []).append((n, turn["dia_id"]))
                    self.turns_normal.setdefault((turn["speaker"], _normal(turn["text"])), []).append(
                        (n, turn["dia_id"])
                    )
            speakers = [conv[k] for k in ("speaker_a", "speaker_b") if conv.get(k)]
            for session in sample.get("observation", {}).values():
                for speaker, items in session.items():
                    for text, dia in items:
                        dia_ids = sorted({dia} if isinstance(dia, str) else set(dia), key=lambda d: order.get(d, 0))
                        named = [s.lower() for s in speakers if re.search(rf"\b{re.escape(s)}\b", text, re.I)]
                        obs = Observation(
                            key=len(self.observations),
                            sample=n,
                            text=text,
                            speaker=speaker,
                            dia_ids=dia_ids,
                            entities=named or [speaker.lower()],
                            anchor=next((d for d in dia_ids if d in shown), None),
                        )
                        self.observations.append(obs)
                        for d in dia_ids:
                            self.by_turn.setdefault((n, d), []).append(obs)

    # --- the replies ------------------------------------------------------------------------------------------

    def complete(self, body: dict) -> dict:
        messages = body.get("messages") or []
        system = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "system")
        user = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
        if '"add"' in system and "source_turns" in system:
            kind, reply = "extraction", self._extraction(user)
        elif '"insights"' in system:
            kind, reply = "consolidation", {"insights": []}
        elif '"citations"' in system:
            kind, reply = "ask", {"answer": "I don't know.", "citations": []}
        elif '"summary"' in system:
            kind, reply = "archive", {"summary": "A conversation.", "topics": [], "entities": [], "decisions": []}
        else:
            kind, reply = "other", {}
        content = json.dumps(reply, ensure_ascii=False)
        tokens_in = max(1, (len(system) + len(user)) // 4)
        tokens_out = max(1, len(content) // 4)
        finish = "stop"
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if isinstance(limit, int) and tokens_out > limit:
            content, tokens_out, finish = content[: limit * 4], limit, "length"
        with self._lock:
            self.counts[kind] += 1
            self.counts["cut at max_tokens"] += finish == "length"
        return {
            "id": f"chatcmpl-replay-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or MODEL,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }

    def _extraction(self, user: str) -> dict:
        turns = parse_turns(user)
        matched: dict[str, tuple[int, str]] = {}  # ref -> (sample, dia_id)
        candidates = {t.ref: self._candidates(t) for t in turns}
        # A text said in two conversations goes with the conversation most of the batch is from.
        votes = Counter(c[0][0] for c in candidates.values() if len(c) == 1)
        for turn in turns:
            found = candidates[turn.ref]
            if not found:
                with self._lock:
                    self.unmatched.append(f"{turn.speaker}: {turn.text[:80]}")
                continue
            matched[turn.ref] = max(found, key=lambda c: votes[c[0]])
        refs_of = {turn_id: ref for ref, turn_id in matched.items()}
        add, seen = [], set()
        for turn_id in matched.values():
            for obs in self.by_turn.get(turn_id, []):
                if obs.key in seen or obs.anchor is None or (obs.sample, obs.anchor) not in refs_of:
                    continue
                seen.add(obs.key)
                with self._lock:
                    self.emitted[(obs.key, refs_of[(obs.sample, obs.anchor)])] += 1
                add.append(
                    {
                        "text": obs.text,
                        "kind": "fact",
                        "entities": obs.entities,
                        "topics": [],
                        "source_turns": [refs_of[(obs.sample, d)] for d in obs.dia_ids if (obs.sample, d) in refs_of],
                        "valid_from": None,
                    }
                )
        with self._lock:
            self.counts["turns shown"] += len(turns)
        return {"add": add, "supersede": [], "edges": []}

    def _candidates(self, turn: Turn) -> list[tuple[int, str]]:
        return self.turns.get((turn.speaker, turn.text)) or self.turns_normal.get(
            (turn.speaker, _normal(turn.text)), []
        )

    def stats(self) -> dict:
        """What was asked and answered so far."""
        with self._lock:
            added = {key for key, _ in self.emitted}
            return {
                "requests": {k: v for k, v in self.counts.items() if k not in ("turns shown", "cut at max_tokens")},
                "turns shown": self.counts["turns shown"],
                "turns unmatched": len(self.unmatched),
                "unmatched examples": self.unmatched[:3],
                "replies cut at max_tokens": self.counts["cut at max_tokens"],
                "observations": len(self.observations),
                "observations held back by the salience gate": sum(o.anchor is None for o in self.observations),
                "observations added": len(added),
                "observations added again by a retried batch": sum(n - 1 for n in self.emitted.values()),
                "observations added in more than one copy of their conversation": len(self.emitted) - len(added),
            }


def _text(content) -> str:
    """A message's content: a string, or OpenAI's list of parts."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def parse_turns(user: str) -> list[Turn]:
    """The turns of an extraction request's user message."""
    block = CONVERSATION_BLOCK.search(user)
    if not block:
        return []
    turns: list[Turn] = []
    for line in block.group("body").split("\n"):
        match = TURN_LINE.match(line)
        if match:
            turns.append(Turn(ref=match["ref"], speaker=match["speaker"] or "", text=match["text"]))
        elif turns:  # a turn of several lines
            turns[-1].text += "\n" + line
    return turns


if __name__ == "__main__":  # serve it by hand: python -m benchmarks.replay_llm [port]
    import os
    import sys

    import django

    from benchmarks import harness
    from kbsite import boot

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kbsite.settings")
    boot.prepare()  # the product's settings (the salience gate is the product's); no query is made
    django.setup()
    with ReplayLLM(harness.locomo(), port=int(sys.argv[1]) if len(sys.argv) > 1 else 0) as replay:
        print(f"LLM_BASE_URL={replay.base_url} LLM_MODEL={MODEL}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(json.dumps(replay.stats(), indent=1))
