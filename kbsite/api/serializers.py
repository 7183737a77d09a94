"""Serializers of the base app's own API: job runs, the bot's keys and those of its end users."""

from __future__ import annotations

from rest_framework import serializers

from kbsite.models import ApiKey, JobRun


class JobRunSerializer(serializers.ModelSerializer):
    kb = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)
    mode = serializers.CharField(read_only=True, help_text="llm, heuristic or manual; empty until the job has run.")

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
            "error",
            "detail",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class JobRetriedSerializer(serializers.Serializer):
    retried = serializers.IntegerField(help_text="The failed run, now history ('retried').")
    job = JobRunSerializer(help_text="The run that takes its input up.")


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
