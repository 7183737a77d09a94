"""Errors of the chat proxy, in the shape of the API the caller speaks (OpenAI's, or Anthropic's under the Anthropic
relay), so that the caller's own client raises its own exception types."""

from __future__ import annotations

from django.http import JsonResponse

# Anthropic's error types by status (its clients pick their exceptions by status; the type is for people).
ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class ProxyError(Exception):
    """An answer other than the upstream's: ``{"error": {"message", "type", "param", "code"}}`` with ``status``
    (``{"type": "error", "error": {"type", "message"}}`` for Anthropic's clients)."""

    def __init__(self, status: int, message: str, *, kind: str = "invalid_request_error", code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.kind, self.code = status, message, kind, code

    def response(self, api: str = "chat") -> JsonResponse:
        return error_response(self.status, self.message, kind=self.kind, code=self.code, api=api)


def error_response(
    status: int, message: str, *, kind: str = "invalid_request_error", code: str | None = None, api: str = "chat"
):
    if api == "messages":
        body = {"type": "error", "error": {"type": ANTHROPIC_TYPES.get(status, "api_error"), "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    response = JsonResponse(body, status=status)
    if status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response
