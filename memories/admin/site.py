"""The admin site of kbsite, whose index page is the operators' dashboard, for what the request asks to see."""

from __future__ import annotations

import functools

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import ValidationError

from kbsite.models import Bot, EndUser, KnowledgeBase
from kbsite.operators import operated
from kbsite.replicas import replica_states
from memories.admin.dashboard import dashboard


class OperatorsAdminSite(admin.AdminSite):
    """The admin site of kbsite, whose index page is the dashboard (``memories.apps.OperatorsAdminConfig``, through
    :func:`operators_site`)."""

    site_header = "kbsite"
    site_title = "kbsite"
    index_title = "Dashboard"
    index_template = "admin/dashboard.html"
    # The dashboard (every page's "Home") links every list; without the side bar a list has the page's width, and
    # the memory and job lists read at 1,400 pixels without scrolling sideways.
    enable_nav_sidebar = False

    def index(self, request, extra_context=None):
        return super().index(request, {**dashboard_context(request), **(extra_context or {})})


@functools.cache
def operators_site() -> OperatorsAdminSite:
    """The one admin site (``OperatorsAdminConfig.default_site``). Django's default site is made lazily, on first use,
    by importing this; that imports ``memories.admin``, whose model admins register on the default site while it is
    being made: they and Django get the same instance, not two."""
    return OperatorsAdminSite()


def dashboard_context(request) -> dict:
    """The dashboard of what the request asks for (``bot``, ``kb``, ``end_user``: ids), within what the user may
    see."""
    bots = list(operated(Bot.objects.all(), request.user))
    all_kbs = list(operated(KnowledgeBase.objects.all(), request.user))
    picked = {name: _int(request.GET.get(name)) for name in ("bot", "kb", "end_user")}
    end_user = None
    if picked["end_user"] is not None:
        end_user = operated(EndUser.objects.select_related("bot"), request.user).filter(pk=picked["end_user"]).first()
        picked["bot"] = end_user.bot_id if end_user else None
    kbs = [
        kb
        for kb in all_kbs
        if (picked["bot"] is None or kb.bot_id == picked["bot"]) and (picked["kb"] is None or kb.pk == picked["kb"])
    ]
    if end_user is not None:
        scope = f"end_user__id__exact={end_user.pk}"
    elif picked["kb"] is not None:
        scope = f"kb__id__exact={picked['kb']}"
    elif picked["bot"] is not None:
        scope = f"kb__bot__id__exact={picked['bot']}"
    else:
        scope = ""
    if picked["bot"] is not None:
        bot_ids = [picked["bot"]] if any(bot.pk == picked["bot"] for bot in bots) else []
    elif picked["kb"] is not None:
        bot_ids = [kb.bot_id for kb in kbs]
    else:
        bot_ids = [bot.pk for bot in bots]
    return {
        "board": dashboard(kbs, end_user, bot_ids=bot_ids),
        "scope_query": scope,
        "jobs_scope_query": "" if end_user else scope,
        "cache_seconds": settings.DASHBOARD_CACHE_SECONDS,
        "bots": bots,
        "all_kbs": all_kbs,
        "picked": picked,
        "end_user": end_user,
        "replicas": replica_states(),
    }


def _int(value) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError, ValidationError):
        return None
