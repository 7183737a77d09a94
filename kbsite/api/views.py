"""The base app's own API: the calling bot's job runs (and retrying a failed one), its keys and those of its end
users."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from kbsite.api.serializers import BotKeySerializer, EndUserKeySerializer, JobRetriedSerializer, JobRunSerializer
from kbsite.jobs import job_retry
from kbsite.models import ApiKey, EndUser, JobRun


class JobRunFilterSet(django_filters.FilterSet):
    kb = django_filters.CharFilter(field_name="kb__name", help_text="Runs of this knowledge base.")
    status = django_filters.MultipleChoiceFilter(choices=JobRun.Status.choices)
    kind = django_filters.MultipleChoiceFilter(choices=JobRun.Kind.choices)

    class Meta:
        model = JobRun
        fields = ["kb", "status", "kind"]


class JobRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The background jobs of the bot's knowledge bases: what each did (counts, tokens, errors), and a retry for
    one that failed (its input is queued again; the failed run becomes history)."""

    serializer_class = JobRunSerializer
    filterset_class = JobRunFilterSet
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return JobRun.objects.none()
        return JobRun.objects.filter(kb__bot=self.request.user).select_related("kb").order_by("-created_at", "-id")

    @extend_schema(request=None, responses={202: JobRetriedSerializer})
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Queue a failed run's input again (its tries start again), as the admin's retry does."""
        job = self.get_object()
        if job.status != JobRun.Status.FAILED:
            return Response(
                {"detail": f"Only a failed job can be retried; this one is {job.status}."},
                status=status.HTTP_409_CONFLICT,
            )
        new = job_retry(job=job)
        if new is None:
            return Response(
                {"detail": "Nothing is left to retry: the job's input is gone (deleted since it failed)."},
                status=status.HTTP_409_CONFLICT,
            )
        return Response({"retried": job.pk, "job": JobRunSerializer(new).data}, status=status.HTTP_202_ACCEPTED)


class EndUserKeyViewSet(
    mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Keys of one end user, for a client of that user's own (an app, an MCP client on their machine): such a key
    acts as that user and only as them (recall, context, ask, tools, posting turns and text, their own export
    and erasure), and goes with them when they are erased. Issued by a key of the bot: the key itself is in the
    answer that issues it, and never again; DELETE revokes it."""

    serializer_class = EndUserKeySerializer
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiKey.objects.none()
        return (
            ApiKey.objects.filter(bot=self.request.user, end_user__external_id=self.kwargs["user_id"])
            .select_related("end_user")
            .order_by("-created_at", "-id")
        )

    def create(self, request, user_id=None):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        end_user = EndUser.objects.seen(request.user, user_id)
        key, plain = request.user.issue_key(
            name=serializer.validated_data.get("name") or "end user",
            end_user=end_user,
            read_only=serializer.validated_data.get("read_only", False),
        )
        data = EndUserKeySerializer(key, context={"plain_key": plain}).data
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        if instance.revoked_at is None:
            instance.revoke()


class BotKeyViewSet(mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """The bot's own keys (not its end users'), to rotate them without the admin: POST issues a new one (shown in
    that answer only; ``read_only`` for one that writes nothing), DELETE revokes one, this very key too."""

    serializer_class = BotKeySerializer
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiKey.objects.none()
        return ApiKey.objects.filter(bot=self.request.user, end_user__isnull=True).order_by("-created_at", "-id")

    def create(self, request):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        key, plain = request.user.issue_key(
            name=serializer.validated_data.get("name") or "issued by API",
            read_only=serializer.validated_data.get("read_only", False),
        )
        return Response(BotKeySerializer(key, context={"plain_key": plain}).data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        if instance.revoked_at is None:
            instance.revoke()
