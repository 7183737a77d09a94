"""The chat proxy's cost: what it adds to a chat completion against calling the upstream directly (p50/p95, not
streamed), what it adds to the first chunk of a stream, the context block's own latency beside it, and recall
latency while 50 slow streams are open through the proxy.

The upstream is a local OpenAI-compatible server answering at once (a stream: a chunk every 50 ms); the memory is
one LoCoMo conversation posted as one end user's turns and extracted offline. The worker cluster is stopped once
that memory is built: the turns each chat records wait for it, and no extraction shares the CPU with what is
measured. Target: p95 added at most the context block's own p95 + 15 ms.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from openai import OpenAI

from benchmarks import harness

N = 200
STREAMS = 50
USER = "conv-26"


class Upstream:
    """An OpenAI-compatible chat endpoint that answers at once; streams send ``pieces`` chunks ``gap`` s apart."""

    def __init__(self, pieces: int = 5, gap: float = 0.05):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                if not body.get("stream"):
                    data = json.dumps(_completion()).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for n in range(body.get("pieces", pieces)):
                        chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
                        chunk["choices"] = [{"index": 0, "delta": {"content": f"word{n} "}, "finish_reason": None}]
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(body.get("gap", gap))
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def _completion() -> dict:
    message = {"role": "assistant", "content": "Sure, here is my answer."}
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _pct(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[int(len(values) * 0.95)]


def _first_chunk(client: OpenAI, body: dict) -> float:
    """Seconds until the first chunk with content arrives, read as a bot would: by the official client."""
    started = time.perf_counter()
    stream = client.chat.completions.create(**body)
    try:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                return time.perf_counter() - started
    finally:
        stream.close()
    raise RuntimeError("the stream sent no content")


def run():
    upstream = Upstream()
    env = harness.configure("kbsite_proxy")
    env["LLM_BASE_URL"] = upstream.url  # the proxy's upstream; no LLM_MODEL: the product's own work stays offline
    harness.reset_database()
    key = harness.make_bot()
    headers = {"Authorization": f"Bearer {key}"}
    product = harness.Product(env)
    try:
        _memory(product.url, headers)
        product.stop_workers()
        questions = [qa["question"] for qa in harness.locomo()[0]["qa"]][:N]
        proxy_url, direct_url = f"{product.url}/openai/v1/chat/completions", f"{upstream.url}/chat/completions"
        direct, proxied = (
            OpenAI(base_url=upstream.url, api_key="-"),
            OpenAI(base_url=f"{product.url}/openai/v1", api_key=key),
        )

        def chat(q: str, **extra) -> dict:
            return {"model": "m", "messages": [{"role": "user", "content": q}], **extra}

        timings = {"direct": [], "proxy": [], "context": [], "ttfc direct": [], "ttfc proxy": []}
        for n, q in enumerate(questions):
            for name, url, body in (("direct", direct_url, chat(q)), ("proxy", proxy_url, chat(q, user=USER))):
                started = time.perf_counter()
                assert requests.post(url, json=body, headers=headers, timeout=60).status_code == 200
                timings[name].append(time.perf_counter() - started)
            started = time.perf_counter()
            requests.get(f"{product.url}/api/v1/context/", params={"query": q, "user_id": USER}, headers=headers)
            timings["context"].append(time.perf_counter() - started)
            if n % 4 == 0:
                timings["ttfc direct"].append(_first_chunk(direct, chat(q, stream=True)))
                timings["ttfc proxy"].append(_first_chunk(proxied, chat(q, stream=True, user=USER)))
        _report(timings)
        _under_streams(product.url, headers, proxy_url, questions)
    finally:
        product.stop()
        upstream.server.shutdown()


def _memory(url: str, headers: dict) -> None:
    """One LoCoMo conversation as the turns of one end user of the bot's always-on KB, extracted."""
    sample = harness.locomo()[0]
    requests.post(
        f"{url}/api/v1/kbs/", json={"name": "notes", "always_on": True, "records_chat": True}, headers=headers
    )
    for session, date, turns in harness.conversation_sessions(sample):
        messages = [
            {"external_id": t["dia_id"], "speaker": t["speaker"], "content": t["text"], "created_at": date}
            for t in turns
        ]
        body = {"session_id": session, "user_id": USER, "messages": messages}
        assert requests.post(f"{url}/api/v1/kbs/notes/messages/", json=body, headers=headers, timeout=60).ok
    harness.wait_until_processed()


def _report(timings: dict) -> None:
    ms = {name: tuple(v * 1000 for v in _pct(values)) for name, values in timings.items()}
    print(f"\nchat completions, {len(timings['proxy'])} each, interleaved (ms):")
    print(f"{'':<38} {'p50':>7} {'p95':>7}")
    for name in timings:
        print(f"{name:<38} {ms[name][0]:>7.1f} {ms[name][1]:>7.1f}")
    added = [p - d for p, d in zip(timings["proxy"], timings["direct"], strict=True)]
    added50, added95 = (v * 1000 for v in _pct(added))
    print(f"{'added by the proxy (not streamed)':<38} {added50:>7.1f} {added95:>7.1f}")
    ttfc = [p - d for p, d in zip(timings["ttfc proxy"], timings["ttfc direct"], strict=True)]
    ttfc50, ttfc95 = (v * 1000 for v in _pct(ttfc))
    print(f"{'added to the first chunk (streamed)':<38} {ttfc50:>7.1f} {ttfc95:>7.1f}")
    target = ms["context"][1] + 15
    print(f"target: p95 added <= context p95 + 15 ms = {target:.1f} ms: {'met' if added95 <= target else 'NOT met'}")


def _under_streams(url: str, headers: dict, proxy_url: str, questions: list[str]) -> None:
    """Recall latency alone, then with STREAMS slow streams open through the proxy (a chunk a second)."""

    def recall_latencies() -> list[float]:
        out = []
        for q in questions[:100]:
            started = time.perf_counter()
            body = {"query": q, "k": 10, "user_id": USER}
            assert requests.post(f"{url}/api/v1/kbs/notes/recall/", json=body, headers=headers, timeout=60).ok
            out.append(time.perf_counter() - started)
        return out

    alone = recall_latencies()
    opened, stop = threading.Barrier(STREAMS + 1), threading.Event()

    def stream(n: int) -> None:
        body = {
            "model": "m",
            "stream": True,
            "pieces": 60,
            "gap": 1.0,
            "user": USER,
            "messages": [{"role": "user", "content": questions[n]}],
        }
        with requests.post(proxy_url, json=body, headers=headers, stream=True, timeout=120) as response:
            lines = response.iter_lines()
            next(line for line in lines if line.startswith(b"data:"))
            opened.wait()
            for _ in lines:
                if stop.is_set():
                    return

    threads = [threading.Thread(target=stream, args=(n,), daemon=True) for n in range(STREAMS)]
    for thread in threads:
        thread.start()
    opened.wait(timeout=120)
    busy = recall_latencies()
    stop.set()
    a50, a95 = (v * 1000 for v in _pct(alone))
    b50, b95 = (v * 1000 for v in _pct(busy))
    print(
        f"\nrecall through the API, {len(alone)} queries: alone p50 {a50:.1f} ms, p95 {a95:.1f} ms; "
        f"with {STREAMS} streams open through the proxy p50 {b50:.1f} ms, p95 {b95:.1f} ms"
    )


if __name__ == "__main__":
    run()
