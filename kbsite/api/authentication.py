"""Bearer-key authentication: each key sees only its own bot."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions

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
    """``Authorization: Bearer <api key>``; sets ``request.user`` to the Bot and ``request.auth`` to the key."""

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
        return key.bot, key

    def authenticate_header(self, request):
        # Makes DRF answer 401 (with WWW-Authenticate) rather than 403.
        return self.keyword


class IsBot(permissions.BasePermission):
    """Only requests authenticated with a bot API key."""

    message = "Authentication required: send 'Authorization: Bearer <api key>'."

    def has_permission(self, request, view):
        return isinstance(request.auth, ApiKey)


class EndUserKeyScope(permissions.BasePermission):
    """A key of one end user acts as that user, and only as them, and only where a view allows it (the view's
    ``end_user_actions``: its actions, or for a plain view its methods). A request that names no user is that
    user's; one that names another is refused (403), as is every other endpoint."""

    def has_permission(self, request, view):
        key = request.auth
        if not isinstance(key, ApiKey) or key.end_user_id is None:
            return True
        action = getattr(view, "action", None) or request.method.lower()
        if action not in getattr(view, "end_user_actions", ()):
            raise exceptions.PermissionDenied(
                f"This key is end user {key.end_user.external_id!r}'s: it can recall, read the context, ask, call the "
                "tools, post turns and text, and export or erase its own user; not this. Use a key of the bot."
            )
        if "user_id" in view.kwargs:  # /users/{user_id}/…
            named = view.kwargs["user_id"]
        else:
            named = (request.data if request.method == "POST" else request.query_params).get("user_id")
        try:
            own = acting_for(key, named)
        except NotTheKeysUser as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        if "user_id" not in view.kwargs:
            end_user_name(request, own)
        return True


class NotTheKeysUser(ValueError):
    """A request with a key of one end user names another user."""


def acting_for(key: ApiKey, named: str | None) -> str | None:
    """The end user a request acts for, on every surface (the API, MCP, the chat proxy): with a key of one end user,
    that user, whether named or not (naming another raises :class:`NotTheKeysUser`); else the one named, if any."""
    if key.end_user_id is None:
        return named or None
    own = key.end_user.external_id
    if named not in (None, "", own):
        raise NotTheKeysUser(f"This key is end user {own!r}'s: it cannot act for {named!r}.")
    return own


class ReadOnlyKeyScope(permissions.BasePermission):
    """A read-only key reads: safe methods, and the POSTs a view declares as reads (``read_actions``: recall, ask,
    a search, a tool call, which refuses the tools that change anything)."""

    def has_permission(self, request, view):
        key = request.auth
        if not isinstance(key, ApiKey) or not key.read_only or request.method in permissions.SAFE_METHODS:
            return True
        action = getattr(view, "action", None) or request.method.lower()
        if action not in getattr(view, "read_actions", ()):
            raise exceptions.PermissionDenied(
                "This key reads only: it can list, recall, read the context, ask and search."
            )
        return True


def end_user_name(request, user_id: str) -> None:
    """Name ``user_id`` in the request, as its client could have (in the JSON body of a POST, else the query)."""
    if request.method == "POST":
        data = request.data
        if not isinstance(data, dict):
            raise exceptions.ParseError("Send a JSON object.")
        mutable = getattr(data, "_mutable", None)
        if mutable is not None:
            data._mutable = True
        data["user_id"] = user_id
        if mutable is not None:
            data._mutable = mutable
        return
    query = request._request.GET.copy()
    query["user_id"] = user_id
    request._request.GET = query


class BotKeyScheme(OpenApiAuthenticationExtension):
    target_class = "kbsite.api.authentication.BotKeyAuthentication"
    name = "botKey"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "description": "A bot API key (`manage.py create_bot NAME`)."}
