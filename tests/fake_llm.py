"""A real local HTTP server that speaks the OpenAI protocol, scripted per test.

Each chat completion pops the next scripted reply: JSON content, raw text,
an HTTP error status, or a delay longer than the client's timeout. An
unscripted call is answered 500 "script exhausted" so a test notices it, and
the ``fake_llm`` fixture fails a test that leaves scripted replies unused
(unless the test calls :meth:`FakeLLM.allow_unused`).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLM:
    def __init__(self) -> None:
        self.script: deque = deque()
        self.requests: list[dict] = []
        self.embedding_stalls: deque = deque()  # seconds the next embeddings requests wait before answering
        self.meanwhiles: deque = deque()  # what happens elsewhere while the next calls wait for their answer
        self.unused_allowed = False
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.endswith("/models"):
                    return self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                return self._json(404, {"error": {"message": "no such path", "type": "fake"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path.endswith("/embeddings"):
                    with fake._lock:
                        stall = fake.embedding_stalls.popleft() if fake.embedding_stalls else 0
                    time.sleep(stall)
                    return self._json(200, fake._embeddings(body))
                with fake._lock:
                    fake.requests.append(body)
                    step = fake.script.popleft() if fake.script else ("status", 500, "script exhausted")
                    meanwhile = fake.meanwhiles.popleft() if fake.meanwhiles else None
                if meanwhile is not None:
                    meanwhile()
                kind = step[0]
                if self.path.endswith("/messages"):  # Anthropic's Messages API: the same script, its shapes
                    return self._anthropic(step)
                if kind == "sleep":
                    time.sleep(step[1])
                    return self._json(200, fake._completion("{}", 1, 1))
                if kind == "status":
                    return self._json(step[1], {"error": {"message": step[2], "type": "fake", "code": "fake_code"}})
                if self.path.endswith("/responses"):  # the Responses API: the same script, its own shapes
                    if kind == "stream":
                        return self._response_stream(step[1], step[2])
                    return self._json(200, fake._response(step[1], step[2], step[3]))
                if kind == "raw_status":
                    return self._raw(step[1], step[2])
                if kind == "message":
                    return self._json(200, fake._completion(None, 10, 5, message=step[1]))
                if kind == "stream":
                    return self._stream(step[1], step[2])
                return self._json(200, fake._completion(fake._cited(step[1], body), step[2], step[3]))

            def _raw(self, code, text):
                data = text.encode()
                self.send_response(code)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, pieces, delay):
                """Server-sent events, one chunk per piece, ``delay`` seconds apart, then [DONE]."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for n, piece in enumerate(pieces):
                        delta = {"role": "assistant", "content": piece} if n == 0 else {"content": piece}
                        chunk = {
                            "id": "chatcmpl-fake",
                            "object": "chat.completion.chunk",
                            "created": int(time.time()),
                            "model": "fake-model",
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                        }
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        time.sleep(delay)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _anthropic(self, step):
                kind = step[0]
                if kind == "sleep":
                    time.sleep(step[1])
                    return self._json(200, fake._message("{}"))
                if kind == "status":
                    error_type = {429: "rate_limit_error", 400: "invalid_request_error"}.get(step[1], "api_error")
                    return self._json(step[1], {"type": "error", "error": {"type": error_type, "message": step[2]}})
                if kind == "stream":
                    return self._message_stream(step[1], step[2])
                return self._json(200, fake._message(step[1]))

            def _message_stream(self, pieces, delay):
                """A message's events: message_start, a text block of one delta per piece (``delay`` seconds
                apart), message_delta and message_stop."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    start = {**fake._message(""), "content": [], "stop_reason": None}
                    events = [
                        {"type": "message_start", "message": start},
                        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                        *(
                            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
                            for p in pieces
                        ),
                        {"type": "content_block_stop", "index": 0},
                        {
                            "type": "message_delta",
                            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                            "usage": {"output_tokens": len(pieces)},
                        },
                        {"type": "message_stop"},
                    ]
                    for event in events:
                        self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        if event["type"] == "content_block_delta":
                            time.sleep(delay)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _response_stream(self, pieces, delay):
                """A response's events: created, one output text delta per piece, ``delay`` seconds apart, then
                completed with the whole response."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    whole = fake._response("".join(pieces), 10, len(pieces))
                    events = [
                        {"type": "response.created", "response": {**whole, "status": "in_progress", "output": []}}
                    ]
                    events += [
                        {
                            "type": "response.output_text.delta",
                            "item_id": "msg_fake",
                            "output_index": 0,
                            "content_index": 0,
                            "delta": piece,
                        }
                        for piece in pieces
                    ]
                    events.append({"type": "response.completed", "response": whole})
                    for n, event in enumerate(events):
                        event["sequence_number"] = n
                        self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        if event["type"] == "response.output_text.delta":
                            time.sleep(delay)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _json(self, code, payload):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def anthropic_url(self) -> str:
        """The base URL an Anthropic client is given (it adds /v1/messages)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- scripting ---
    def reply_json(self, payload: dict, tokens_in: int = 120, tokens_out: int = 30) -> FakeLLM:
        self.script.append(("content", json.dumps(payload), tokens_in, tokens_out))
        return self

    def reply_raw(self, content: str, tokens_in: int = 120, tokens_out: int = 30) -> FakeLLM:
        self.script.append(("content", content, tokens_in, tokens_out))
        return self

    def reply_status(self, code: int, message: str = "fake error") -> FakeLLM:
        self.script.append(("status", code, message))
        return self

    def reply_message(self, message: dict) -> FakeLLM:
        """A completion whose assistant message is ``message`` (e.g. with tool_calls)."""
        self.script.append(("message", message))
        return self

    def reply_stream(self, pieces: list[str], delay: float = 0.0) -> FakeLLM:
        """A streamed completion: one server-sent event per piece of the reply, ``delay`` seconds apart."""
        self.script.append(("stream", pieces, delay))
        return self

    def reply_raw_status(self, code: int, text: str) -> FakeLLM:
        """An error answered as plain text, not in OpenAI's shape."""
        self.script.append(("raw_status", code, text))
        return self

    def reply_after(self, seconds: float) -> FakeLLM:
        self.script.append(("sleep", seconds))
        return self

    def embeddings_after(self, seconds: float) -> FakeLLM:
        """The next embeddings request (an ``EMBEDDING_BACKEND=openai`` pointed here) answers after ``seconds``."""
        self.embedding_stalls.append(seconds)
        return self

    def meanwhile(self, action) -> FakeLLM:
        """Run ``action`` (in the server's thread) when the next call arrives, before it is answered: something
        that happens while the caller waits for the LLM."""
        self.meanwhiles.append(action)
        return self

    def allow_unused(self) -> FakeLLM:
        """Let the test end with scripted replies left over (a reply that is there in case of a retry that may or
        may not come); by default the fixture fails a test whose script was not used up."""
        self.unused_allowed = True
        return self

    @property
    def unused(self) -> list[tuple]:
        """The scripted replies (and embedding stalls, and actions meanwhile) no call has taken."""
        with self._lock:
            return (
                list(self.script)
                + [("embeddings_after", seconds) for seconds in self.embedding_stalls]
                + [("meanwhile", action) for action in self.meanwhiles]
            )

    # --- what was asked ---
    @property
    def calls(self) -> int:
        return len(self.requests)

    def user_prompt(self, index: int = -1) -> str:
        return next(m["content"] for m in self.requests[index]["messages"] if m["role"] == "user")

    @staticmethod
    def _cited(content: str | None, body: dict) -> str | None:
        """An extraction reply's turn citations as a model makes them, from the refs its prompt shows: ``"@all"``
        cites every turn of the batch, ``"@2"`` its second one (the refs are the product's own, such as m123)."""
        if not content or '"@' not in content:
            return content
        prompt = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
        refs = re.findall(r"^\[(\w+)\] ", prompt.split("New turns:")[-1], re.M)
        content = content.replace('"@all"', ", ".join(json.dumps(ref) for ref in refs))
        return re.sub(r'"@(\d+)"', lambda m: json.dumps(refs[int(m.group(1)) - 1]), content)

    # --- responses ---
    @staticmethod
    def _completion(content: str | None, tokens_in: int, tokens_out: int, message: dict | None = None) -> dict:
        message = message or {"role": "assistant", "content": content}
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }

    @staticmethod
    def _message(content: str) -> dict:
        """An Anthropic message whose content is one text block of ``content``."""
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "fake-model",
            "content": [{"type": "text", "text": content}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }

    @staticmethod
    def _response(content: str, tokens_in: int, tokens_out: int) -> dict:
        """A Responses API response whose output is one assistant message of ``content``."""
        return {
            "id": "resp_fake",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": "fake-model",
            "output": [
                {
                    "type": "message",
                    "id": "msg_fake",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": content, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    @staticmethod
    def _embeddings(body: dict) -> dict:
        inputs = body.get("input") or []
        inputs = [inputs] if isinstance(inputs, str) else inputs
        dims = body.get("dimensions") or 384
        data = []
        for i, text in enumerate(inputs):
            digest = hashlib.sha256(str(text).encode()).digest()
            vector = [((digest[j % 32] / 255.0) - 0.5) for j in range(dims)]
            data.append({"object": "embedding", "index": i, "embedding": vector})
        return {"object": "list", "data": data, "model": "fake-embed", "usage": {"prompt_tokens": 1, "total_tokens": 1}}
