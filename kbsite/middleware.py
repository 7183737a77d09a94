"""Refuse oversized API bodies before anything reads them.

DRF's JSON parser reads the request stream directly, which bypasses Django's
DATA_UPLOAD_MAX_MEMORY_SIZE check, so the limit is enforced here for every
API call: 413 with a JSON message, never a half-read body or a 500.
"""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse


class BodySizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/api/"):
            content_type = request.META.get("CONTENT_TYPE", "")
            limit = (
                settings.MAX_UPLOAD_BYTES
                if content_type.startswith("multipart/")
                else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            )
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return JsonResponse({"detail": "Content-Length header is not a number."}, status=400)
            if length > limit:
                return JsonResponse(
                    {"detail": f"Request body is {length} bytes; the limit for this kind of request is {limit} bytes."},
                    status=413,
                )
        return self.get_response(request)
