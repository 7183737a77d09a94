"""Errors of the chat proxy: ProxyError, raised where a request cannot be served, answered in the shape of the API
the caller speaks (OpenAI's, or Anthropic's under the Anthropic relay) by :func:`kbsite.errors.proxy_error`, the one
definition of that shape, which also answers what no proxy view did (an unknown URL, an oversized body)."""

from __future__ import annotations

from django.http import JsonResponse

from kbsite.errors import proxy_error

error_response = proxy_error  # the name the proxy's views answer with


class ProxyError(Exception):
    """An answer other than the upstream's: ``{"error": {"message", "type", "param", "code"}}`` with ``status``
    (``{"type": "error", "error": {"type", "message"}}`` for Anthropic's clients), and ``headers`` if any."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status, self.message, self.kind, self.code, self.headers = status, message, kind, code, headers

    def response(self, api: str = "chat") -> JsonResponse:
        return proxy_error(self.status, self.message, kind=self.kind, code=self.code, api=api, headers=self.headers)
