"""The MCP server as an ASGI application: the SDK's streamable HTTP transport behind a gate that lets in only
requests with a bot's key, within its rate limit, and notes for whom they are (``X-User-Id``: one end user of the
bot, optional)."""

from __future__ import annotations

import json
import re

from mcp.server.transport_security import TransportSecuritySettings

from kbsite.api.authentication import bearer_key, key_authenticate
from kbsite.asyncdb import in_thread
from kbsite.caller import Caller, NotTheKeysUser
from kbsite.models import USER_ID_RE
from kbsite.ratelimits import rate_message, rate_take
from memories.mcp.server import server

PATH = "/mcp"


async def _refuse(send, status: int, message: str, retry_after: int | None = None) -> None:
    body = json.dumps({"error": {"code": status, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="kbsite"'))
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Gate:
    """Authenticates every HTTP request with ``Authorization: Bearer <bot key>`` (401 otherwise), holds it to the
    key's rate limit (429 with ``Retry-After``) and checks ``X-User-Id`` (with a key of one end user: that user,
    named or not); the tools then run for that bot and user. The path may end with a slash or not."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":  # lifespan: the SDK's session manager starts and stops with the server
            return await self.app(scope, receive, send)
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        plain = bearer_key(headers.get("authorization", ""))
        key = await in_thread(key_authenticate, plain=plain) if plain else None
        if key is None:
            return await _refuse(send, 401, "Invalid or missing API key: send 'Authorization: Bearer <bot key>'.")
        wait = await in_thread(rate_take, key=key)
        if wait is not None:
            return await _refuse(send, 429, rate_message(key, wait), retry_after=wait)
        user_id = headers.get("x-user-id") or None
        if user_id is not None and not re.fullmatch(USER_ID_RE, user_id):
            return await _refuse(send, 400, f"X-User-Id must be a user_id ({USER_ID_RE}), not {user_id!r}.")
        try:
            # A key of one end user acts as them, and only as them.
            caller = await in_thread(Caller.of_key(key).acting_for, named=user_id)
        except NotTheKeysUser as exc:
            return await _refuse(send, 403, str(exc))
        state = {**scope.get("state", {}), "kbsite_caller": caller}
        return await self.app({**scope, "path": PATH, "raw_path": PATH.encode(), "state": state}, receive, send)


def mcp_application() -> Gate:
    """A new MCP application (its SDK session manager runs once: one per server start)."""
    # A bot key is required on every request, so a page in a browser cannot use the server on a user's behalf:
    # the SDK's Host and Origin checks (against DNS rebinding) would only refuse the names the server is reached by.
    return Gate(
        server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
    )
