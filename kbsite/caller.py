"""Who a request acts for: one object, built once by each surface's authentication and handed to services and tools.

The REST API (``request.auth``), MCP (the gate), the chat proxies and the admin's recall console each make a
:class:`Caller` from what authenticated the request: a bot's key, a key of one end user, or an operator choosing a
bot and a user. Naming an end user on the way (``user_id``, ``X-User-Id``, the proxy's ``user``) gives the caller
for that user with :meth:`Caller.acting_for` (a read) or :meth:`Caller.writing_for` (a write, which names the user
into existence); a key of one end user acts as its user whether named or not, and naming another is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db.models import QuerySet

from kbsite.models import ApiKey, Bot, EndUser, KnowledgeBase


class NotTheKeysUser(ValueError):
    """A request with a key of one end user names another user."""


@dataclass(frozen=True)
class Caller:
    """The bot a request acts for, the key that says so (None: an operator in the admin), and the end user it
    serves: ``user_id`` as named, ``end_user`` its row (None while that user holds nothing yet, or when none is
    named: the shared rows only)."""

    bot: Bot
    key: ApiKey | None = None
    user_id: str | None = None
    end_user: EndUser | None = None

    @classmethod
    def of_key(cls, key: ApiKey) -> Caller:
        """The caller a key makes: its bot, and for a key of one end user, that user."""
        user = key.end_user if key.end_user_id else None
        return cls(bot=key.bot, key=key, user_id=user.external_id if user else None, end_user=user)

    @property
    def read_only(self) -> bool:
        return bool(self.key and self.key.read_only)

    @property
    def end_user_key(self) -> bool:
        """Whether the key is one end user's (it acts as that user only)."""
        return bool(self.key and self.key.end_user_id)

    @property
    def end_user_id(self) -> int | None:
        return self.end_user.pk if self.end_user else None

    @property
    def label(self) -> str:
        """Who this is, for audit records."""
        return f"API key {(self.key.name or 'api')!r}" if self.key else "operator"

    def kbs(self) -> QuerySet:
        """The knowledge bases this caller may reach: its bot's."""
        return KnowledgeBase.objects.for_bot(self.bot)

    def named_check(self, named: str | None) -> None:
        """Refuse (:class:`NotTheKeysUser`) a key of one end user naming another user."""
        if self.end_user_key and named not in (None, "", self.user_id):
            raise NotTheKeysUser(f"This key is end user {self.user_id!r}'s: it cannot act for {named!r}.")

    def acting_for(self, named: str | None) -> Caller:
        """This caller serving end user ``named`` for a read (their own and the shared rows; a user who holds
        nothing yet sees the shared ones). A key of one end user stays its user's."""
        self.named_check(named)
        if self.end_user_key:
            return self
        if not named:
            return replace(self, user_id=None, end_user=None)
        return replace(self, user_id=named, end_user=EndUser.objects.named(self.bot, named))

    def writing_for(self, named: str | None) -> Caller:
        """This caller serving end user ``named`` for a write: the user is made when first named."""
        self.named_check(named)
        if self.end_user_key:
            EndUser.objects.touch(self.end_user)
            return self
        if not named:
            return replace(self, user_id=None, end_user=None)
        return replace(self, user_id=named, end_user=EndUser.objects.seen(self.bot, named))
