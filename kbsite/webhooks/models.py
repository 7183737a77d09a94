"""Webhook rows: a bot's endpoints, each delivery of an event to one, and each attempt of a delivery."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models, transaction
from django.utils import timezone

from kbsite.models.bots import Bot
from kbsite.webhooks.events import EventType


def secret_new() -> str:
    """A signing secret: shown to the bot once, kept as it is (an HMAC key cannot be stored hashed)."""
    return f"whsec_{secrets.token_urlsafe(32)}"


class WebhookEndpoint(models.Model):
    """Where a bot wants to hear of events, and which ones. ``secret`` signs every delivery; it is shown once, when
    the endpoint is made or its secret rotated. An endpoint whose deliveries keep failing is disabled
    (``is_active`` off, with the reason) until the bot or an operator enables it again."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000, help_text="Where events are posted (http or https).")
    events = ArrayField(
        models.CharField(max_length=40, choices=EventType.choices), help_text="The event types posted here."
    )
    description = models.CharField(max_length=200, blank=True)
    secret = models.CharField(max_length=100, default=secret_new, editable=False)
    is_active = models.BooleanField(default=True, help_text="Off: nothing is posted (disabled by hand or by failures).")
    disabled_reason = models.CharField(max_length=300, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.PositiveIntegerField(
        default=0, help_text="Deliveries failed in a row (every attempt spent); a success starts it again."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "webhook endpoint"
        indexes = [models.Index(fields=["bot", "is_active"], name="webhook_endpoint_bot")]

    def __str__(self) -> str:
        return self.url if self.is_active else f"{self.url} (disabled)"

    def secret_rotate(self) -> str:
        """A new secret, in use from the next attempt on; returns it (to be shown once)."""
        self.secret = secret_new()
        self.save(update_fields=["secret", "updated_at"])
        return self.secret

    def enable(self) -> None:
        """Post events here again, its count of failures started again."""
        self.is_active, self.disabled_reason, self.disabled_at, self.consecutive_failures = True, "", None, 0
        self.save(update_fields=["is_active", "disabled_reason", "disabled_at", "consecutive_failures", "updated_at"])

    def delivery_succeeded(self) -> None:
        if self.consecutive_failures:
            WebhookEndpoint.objects.filter(pk=self.pk).update(consecutive_failures=0)

    def delivery_failed(self) -> bool:
        """Count a delivery that spent every attempt; disable the endpoint once WEBHOOK_DISABLE_AFTER_FAILURES
        failed in a row. Returns whether this disabled it.

        The row is locked: deliveries of one endpoint fail in several workers at once, and each must count."""
        with transaction.atomic():
            row = WebhookEndpoint.objects.select_for_update().get(pk=self.pk)
            row.consecutive_failures += 1
            disable = row.is_active and row.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER_FAILURES
            if disable:
                row.is_active, row.disabled_at = False, timezone.now()
                row.disabled_reason = f"disabled after {row.consecutive_failures} deliveries failed in a row"
            row.save(update_fields=["consecutive_failures", "is_active", "disabled_at", "disabled_reason"])
        self.consecutive_failures, self.is_active = row.consecutive_failures, row.is_active
        self.disabled_at, self.disabled_reason = row.disabled_at, row.disabled_reason
        return disable


class WebhookDelivery(models.Model):
    """One event posted to one endpoint: the exact body sent (a redelivery sends it again, with the same event id,
    as a new delivery), where it stands, and what the last attempt got. ``bot`` is the endpoint's, kept here so
    that the admin limits an operator's log as it limits every list."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending (attempts remain)"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="webhook_deliveries")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.CharField(max_length=40, db_index=True)
    event_type = models.CharField(max_length=40, choices=EventType.choices)
    body = models.TextField(help_text="The JSON posted: id, type, created and data.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    response_code = models.PositiveIntegerField(null=True, blank=True, help_text="The last attempt's HTTP status.")
    error = models.CharField(max_length=500, blank=True, help_text="Why the last attempt failed.")
    next_attempt_at = models.DateTimeField(null=True, blank=True, help_text="When the next attempt is due.")
    queued_at = models.DateTimeField(null=True, blank=True, help_text="When its task was last queued.")
    leased_until = models.DateTimeField(
        null=True, blank=True, help_text="A task is attempting it until then (no other task may)."
    )
    redelivery_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The delivery this one sends again (null: the first delivery of its event, or one whose first was "
        "pruned from the log).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True, help_text="When a receiver took it (2xx).")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_delivery_due",
                condition=models.Q(status="pending"),
            ),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_endpoint"),
            # The hourly prune reads the oldest finished ones a batch at a time: this index gives each batch at once,
            # without a scan of the whole log.
            models.Index(
                fields=["created_at"],
                name="webhook_delivery_finished",
                condition=models.Q(status__in=["succeeded", "failed"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} to {self.endpoint.url}"


class WebhookAttempt(models.Model):
    """One POST of a delivery, and what came back: a status code, or the error that stopped it."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(default=0)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    response_body = models.CharField(max_length=500, blank=True, help_text="The start of what the receiver said.")
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhook_attempt_once")]

    def __str__(self) -> str:
        return f"attempt {self.number}: {self.response_code or self.error}"

    @property
    def succeeded(self) -> bool:
        return self.response_code is not None and 200 <= self.response_code < 300
