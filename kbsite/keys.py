"""Issuing API keys: a new key of a bot (of the whole bot or of one of its end users, reading only or not), stored
hashed; the plain key is returned once and never stored."""

from __future__ import annotations

import secrets

from kbsite.models import ApiKey, Bot, EndUser


def key_issue(
    bot: Bot, *, name: str = "default", end_user: EndUser | None = None, read_only: bool = False
) -> tuple[ApiKey, str]:
    """Create a new API key of ``bot`` (of the whole bot, or of ``end_user``; reading only, or not); returns the row
    and the plain key."""
    plain = f"kb_{secrets.token_urlsafe(32)}"
    key = ApiKey.objects.create(
        bot=bot,
        end_user=end_user,
        read_only=read_only,
        name=name,
        prefix=plain[:10],
        hashed_key=ApiKey.hash(plain),
    )
    return key, plain
