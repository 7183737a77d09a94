"""Errors in the shape the caller's client expects, defined once: the chat proxy's (OpenAI's, or Anthropic's under
the Anthropic relay: :func:`proxy_error`), ``{"detail"}`` elsewhere (:func:`error_json`); and Django's error pages
for what no view answered (an unknown URL, a bad Host header, a crash): JSON under /api/ and the chat proxy's
/openai/ and /anthropic/, the usual pages elsewhere (the admin)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

API_PREFIX, PROXY_PREFIX, ANTHROPIC_PREFIX = "/api/", "/openai/", "/anthropic/"
# The chat proxy's paths: async views, served by Django's ASGI handler (kbsite.asgi).
PROXY_PREFIXES = (PROXY_PREFIX, ANTHROPIC_PREFIX)
JSON_PREFIXES = (API_PREFIX, *PROXY_PREFIXES)

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


def proxy_error(
    status: int,
    message: str,
    *,
    kind: str = "invalid_request_error",
    code: str | None = None,
    api: str = "chat",
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    """An error of the chat proxy in the shape of the API the caller speaks, so that the caller's own client raises
    its own exception types: OpenAI's ``{"error": {"message", "type", "param", "code"}}``, or with ``api="messages"``
    Anthropic's ``{"type": "error", "error": {"type", "message"}}``; with ``headers`` (a 429's ``Retry-After``)."""
    if api == "messages":
        body = {"type": "error", "error": {"type": ANTHROPIC_TYPES.get(status, "api_error"), "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    response = JsonResponse(body, status=status, headers=headers)
    if status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response


def error_json(request, status: int, message: str) -> JsonResponse:
    """An error in the shape the caller's client expects, by the request's path: the chat proxy's under /openai/ and
    /anthropic/, ``{"detail"}`` elsewhere."""
    if request.path.startswith(PROXY_PREFIX):
        return proxy_error(status, message)
    if request.path.startswith(ANTHROPIC_PREFIX):
        return proxy_error(status, message, api="messages")
    return JsonResponse({"detail": message}, status=status)


def bad_request(request, exception=None):
    if request.path.startswith(JSON_PREFIXES):
        return error_json(request, 400, "Bad request (check the Host header and the URL).")
    return defaults.bad_request(request, exception)


def page_not_found(request, exception=None):
    if request.path.startswith(JSON_PREFIXES):
        return error_json(request, 404, f"No API endpoint at {request.path}; the endpoints are listed at /api/docs/.")
    return defaults.page_not_found(request, exception)


def server_error(request):
    if request.path.startswith(JSON_PREFIXES):
        return error_json(request, 500, "Server error; it has been logged.")
    return defaults.server_error(request)
