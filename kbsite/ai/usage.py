"""Usage meters: the LLM calls, their tokens and the texts embedded while a meter is on (a job, a request, an answer).

The meters in use are a context variable: :func:`count` adds to the innermost one and to every meter around it, so
an answer's own meter and the request's meter around it both see the answer's LLM call. Work handed to another
thread (recall's query embedding) counts on the caller's meter when it runs in a copy of the caller's context
(``contextvars.copy_context().run``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

_lock = threading.Lock()  # a query embedded on another thread counts while the request's thread may count too


@dataclass
class Meter:
    """What was spent while it was on: LLM calls (failed ones included) and their tokens, texts embedded (a query
    is one), and since when (``started``, a ``time.perf_counter()``)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    embeddings: int = 0
    started: float = field(default_factory=time.perf_counter)
    outer: Meter | None = field(default=None, repr=False)

    def server_ms(self) -> int:
        """Milliseconds since the meter was started."""
        return round((time.perf_counter() - self.started) * 1000)

    def usage(self) -> dict[str, int]:
        """The figures as the API shows them (``usage``)."""
        return {
            "llm_calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "embeddings": self.embeddings,
            "server_ms": self.server_ms(),
        }


_meter: ContextVar[Meter | None] = ContextVar("usage_meter", default=None)


@contextlib.contextmanager
def metered() -> Iterator[Meter]:
    """Count what is spent inside the block on a new meter (the meters around it count it as well)."""
    meter = Meter(outer=_meter.get())
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)


def count(*, calls: int = 0, tokens_in: int = 0, tokens_out: int = 0, embeddings: int = 0) -> None:
    """Add to the meters on (none: nothing is counted)."""
    meter = _meter.get()
    if meter is None:
        return
    with _lock:
        while meter is not None:
            meter.calls += calls
            meter.tokens_in += tokens_in
            meter.tokens_out += tokens_out
            meter.embeddings += embeddings
            meter = meter.outer


def tokens_unrecorded() -> int:
    """The LLM tokens (in and out) counted on the outermost meter on: what the work running here (a job, a request)
    has spent so far, which is added to its bot's daily usage only when that work ends."""
    meter = _meter.get()
    while meter is not None and meter.outer is not None:
        meter = meter.outer
    return meter.tokens_in + meter.tokens_out if meter is not None else 0
