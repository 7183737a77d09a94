"""The API's error handler: what a client can cause is a 4xx with a message, never a 500.

Every error a client can cause is a 4xx JSON answer with a message that says what to fix, never a 500.
"""

from __future__ import annotations

import logging

from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kbsite.ai.embeddings import EmbeddingError

logger = logging.getLogger(__name__)


def exception_handler(exc, context):
    """DRF's handler, plus Django's own client errors turned into 4xx JSON."""
    response = drf_exception_handler(exc, context)
    if response is not None:
        if isinstance(response.data, list):
            # A ValidationError raised with a message, not a field: the one error shape is an object with a detail.
            response.data = {"detail": " ".join(str(message) for message in response.data)}
        return response
    if isinstance(exc, ObjectDoesNotExist):
        # Selectors say what is missing in the exception's message ("This bot has no knowledge base named …").
        return Response({"detail": str(exc) or "Not found."}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, RequestDataTooBig):
        return Response(
            {"detail": "Request body is too large. Send a smaller batch or upload the file as a document."},
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": " ".join(exc.messages)}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, SuspiciousOperation):
        return Response({"detail": str(exc) or "Bad request."}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, EmbeddingError):
        # A remote embedding endpoint that is down is not the client's fault, nor a crash: retry later.
        return Response(
            {"detail": f"The embedding backend is unavailable ({exc}); nothing was changed, try again later."},
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    return None
