"""Project-wide REST plumbing: pagination and the error handler.

Nothing here knows about the domain; it makes every client error a 4xx with a
message that says what to fix.
"""

from __future__ import annotations

import logging

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


class Pagination(PageNumberPagination):
    """Page-number pagination with a client-chosen page size (at most 500)."""

    page_size_query_param = "page_size"
    max_page_size = 500


def exception_handler(exc, context):
    """DRF's handler, plus Django's own client errors turned into 4xx JSON."""
    response = drf_exception_handler(exc, context)
    if response is not None:
        return response
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {"detail": "Request body is too large. Send a smaller batch or upload the file as a document."},
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, SuspiciousOperation):
        return Response({"detail": str(exc) or "Bad request."}, status=status.HTTP_400_BAD_REQUEST)
    from memories.embeddings import EmbeddingError

    if isinstance(exc, EmbeddingError):
        # A remote embedding endpoint that is down is not the client's fault, nor a crash: retry later.
        return Response(
            {"detail": f"The embedding backend is unavailable ({exc}); nothing was changed, try again later."},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    return None
