"""The review queue through the API: list the calling bot's supersessions and open conflicts, and accept, revert or
keep both."""

from __future__ import annotations

import django_filters
from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from kbsite.api.replica_reads import ReplicaReadsMixin
from memories.models import Memory, Message, ReviewItem
from memories.reviews import services


class ReviewMemorySerializer(serializers.ModelSerializer):
    """One side of a review item: the fact, whether it is live, when it held, and the turns it came from."""

    live = serializers.BooleanField(source="is_live", read_only=True)
    source_turns = serializers.SerializerMethodField()

    class Meta:
        model = Memory
        fields = [
            "id",
            "text",
            "kind",
            "live",
            "valid_from",
            "valid_to",
            "created_at",
            "retired_reason",
            "source_turns",
        ]

    def get_source_turns(self, memory) -> list[dict]:
        return [
            {"session_id": m.session.external_id, "external_id": m.external_id, "content": m.content[:500]}
            for m in memory.source_messages.all()
        ]


class ReviewItemSerializer(serializers.ModelSerializer):
    kb = serializers.CharField(source="kb.name", read_only=True)
    user_id = serializers.CharField(source="end_user.external_id", read_only=True, allow_null=True, default=None)
    older = ReviewMemorySerializer(read_only=True)
    newer = ReviewMemorySerializer(read_only=True)

    class Meta:
        model = ReviewItem
        fields = [
            "id",
            "kind",
            "status",
            "kb",
            "user_id",
            "attribute",
            "reason",
            "older",
            "newer",
            "created_at",
            "resolved_at",
            "resolved_by",
        ]


class ReviewFilterSet(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        choices=[*ReviewItem.Status.choices, ("all", "All")],
        method="filter_status",
        help_text="open, accepted, reverted, kept_both, or all (the default lists every status).",
    )
    kind = django_filters.ChoiceFilter(choices=ReviewItem.Kind.choices, help_text="supersession or conflict.")
    user_id = django_filters.CharFilter(field_name="end_user__external_id", help_text="One end user's items.")
    kb = django_filters.CharFilter(field_name="kb__name", help_text="One knowledge base's items (its name).")

    class Meta:
        model = ReviewItem
        fields = ["status", "kind", "user_id", "kb"]

    def filter_status(self, queryset, name, value):
        return queryset if value == "all" else queryset.filter(status=value)


class ReviewItemViewSet(ReplicaReadsMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Every supersession (the LLM's, a restatement, an edit) and every open conflict of the calling bot's facts,
    newest first; accept, revert or keep both. A key of one end user sees its own user's items."""

    serializer_class = ReviewItemSerializer
    filterset_class = ReviewFilterSet
    end_user_actions = {"list", "retrieve"}
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ReviewItem.objects.none()
        caller = self.request.auth
        turns = Message.objects.select_related("session")
        items = (
            ReviewItem.objects.filter(kb__bot=caller.bot)
            .select_related("kb", "end_user", "older", "newer")
            .prefetch_related(
                Prefetch("older__source_messages", queryset=turns), Prefetch("newer__source_messages", queryset=turns)
            )
            .order_by("-created_at", "-id")
        )
        if caller.end_user_key:
            items = items.filter(end_user_id=caller.end_user_id)
        return items

    def _settle(self, request, settle) -> Response:
        item = self.get_object()
        try:
            item = settle(item=item, by=request.auth.label)
        except services.ReviewClosed as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(self.get_queryset().get(pk=item.pk)).data)

    @extend_schema(request=None, responses=ReviewItemSerializer)
    @action(detail=True, methods=["post"])
    def accept(self, request, pk=None):
        """Accept: a supersession stays; of a conflict, the newer fact stands and the older is retired."""
        return self._settle(request, services.review_accept)

    @extend_schema(request=None, responses=ReviewItemSerializer)
    @action(detail=True, methods=["post"])
    def revert(self, request, pk=None):
        """Revert: the older fact is live again, the newer retired."""
        return self._settle(request, services.review_revert)

    @extend_schema(request=None, responses=ReviewItemSerializer)
    @action(detail=True, methods=["post"], url_path="keep-both")
    def keep_both(self, request, pk=None):
        """Keep both: both facts are live."""
        return self._settle(request, services.review_keep_both)
