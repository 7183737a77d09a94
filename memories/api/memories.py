"""The API of one KB's memories (list, read, edit, restore, history, retire, delete) and insights (list, read)."""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException
from rest_framework.response import Response

from kbsite.api.mixins import KB_NAME, KBScopedMixin
from kbsite.api.replica_reads import ReplicaReadsMixin
from memories import services
from memories.api.serializers import InsightSerializer, MemorySerializer, RetireSerializer
from memories.filtersets import InsightFilterSet, MemoryFilterSet
from memories.models import Insight, Memory, Message


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


@extend_schema(parameters=[KB_NAME])
class MemoryViewSet(
    ReplicaReadsMixin,
    KBScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Memories of one KB: list (live by default), read, edit, retire, delete."""

    serializer_class = MemorySerializer
    filterset_class = MemoryFilterSet
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Memory.objects.none()
        return (
            Memory.objects.filter(kb=self.get_kb())
            .select_related("source_chunk__document", "end_user")
            .prefetch_related(Prefetch("source_messages", queryset=Message.objects.select_related("session")))
            .order_by("-created_at", "-id")
        )

    def filter_queryset(self, queryset):
        # Filters (and the live-only default) shape the list; an id always resolves.
        if self.action != "list":
            return queryset
        return super().filter_queryset(queryset)

    def perform_update(self, serializer):
        """A new wording is a new version (a new id): the answer is that version, the edited one is in its
        history."""
        try:
            serializer.instance = services.memory_update(memory=serializer.instance, data=serializer.validated_data)
        except services.MemoryRetired as exc:
            raise Conflict(str(exc)) from exc

    def perform_destroy(self, instance):
        """Deleted for good, with the insights and graph edges that say what it said (retire keeps it instead)."""
        services.memory_delete(memory=instance)

    @extend_schema(request=None, responses=MemorySerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request, kb_name=None, pk=None):
        """Un-retire a memory. If its replacement is still live, the supersession is undone: the replacement is
        retired in its place."""
        memory = self.get_object()
        if not services.memory_restore(memory=memory):
            return Response({"detail": "This memory is live."}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(responses=MemorySerializer(many=True))
    @action(detail=True, methods=["get"])
    def history(self, request, kb_name=None, pk=None):
        """The memory's whole history: every version linked to it by supersession (edits, newer facts, restores),
        oldest first."""
        versions = self.get_object().versions()
        queryset = self.get_queryset().filter(pk__in=[m.pk for m in versions]).order_by("created_at", "id")
        return Response(self.get_serializer(queryset, many=True).data)

    @extend_schema(request=RetireSerializer, responses=MemorySerializer)
    @action(detail=True, methods=["post"])
    def retire(self, request, kb_name=None, pk=None):
        """Retire a memory: it stops being recalled but stays in the history."""
        memory = self.get_object()
        params = RetireSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        if not services.memory_retire(memory=memory, reason=params.validated_data["reason"]):
            return Response({"detail": "This memory is already retired."}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(self.get_object()).data)


@extend_schema(parameters=[KB_NAME])
class InsightViewSet(ReplicaReadsMixin, KBScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Insights of one KB, with the ids of the memories each one links."""

    serializer_class = InsightSerializer
    filterset_class = InsightFilterSet
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Insight.objects.none()
        return (
            Insight.objects.filter(kb=self.get_kb())
            .select_related("end_user")
            .prefetch_related(Prefetch("memories", queryset=Memory.objects.only("id")))
            .order_by("-created_at", "-id")
        )
