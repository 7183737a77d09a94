"""Serializers of the webhooks API: an endpoint (its secret in the answer that makes or rotates it only), and its
deliveries with their attempts."""

from __future__ import annotations

from rest_framework import serializers

from kbsite.webhooks.addresses import UnsafeAddress, url_check
from kbsite.webhooks.events import EventType
from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint


class WebhookEndpointSerializer(serializers.ModelSerializer):
    """An endpoint: never its secret, except in the answer that makes it or rotates it."""

    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EventType.values),
        allow_empty=False,
        max_length=len(EventType.values),
        help_text="The event types posted to it.",
    )
    secret = serializers.SerializerMethodField(
        help_text="The signing secret: in the answer that makes the endpoint or rotates it, and never again."
    )

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "events",
            "description",
            "is_active",
            "disabled_reason",
            "disabled_at",
            "consecutive_failures",
            "secret",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "disabled_reason", "disabled_at", "consecutive_failures", "created_at", "updated_at"]
        extra_kwargs = {
            "is_active": {"help_text": "Off: nothing is posted. Turning it on again enables a disabled one."}
        }

    def get_secret(self, obj) -> str | None:
        return self.context.get("secret")

    def validate_url(self, value: str) -> str:
        try:
            url_check(value)
        except UnsafeAddress as exc:
            raise serializers.ValidationError(str(exc)) from None
        return value

    def validate_events(self, value: list[str]) -> list[str]:
        return sorted(set(value), key=EventType.values.index)


class WebhookAttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookAttempt
        fields = ["number", "started_at", "duration_ms", "response_code", "error"]
        read_only_fields = fields


class WebhookDeliverySerializer(serializers.ModelSerializer):
    attempt_log = WebhookAttemptSerializer(many=True, read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "status",
            "attempts",
            "response_code",
            "error",
            "next_attempt_at",
            "created_at",
            "delivered_at",
            "redelivery_of",
            "attempt_log",
        ]
        read_only_fields = fields
