"""Usage in API answers: :class:`MeteredMixin` meters a view's requests, adds ``usage`` to their answers and to the
bot's daily usage."""

from __future__ import annotations

from django.conf import settings

from kbsite.ai import usage
from kbsite.models import KnowledgeBase
from kbsite.stats import usage_record


class MeteredMixin:
    """Meters the requests of ``metered_actions`` (a viewset's actions; a plain view's methods) while
    USAGE_ACCOUNTING is on: what they spend from the start of the view (authentication included) to their answer —
    LLM calls and tokens, texts embedded, milliseconds — is the ``usage`` of a successful answer, and is added to
    the bot's usage of the day for the KB and end user the view names with :meth:`metered_for`. A refused or failed
    request answers without it and counts nothing."""

    metered_actions: frozenset[str] = frozenset()

    def dispatch(self, request, *args, **kwargs):
        self.meter, self.metered_scope = None, (None, None)
        if not settings.USAGE_ACCOUNTING:
            return super().dispatch(request, *args, **kwargs)
        with usage.metered() as meter:
            self.meter = meter
            return super().dispatch(request, *args, **kwargs)

    def metered_for(self, *, kb: KnowledgeBase | None = None, end_user_id: int | None = None) -> None:
        """Say whose usage this request is: ``kb`` (None: the bot's always-on KBs) and ``end_user_id``."""
        self.metered_scope = (kb.pk if kb else None, end_user_id)

    def finalize_response(self, request, response, *args, **kwargs):
        action = getattr(self, "action", None) or request.method.lower()
        served = 200 <= response.status_code < 300 and isinstance(getattr(response, "data", None), dict)
        if self.meter is not None and served and action in self.metered_actions:
            kb_id, end_user_id = self.metered_scope
            figures = usage_record(self.meter, bot_id=request.user.pk, kb_id=kb_id, end_user_id=end_user_id)
            response.data["usage"] = figures
        return super().finalize_response(request, response, *args, **kwargs)
