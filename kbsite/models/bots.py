"""Bot: a client application, which owns API keys, knowledge bases and end users."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

from kbsite.models.keys import ApiKey
from kbsite.models.names import name_validator

if TYPE_CHECKING:
    from kbsite.models.end_users import EndUser


class Bot(models.Model):
    """A client application. Owns API keys and knowledge bases."""

    name = models.CharField(max_length=64, unique=True, validators=[name_validator])
    description = models.TextField(blank=True)
    is_active = models.BooleanField(default=True)
    operators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="operated_bots",
        help_text="Staff users who operate this bot: in the admin they see and curate its data, and no other bot's "
        "(give them the Operators group for the permissions). Superusers see every bot.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memories_bot"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def issue_key(
        self, *, name: str = "default", end_user: EndUser | None = None, read_only: bool = False
    ) -> tuple[ApiKey, str]:
        """Create a new API key (of the whole bot, or of one of its end users; reading only, or not); returns the
        row and the plain key, which is never stored."""
        plain = f"kb_{secrets.token_urlsafe(32)}"
        key = ApiKey.objects.create(
            bot=self,
            end_user=end_user,
            read_only=read_only,
            name=name,
            prefix=plain[:10],
            hashed_key=ApiKey.hash(plain),
        )
        return key, plain
