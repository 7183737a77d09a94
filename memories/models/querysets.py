"""The memory domain's querysets: rows live until retired (memories, insights), and memories in valid time."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from kbsite.models import Bot


class LifeSpanQuerySet(models.QuerySet):
    """Rows that are live until retired (``retired_at`` set): memories and insights."""

    def live(self):
        """Not retired: what is currently believed."""
        return self.filter(retired_at__isnull=True)

    def retired(self):
        return self.filter(retired_at__isnull=False)

    def known_at(self, moment):
        """What the system held as live at ``moment`` (system time)."""
        return self.filter(created_at__lte=moment).filter(Q(retired_at__isnull=True) | Q(retired_at__gt=moment))

    def owned_by(self, end_user_id: int | None):
        """Rows of exactly this owner: the end user's own, or (None) the shared ones."""
        return self.filter(end_user_id=end_user_id) if end_user_id else self.filter(end_user__isnull=True)

    def visible_to(self, end_user_id: int | None):
        """What a request for this end user may see: their own rows and the shared ones; with no user, the
        shared ones only. Never another user's."""
        return self.filter(visible_to(end_user_id))


def visible_to(end_user_id: int | None, prefix: str = "") -> Q:
    """The condition of :meth:`LifeSpanQuerySet.visible_to`, for any model with an ``end_user`` (``prefix``:
    the path to it, e.g. ``"session__"``)."""
    shared = Q(**{f"{prefix}end_user__isnull": True})
    return shared | Q(**{f"{prefix}end_user_id": end_user_id}) if end_user_id else shared


class MemoryQuerySet(LifeSpanQuerySet):
    def valid_at(self, moment, known_at=None):
        """The facts true in the world at ``moment`` (valid time), as the system knew them at ``known_at`` (system
        time; default now): those it held then, and those a newer fact had replaced by then, whose valid time
        ended where the newer one's began. A fact retired for another reason (an edit, forgotten, wrong) was
        never true as worded; one with no ``valid_from`` is taken as true from the start."""
        known = known_at or timezone.now()
        held = Q(retired_at__isnull=True) | Q(retired_at__gt=known)
        replaced = Q(retired_at__lte=known, valid_to__isnull=False)
        began = Q(valid_from__isnull=True) | Q(valid_from__lte=moment)
        # A valid time that ended after ``known`` was not known to have ended then.
        not_ended = Q(valid_to__isnull=True) | Q(valid_to__gt=moment) | Q(retired_at__gt=known)
        return self.filter(Q(created_at__lte=known) & (held | replaced) & began & not_ended)

    def injectable(self):
        """Live and not quarantined: safe to put into a bot's prompt."""
        return self.live().filter(quarantined=False)

    def for_bot(self, bot: Bot):
        return self.filter(kb__bot=bot)
