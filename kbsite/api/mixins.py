"""Views scoped to one knowledge base of the calling bot, named in the URL (``kbs/<kb_name>/…``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework import status
from rest_framework.exceptions import APIException

from kbsite.models import NAME_RE, KnowledgeBase
from kbsite.selectors import kb_get

KB_NAME = OpenApiParameter(
    "kb_name",
    str,
    OpenApiParameter.PATH,
    description="Knowledge base name.",
    pattern=NAME_RE,
    examples=[OpenApiExample("notes", value="notes")],
)


class KBInactive(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "This knowledge base is inactive; activate it (PATCH is_active=true) before sending input."
    default_code = "kb_inactive"


def active_kb(request, name: str) -> KnowledgeBase:
    """The calling bot's KB ``name`` (404 otherwise), refusing input while it is inactive (409)."""
    kb = kb_get(bot=request.user, name=name)
    if not kb.is_active:
        raise KBInactive()
    return kb


class KBScopedMixin:
    """Resolves ``kb_name`` from the URL within the calling bot's KBs (404 otherwise)."""

    def get_kb(self) -> KnowledgeBase:
        if not hasattr(self, "_kb"):
            self._kb = kb_get(bot=self.request.user, name=self.kwargs["kb_name"])
        return self._kb
