"""Django's error pages for what no view answered (an unknown URL, a bad Host header, a crash): JSON under /api/
(OpenAI's or Anthropic's error shape under the chat proxy's /openai/ and /anthropic/), the usual pages elsewhere
(the admin)."""

from __future__ import annotations

from django.views import defaults

from kbsite.middleware import API_PREFIX, PROXY_PREFIXES, error_json

JSON_PREFIXES = (API_PREFIX, *PROXY_PREFIXES)


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
