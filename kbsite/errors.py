"""Django's error pages for what no view answered (an unknown URL, a bad Host header, a crash): JSON under /api/,
the usual pages elsewhere (the admin)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults

API_PREFIX = "/api/"


def bad_request(request, exception=None):
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Bad request (check the Host header and the URL)."}, status=400)
    return defaults.bad_request(request, exception)


def page_not_found(request, exception=None):
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            {"detail": f"No API endpoint at {request.path}; the endpoints are listed at /api/docs/."}, status=404
        )
    return defaults.page_not_found(request, exception)


def server_error(request):
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Server error; it has been logged."}, status=500)
    return defaults.server_error(request)
