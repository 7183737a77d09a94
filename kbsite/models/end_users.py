"""EndUser: a bot's end users, named by the bot's own ids; Erasure: the content-free record of erasing one."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.db import models
from django.utils import timezone

from kbsite.models.bots import Bot
from kbsite.models.names import user_id_validator


class EndUserQuerySet(models.QuerySet):
    def named(self, bot: Bot, user_id: str | None) -> EndUser | None:
        """The bot's end user ``user_id`` (None for none given, or one that holds nothing yet)."""
        if not user_id:
            return None
        return next(iter(self.filter(bot=bot, external_id=user_id).order_by()[:1]), None)  # unique: no sort

    def seen(self, bot: Bot, user_id: str | None) -> EndUser | None:
        """The bot's end user ``user_id``, created when first named, with ``last_seen_at`` moved to now."""
        if not user_id:
            return None
        user, created = self.get_or_create(bot=bot, external_id=user_id, defaults={"last_seen_at": timezone.now()})
        if not created:
            self.touch(user)
        return user

    def touch(self, user: EndUser) -> None:
        """Move the user's ``last_seen_at`` to now (written at most once a minute)."""
        now = timezone.now()
        if now - user.last_seen_at > timedelta(minutes=1):
            self.filter(pk=user.pk).update(last_seen_at=now)
            user.last_seen_at = now


class EndUser(models.Model):
    """One of a bot's end users, named by the bot's own id for them (``user_id`` in the API).

    Sessions, memories, insights, documents and ingest items of an end user are theirs alone: recall with their
    ``user_id`` sees them plus the KB's shared rows (those without an end user), recall without a user sees only
    the shared ones, and nothing of one user ever reaches another.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="end_users")
    external_id = models.CharField("user id", max_length=200, validators=[user_id_validator])
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(default=timezone.now)

    objects = EndUserQuerySet.as_manager()

    class Meta:
        ordering = ["bot__name", "external_id"]
        constraints = [models.UniqueConstraint(fields=["bot", "external_id"], name="unique_end_user_per_bot")]
        verbose_name = "end user"

    def __str__(self) -> str:
        return self.external_id


class Erasure(models.Model):
    """The audit record of an end user's erasure: who, when and how many rows, and no content.

    The user's id is kept only as its SHA-256, so that "was user X erased?" can be answered without keeping X.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="erasures")
    user_id_sha256 = models.CharField(max_length=64, db_index=True)
    erased_by = models.CharField(max_length=200, help_text="The API key or the operator that asked for it.")
    counts = models.JSONField(default=dict, help_text="Rows and files removed, by kind.")
    erased_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-erased_at"]

    def __str__(self) -> str:
        return f"{self.bot.name}: {self.user_id_sha256[:12]} at {self.erased_at:%Y-%m-%d %H:%M}"

    @staticmethod
    def digest(user_id: str) -> str:
        return hashlib.sha256(user_id.encode()).hexdigest()
