"""The admin site of kbsite: its index page is the operators' dashboard (:mod:`memories.dashboard`), limited to
the bots the operator operates, with the pages operators use most one click away."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import ValidationError

from kbsite.operators import operated


class KbsiteAdminSite(admin.AdminSite):
    site_header = "kbsite"
    site_title = "kbsite"
    index_title = "Dashboard"
    index_template = "admin/kbsite/dashboard.html"

    def index(self, request, extra_context=None):
        return super().index(request, {**dashboard_context(request), **(extra_context or {})})


def dashboard_context(request) -> dict:
    """The dashboard of what the request asks for (``bot``, ``kb``, ``end_user``: ids), within what the user may
    see."""
    from kbsite.models import Bot, EndUser, KnowledgeBase
    from memories.dashboard import dashboard

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
    return {
        "board": dashboard(kbs, end_user),
        "scope_query": scope,
        "jobs_scope_query": "" if end_user else scope,
        "cache_seconds": settings.DASHBOARD_CACHE_SECONDS,
        "bots": bots,
        "all_kbs": all_kbs,
        "picked": picked,
        "end_user": end_user,
    }


def _int(value) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError, ValidationError):
        return None
