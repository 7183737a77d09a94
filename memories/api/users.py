"""The API of a bot's end users: list and read them with what is held about each, export and erase them."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.models import USER_ID_RE, EndUser, KnowledgeBase
from kbsite.selectors import kb_get
from memories import rights
from memories.api.exports import json_lines_response
from memories.api.serializers import EndUserSerializer, ErasedSerializer

USER_KB = OpenApiParameter("kb", str, description="Only end users holding something in this KB, counted in it.")


@extend_schema_view(list=extend_schema(parameters=[USER_KB]))
class EndUserViewSet(ReplicaReadsMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The bot's end users (named by ``user_id`` in its requests), what is held about each, and their data rights:
    export and erasure."""

    serializer_class = EndUserSerializer
    end_user_actions = {"retrieve", "export", "destroy"}  # a key of one end user: its own
    lookup_field = "external_id"
    lookup_url_kwarg = "user_id"
    lookup_value_regex = USER_ID_RE.strip("^$")

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return EndUser.objects.none()
        kb_name = self.request.query_params.get("kb")
        kb = kb_get(bot=self.request.user, name=kb_name) if kb_name else None
        return rights.users_with_counts(bot=self.request.user, kb=kb)

    def get_object(self) -> EndUser:
        user = self.get_queryset().filter(external_id=self.kwargs["user_id"]).first()
        if user is None:
            raise NotFound(f"This bot holds nothing about an end user {self.kwargs['user_id']!r}.")
        return user

    @extend_schema(responses={200: ErasedSerializer})
    def destroy(self, request, user_id=None):
        """Erase the end user everywhere (turns, sessions, memories with their history, insights drawn from them,
        entities, documents and their files, pending input). Answers the counts; an audit record without content
        is kept."""
        user = self.get_object()
        counts = rights.user_erase(end_user=user, erased_by=request.auth.label)
        return Response({"user_id": user_id, "erased": counts})

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def export(self, request, user_id=None):
        """Everything held about the end user, as JSON Lines (streamed)."""
        user = self.get_object()
        kbs = list(KnowledgeBase.objects.for_bot(request.user).order_by("name"))
        return json_lines_response(rights.records(kbs=kbs, end_user=user), "user-export.jsonl")
