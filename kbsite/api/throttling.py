"""The API's throttle: each key's requests per minute (its bot's), drawn from the token bucket every web process
shares (:mod:`kbsite.ratelimits`); past it, a 429 with ``Retry-After`` and a message saying the limit."""

from __future__ import annotations

from rest_framework import exceptions, throttling

from kbsite.caller import Caller
from kbsite.ratelimits import rate_message, rate_take


class KeyRateThrottle(throttling.BaseThrottle):
    """DRF's throttle interface over :func:`~kbsite.ratelimits.rate_take`, keyed by the API key (a request without
    one is refused by authentication, not here). It raises DRF's ``Throttled`` itself, to say the key's limit."""

    def allow_request(self, request, view) -> bool:
        caller = request.auth
        if not isinstance(caller, Caller) or caller.key is None:
            return True
        wait = rate_take(key=caller.key)
        if wait is not None:
            refused = exceptions.Throttled(detail=rate_message(caller.key, wait))  # DRF would add its own wait
            refused.wait = wait  # the Retry-After header
            raise refused
        return True
