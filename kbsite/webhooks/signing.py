"""Webhook signatures, as Stripe signs its events: ``Kbsite-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>``.

The HMAC is of ``"<t>.<raw body>"``, keyed with the endpoint's secret. A receiver recomputes it over the body
exactly as received, compares in constant time, and refuses a ``t`` too far from its clock (a replay).
"""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "Kbsite-Signature"
TOLERANCE_SECONDS = 300


def signature(secret: str, body: bytes, timestamp: int) -> str:
    """The hex HMAC-SHA256 of ``"<timestamp>.<body>"`` keyed with ``secret``."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The value of the ``Kbsite-Signature`` header for ``body`` (signed now, unless ``timestamp`` is given)."""
    timestamp = int(time.time()) if timestamp is None else timestamp
    return f"t={timestamp},v1={signature(secret, body, timestamp)}"


def signature_verify(
    secret: str, body: bytes, header: str, *, tolerance: int = TOLERANCE_SECONDS, now: float | None = None
) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` within ``tolerance`` seconds of ``now``: what a receiver
    does (any one of several ``v1`` values may match, as while a secret is rotated)."""
    fields = [part.partition("=") for part in (header or "").split(",")]
    stamps = [value for key, _, value in fields if key.strip() == "t"]
    signatures = [value.strip() for key, _, value in fields if key.strip() == "v1"]
    if len(stamps) != 1 or not stamps[0].strip().isdigit() or not signatures:
        return False
    timestamp = int(stamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        return False
    expected = signature(secret, body, timestamp)
    return any(hmac.compare_digest(expected, candidate) for candidate in signatures)
