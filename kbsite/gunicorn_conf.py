"""gunicorn's settings for ``manage.py serve``, with its own error responses (a malformed request line, headers too
large: what no Django view sees) in JSON, like every API error."""

from __future__ import annotations

import json

from gunicorn import util

timeout = 120
accesslog = "-"


def _write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    body = json.dumps({"detail": f"{reason}: {mesg}"})  # ASCII: json escapes the rest
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, (head + body).encode("latin1"))


util.write_error = _write_json_error
