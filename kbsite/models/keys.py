"""ApiKey: a bot's API keys (of the whole bot or of one end user, reading only or not), stored hashed."""

from __future__ import annotations

import hashlib

from django.db import models
from django.utils import timezone


class ApiKeyQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True, bot__is_active=True)


class ApiKey(models.Model):
    """A bot's API key, stored as a SHA-256 hash (keys are 256-bit random, so no slow hash is needed).

    A key of one end user (``end_user``) acts as that user and only as them, on the few things an end user's own
    client needs (recall, context, ask, tools, posting turns and text, their own export and erasure); it is erased
    with them. The bot's keys act for any of its users. A read-only key (of the bot or of a user) writes nothing.
    """

    bot = models.ForeignKey("Bot", on_delete=models.CASCADE, related_name="api_keys")
    end_user = models.ForeignKey(
        "EndUser",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_keys",
        help_text="The end user this key acts as, and only as; none: a key of the whole bot.",
    )
    read_only = models.BooleanField(
        default=False,
        help_text="Reads only: lists, recall, context, ask, searches and the reading tools; nothing written.",
    )
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=16, help_text="First characters of the key, to recognise it.")
    hashed_key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        db_table = "memories_apikey"
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.bot})"

    @staticmethod
    def hash(plain: str) -> str:
        return hashlib.sha256(plain.encode()).hexdigest()

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
