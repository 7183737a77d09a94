"""Errors of the chat proxy, in OpenAI's shape, so that OpenAI's own clients raise their own exception types."""

from __future__ import annotations

from django.http import JsonResponse


class ProxyError(Exception):
    """An answer other than the upstream's: ``{"error": {"message", "type", "param", "code"}}`` with ``status``."""

    def __init__(self, status: int, message: str, *, kind: str = "invalid_request_error", code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.kind, self.code = status, message, kind, code

    def response(self) -> JsonResponse:
        return error_response(self.status, self.message, kind=self.kind, code=self.code)


def error_response(status: int, message: str, *, kind: str = "invalid_request_error", code: str | None = None):
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    response = JsonResponse(body, status=status)
    if status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response
