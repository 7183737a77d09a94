"""One POST of a webhook: signed, to the address checked for it, no redirect followed, a bounded wait.

The connection goes to the address :mod:`kbsite.webhooks.addresses` checked (not to the name resolved again), with
the URL's host in ``Host`` and, for https, in the TLS name and the certificate check. A redirect is a failure:
following it could lead anywhere, a private address included.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import urllib3
from django.conf import settings

from kbsite.webhooks.addresses import Target, UnsafeAddress, target_resolve
from kbsite.webhooks.signing import HEADER, signature_header

USER_AGENT = "kbsite-webhooks/1"
RESPONSE_KEPT = 500  # characters of the receiver's answer kept in the attempt log


@dataclass(frozen=True)
class Outcome:
    """What one POST got: the status code (None when none came back), the start of the answer, or the error."""

    response_code: int | None
    response_body: str
    error: str
    duration_ms: int

    @property
    def succeeded(self) -> bool:
        return self.response_code is not None and 200 <= self.response_code < 300


def post_signed(*, url: str, secret: str, body: bytes, event_id: str, event_type: str) -> Outcome:
    """POST ``body`` to ``url`` signed with ``secret``; never raises for what the receiver or the network does."""
    started = time.monotonic()
    try:
        target = target_resolve(url)
        headers = {
            "Host": target.host_header,
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "Kbsite-Event-Id": event_id,
            "Kbsite-Event-Type": event_type,
            HEADER: signature_header(secret, body),
        }
        with _pool(target) as pool:
            response = pool.urlopen(
                "POST", target.path, body=body, headers=headers, redirect=False, retries=False, preload_content=False
            )
            answer = response.read(RESPONSE_KEPT, decode_content=True).decode("utf-8", "replace")
        error = "" if 200 <= response.status < 300 else _refusal(response.status)
        return Outcome(response.status, answer, error, _ms(started))
    except UnsafeAddress as exc:
        return Outcome(None, "", f"refused: {exc}"[:500], _ms(started))
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        return Outcome(None, "", f"{type(exc).__name__}: {exc}"[:500], _ms(started))


def _pool(target: Target) -> urllib3.HTTPConnectionPool:
    timeout = urllib3.Timeout(connect=settings.WEBHOOK_TIMEOUT_SECONDS, read=settings.WEBHOOK_TIMEOUT_SECONDS)
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            target.address,
            target.port,
            timeout=timeout,
            maxsize=1,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
        )
    return urllib3.HTTPConnectionPool(target.address, target.port, timeout=timeout, maxsize=1)


def _refusal(status: int) -> str:
    if 300 <= status < 400:
        return f"HTTP {status}: a redirect, not followed (register the URL it points to)"
    return f"HTTP {status}"


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
