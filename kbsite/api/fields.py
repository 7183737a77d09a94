"""Serializer fields the apps' APIs share."""

from __future__ import annotations

from rest_framework import serializers

from kbsite.models import EndUser, user_id_validator


class UserIdField(serializers.CharField):
    """The optional ``user_id`` of a request: the bot's own id for one of its end users."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "The bot's id for the end user this is about (1-200 of A-Z a-z 0-9 _ . : @ -). With it: that user's own "
            "memories and documents plus the shared ones; without: the shared ones only.",
        )
        super().__init__(max_length=200, validators=[user_id_validator], **kwargs)


def end_user_named(bot, data: dict) -> EndUser | None:
    """The end user a read request names (``user_id`` popped from ``data``); None when none is named or the user
    holds nothing yet, which sees the shared rows only."""
    return EndUser.objects.named(bot, data.pop("user_id", None))


def end_user_seen(bot, data: dict) -> EndUser | None:
    """The end user a write request names (``user_id`` popped from ``data``), created when first named."""
    return EndUser.objects.seen(bot, data.pop("user_id", None))
