"""The base app's own API: the calling bot's job runs (retrying a failed one, running one that waits for the LLM
budget now offline), its keys and those of its end users, its daily usage."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.api.serializers import (
    DailyUsageSerializer,
    EndUserKeySerializer,
    JobForcedSerializer,
    JobRetriedSerializer,
    JobRunSerializer,
    KeySerializer,
)
from kbsite.jobs import job_force_offline, job_retry
from kbsite.keys import key_issue
from kbsite.models import ApiKey, EndUser, JobRun
from kbsite.models.stats import DailyUsage


class JobRunFilterSet(django_filters.FilterSet):
    kb = django_filters.CharFilter(field_name="kb__name", help_text="Runs of this knowledge base.")
    status = django_filters.MultipleChoiceFilter(choices=JobRun.Status.choices)
    kind = django_filters.MultipleChoiceFilter(choices=JobRun.Kind.choices)

    class Meta:
        model = JobRun
        fields = ["kb", "status", "kind"]


class JobRunViewSet(ReplicaReadsMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The background jobs of the bot's knowledge bases: what each did (counts, tokens, errors), a retry for one
    that failed (its input is queued again; the failed run becomes history), and "run now offline" for one waiting
    for the LLM budget."""

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

    @extend_schema(request=None, responses={202: JobForcedSerializer})
    @action(detail=True, methods=["post"], url_path="run-offline", url_name="run-offline")
    def run_offline(self, request, pk=None):
        """Take up the input of a run waiting for the LLM budget at once, by a new run that extracts it with the
        offline heuristics whatever the budget (no LLM tokens spent), as the admin's "run now offline" does; the
        bot's settings are unchanged and its other runs still wait."""
        job = self.get_object()
        if job.status != JobRun.Status.WAITING:
            return Response(
                {"detail": f"Only a job waiting for the LLM budget can be run now offline; this one is {job.status}."},
                status=status.HTTP_409_CONFLICT,
            )
        new = job_force_offline(job=job, by=f"api:{request.auth.key.prefix}")
        if new is None:
            return Response(
                {"detail": "Nothing is left to run: the job's input is gone, or another run took it up meanwhile."},
                status=status.HTTP_409_CONFLICT,
            )
        return Response({"forced": job.pk, "job": JobRunSerializer(new).data}, status=status.HTTP_202_ACCEPTED)


class _KeyViewSet(
    ReplicaReadsMixin, mixins.ListModelMixin, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet
):
    """Keys of the calling bot: POST issues one (the key itself is in that answer only; ``read_only`` for one that
    writes nothing), DELETE revokes one."""

    lookup_value_regex = "[0-9]+"
    default_name = "issued by API"

    def owner(self) -> EndUser | None:
        """The end user a new key acts as (None: a key of the whole bot)."""
        return None

    def create(self, request, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        key, plain = key_issue(
            request.user,
            name=serializer.validated_data.get("name") or self.default_name,
            end_user=self.owner(),
            read_only=serializer.validated_data.get("read_only", False),
        )
        data = self.get_serializer_class()(key, context={"plain_key": plain}).data
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        if instance.revoked_at is None:
            instance.revoke()


class BotKeyViewSet(_KeyViewSet):
    """The bot's own keys (not its end users'), to rotate them without the admin; a key may revoke itself."""

    serializer_class = KeySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiKey.objects.none()
        return ApiKey.objects.filter(bot=self.request.user, end_user__isnull=True).order_by("-created_at", "-id")


class EndUserKeyViewSet(_KeyViewSet):
    """Keys of one end user, for a client of that user's own (an app, an MCP client on their machine): such a key
    acts as that user and only as them (recall, context, ask, tools, posting turns and text, their own export
    and erasure), and goes with them when they are erased. Issued by a key of the bot."""

    serializer_class = EndUserKeySerializer
    default_name = "end user"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ApiKey.objects.none()
        return (
            ApiKey.objects.filter(bot=self.request.user, end_user__external_id=self.kwargs["user_id"])
            .select_related("end_user")
            .order_by("-created_at", "-id")
        )

    def owner(self) -> EndUser:
        return EndUser.objects.seen(self.request.user, self.kwargs["user_id"])


class DailyUsageFilterSet(django_filters.FilterSet):
    kb = django_filters.CharFilter(field_name="kb__name", help_text="One knowledge base's usage.")
    user_id = django_filters.CharFilter(field_name="end_user__external_id", help_text="One end user's usage.")

    class Meta:
        model = DailyUsage
        fields = ["kb", "user_id"]


# ``from`` and ``to`` are Python keywords: declared after the class.
DailyUsageFilterSet.base_filters["from"] = django_filters.DateFilter(
    field_name="day", lookup_expr="gte", help_text="First day (YYYY-MM-DD, UTC), included."
)
DailyUsageFilterSet.base_filters["to"] = django_filters.DateFilter(
    field_name="day", lookup_expr="lte", help_text="Last day (YYYY-MM-DD, UTC), included."
)


class UsageView(ReplicaReadsMixin, generics.ListAPIView):
    """The calling bot's usage per day, KB and end user, newest day first: its recalls, context blocks and answers
    (the chat proxies' context blocks among them) and its jobs, with the LLM calls and tokens, texts embedded and
    milliseconds they spent. ``kb`` is null for context blocks (they span the always-on KBs), ``user_id`` for what
    served no end user. A key of one end user sees its own user's usage only."""

    serializer_class = DailyUsageSerializer
    filterset_class = DailyUsageFilterSet
    end_user_actions = {"get"}

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DailyUsage.objects.none()
        rows = DailyUsage.objects.filter(bot=self.request.user).select_related("kb", "end_user")
        if self.request.auth.end_user_key:
            rows = rows.filter(end_user=self.request.auth.end_user)
        return rows.order_by("-day", "kb__name", "end_user__external_id", "id")
