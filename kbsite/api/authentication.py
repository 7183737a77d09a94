"""Bearer-key authentication: each key sees only its own bot."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

from kbsite.caller import Caller, NotTheKeysUser
from kbsite.models import ApiKey
from kbsite.selectors import key_active

# last_used_at is informational; write it at most this often per key.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def bearer_key(header: str) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header; None for any other header."""
    scheme, _, plain = (header or "").partition(" ")
    return plain.strip() if scheme.lower() == "bearer" and plain.strip() else None


def key_authenticate(plain: str) -> ApiKey | None:
    """The active API key ``plain`` is, with its bot (None for an unknown or revoked one); notes its use. Every
    surface a bot reaches (the API, the chat proxy, MCP) authenticates here."""
    key = key_active(ApiKey.hash(plain))
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    return key


class BotKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer <api key>``; sets ``request.user`` to the Bot and ``request.auth`` to the
    :class:`~kbsite.caller.Caller` the key makes (its bot, its end user for a key of one, read-only or not)."""

    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        plain = bearer_key(header)
        if plain is None:
            raise exceptions.AuthenticationFailed("Use the header 'Authorization: Bearer <api key>'.")
        key = key_authenticate(plain)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        return key.bot, Caller.of_key(key)

    def authenticate_header(self, request):
        # Makes DRF answer 401 (with WWW-Authenticate) rather than 403.
        return self.keyword


class IsBot(permissions.BasePermission):
    """Only requests authenticated with a bot API key."""

    message = "Authentication required: send 'Authorization: Bearer <api key>'."

    def has_permission(self, request, view):
        return isinstance(request.auth, Caller)


def request_user_id(request, view) -> str | None:
    """The end user a request names: in its path (``/users/{user_id}/…``), else ``user_id`` in a POST's JSON body
    or the query. Read, never written back."""
    if "user_id" in view.kwargs:
        return view.kwargs["user_id"]
    data = request.data if request.method == "POST" else request.query_params
    if not isinstance(data, dict) and not hasattr(data, "get"):
        raise exceptions.ParseError("Send a JSON object.")
    named = data.get("user_id")
    return named if isinstance(named, str) else None


class EndUserKeyScope(permissions.BasePermission):
    """A key of one end user acts as that user, and only as them, and only where a view allows it (the view's
    ``end_user_actions``: its actions, or for a plain view its methods). A request that names no user is that
    user's (the view asks ``request.auth.acting_for``); one that names another is refused (403), as is every other
    endpoint."""

    def has_permission(self, request, view):
        caller = request.auth
        if not isinstance(caller, Caller) or not caller.end_user_key:
            return True
        action = getattr(view, "action", None) or request.method.lower()
        if action not in getattr(view, "end_user_actions", ()):
            raise exceptions.PermissionDenied(
                f"This key is end user {caller.user_id!r}'s: it can recall, read the context, ask, call the "
                "tools, post turns and text, and export or erase its own user; not this. Use a key of the bot."
            )
        try:
            caller.named_check(request_user_id(request, view))
        except NotTheKeysUser as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        return True


class ReadOnlyKeyScope(permissions.BasePermission):
    """A read-only key reads: safe methods, and the POSTs a view declares as reads (``read_actions``: recall, ask,
    a search, a tool call, which refuses the tools that change anything)."""

    def has_permission(self, request, view):
        caller = request.auth
        if not isinstance(caller, Caller) or not caller.read_only or request.method in permissions.SAFE_METHODS:
            return True
        action = getattr(view, "action", None) or request.method.lower()
        if action not in getattr(view, "read_actions", ()):
            raise exceptions.PermissionDenied(
                "This key reads only: it can list, recall, read the context, ask and search."
            )
        return True


def caller_for(request, data: dict) -> Caller:
    """The request's caller serving the end user its parameters name (``user_id`` popped from ``data``), for a
    read."""
    return request.auth.acting_for(data.pop("user_id", None))


def caller_writing(request, data: dict) -> Caller:
    """The request's caller serving the end user its parameters name (``user_id`` popped from ``data``), for a
    write: the user is made when first named."""
    return request.auth.writing_for(data.pop("user_id", None))


class BotKeyScheme(OpenApiAuthenticationExtension):
    target_class = "kbsite.api.authentication.BotKeyAuthentication"
    name = "botKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "A bot API key (`manage.py create_bot NAME`)."}
