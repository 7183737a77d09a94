"""The base app's own API: the calling bot's job runs, and retrying a failed one."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from kbsite.api.serializers import JobRetriedSerializer, JobRunSerializer
from kbsite.jobs import job_retry
from kbsite.models import JobRun


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
