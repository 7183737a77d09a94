"""Refuse requests that cannot be served before anything reads them: oversized API bodies (413) and URLs whose path
or query holds text that cannot be stored (400), each with a message; JSON for the API."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseBadRequest, JsonResponse

from kbsite.text import UnstorableText, text_check


class RequestGuardMiddleware:
    """DRF's JSON parser reads the request stream directly, which bypasses Django's DATA_UPLOAD_MAX_MEMORY_SIZE check,
    so the body limit is enforced here for every API call: 413 with a JSON message, never a half-read body or a 500.
    A NUL or a lone surrogate in the URL would reach a query and fail there: refused here, for every page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        api = request.path.startswith("/api/")
        try:
            text_check({"path": request.path, "query": {key: request.GET.getlist(key) for key in request.GET}})
        except UnstorableText as exc:
            message = f"The URL's {exc}."
            return JsonResponse({"detail": message}, status=400) if api else HttpResponseBadRequest(message)
        if api:
            return self._body_size_checked(request) or self.get_response(request)
        return self.get_response(request)

    def _body_size_checked(self, request):
        content_type = request.META.get("CONTENT_TYPE", "")
        files = content_type.startswith(("multipart/", "application/x-ndjson"))  # uploads, and imports
        limit = settings.MAX_UPLOAD_BYTES if files else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse({"detail": "Content-Length header is not a number."}, status=400)
        if length > limit:
            return JsonResponse(
                {"detail": f"Request body is {length} bytes; the limit for this kind of request is {limit} bytes."},
                status=413,
            )
        return None
