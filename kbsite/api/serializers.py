"""Serializers of the base app's own API: job runs, the bot's keys and those of its end users, usage (in answers,
of jobs, per day)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kbsite.models import ApiKey, JobRun
from kbsite.models.stats import DailyUsage


class UsageSerializer(serializers.Serializer):
    """What kbsite spent on one answer or job."""

    llm_calls = serializers.IntegerField(help_text="LLM calls made, failed ones included.")
    tokens_in = serializers.IntegerField(help_text="Prompt tokens of those calls, as the LLM counted them.")
    tokens_out = serializers.IntegerField(help_text="Completion tokens of those calls.")
    embeddings = serializers.IntegerField(help_text="Texts embedded (the query is one).")
    server_ms = serializers.IntegerField(help_text="Milliseconds spent (a job: its run, start to finish).")


USAGE_HELP = "What this answer spent (absent when USAGE_ACCOUNTING is off)."


class JobRunSerializer(serializers.ModelSerializer):
    kb = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    mode = serializers.CharField(read_only=True, help_text="llm, heuristic or manual; empty until the job has run.")
    usage = serializers.SerializerMethodField(help_text="What its last run spent; null until it has finished.")

    class Meta:
        model = JobRun
        fields = [
            "id",
            "kb",
            "kind",
            "status",
            "target",
            "mode",
            "tries",
            "attempts",
            "retry_at",
            "items_read",
            "facts_added",
            "facts_superseded",
            "facts_skipped",
            "facts_quarantined",
            "tokens_in",
            "tokens_out",
            "usage",
            "error",
            "detail",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(UsageSerializer(allow_null=True))
    def get_usage(self, job: JobRun) -> dict | None:
        if job.started_at is None or job.finished_at is None:
            return None
        return {
            "llm_calls": job.llm_calls,
            "tokens_in": job.tokens_in,
            "tokens_out": job.tokens_out,
            "embeddings": job.embeddings,
            "server_ms": max(0, round((job.finished_at - job.started_at).total_seconds() * 1000)),
        }


class JobRetriedSerializer(serializers.Serializer):
    retried = serializers.IntegerField(help_text="The failed run, now history ('retried').")
    job = JobRunSerializer(help_text="The run that takes its input up.")


class JobForcedSerializer(serializers.Serializer):
    forced = serializers.IntegerField(help_text="The run that waited for the LLM budget, now finished as what it did.")
    job = JobRunSerializer(help_text="The run that takes its input up now, offline (its detail: llm_forced).")


class KeySerializer(serializers.ModelSerializer):
    """A bot's key: never the key itself, except in the answer that issues it."""

    key = serializers.SerializerMethodField(help_text="The key itself: in the answer that issues it, and never again.")

    class Meta:
        model = ApiKey
        fields = ["id", "name", "read_only", "prefix", "key", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = ["id", "prefix", "created_at", "last_used_at", "revoked_at"]
        extra_kwargs = {"name": {"required": False, "max_length": 100}}

    def get_key(self, obj) -> str | None:
        return self.context.get("plain_key")


class EndUserKeySerializer(KeySerializer):
    """A key of one end user."""

    user_id = serializers.CharField(source="end_user.external_id", read_only=True)

    class Meta(KeySerializer.Meta):
        fields = ["id", "user_id", *KeySerializer.Meta.fields[1:]]


class DailyUsageSerializer(serializers.ModelSerializer):
    """A bot's usage of one day for one KB (null: its always-on KBs together, for context blocks) and one end user
    (null: none)."""

    kb = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    user_id = serializers.CharField(source="end_user.external_id", read_only=True, allow_null=True, default=None)

    class Meta:
        model = DailyUsage
        fields = [
            "day",
            "kb",
            "user_id",
            "requests",
            "jobs",
            "llm_calls",
            "tokens_in",
            "tokens_out",
            "embeddings",
            "server_ms",
        ]
        read_only_fields = fields
