"""What a client sent to the chat proxy: checked, and read for whom (user), where (session, KB) and what for (the
last user message), with the body to send on and the turns to record."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from django.conf import settings

from kbsite.caller import Caller, NotTheKeysUser
from kbsite.models import NAME_RE, USER_ID_RE
from kbsite.text import UnstorableText, text_check
from memories.proxy.errors import ProxyError

# Ours, in the request's ``metadata``: taken out before the request goes on.
OUR_METADATA = ("user_id", "session_id", "kb")
ROLES = {"system", "developer", "user", "assistant", "tool", "function"}


@dataclass(frozen=True)
class ChatRequest:
    body: dict  # what goes to the upstream: the caller's body, our metadata out, the model as configured
    stream: bool
    user_id: str | None
    session_id: str
    kb_name: str | None
    query: str  # the last user message's text: what the memory is recalled for
    new_turns: list[dict] = field(default_factory=list)  # the user messages after the last answer, as turns
    reply_position: int = 0  # where the reply is in the conversation (its turn's id depends on it)
    salt: str = ""  # what else a turn's id depends on (a response's previous_response_id)


def chat_request(raw: bytes, *, session_header: str | None, caller: Caller | None = None) -> ChatRequest:
    """A chat completion request read from its JSON body (and the ``X-Session-Id`` header); a :class:`ProxyError`
    (400) says what is wrong with it."""
    body = _json_object(raw)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ProxyError(400, "'messages' must be a non-empty list of messages.", code="invalid_messages")
    for n, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise ProxyError(400, f"messages[{n}] must be an object with a role ({', '.join(sorted(ROLES))}).")
    forwarded, user_id, kb_name, session_id = _common(body, session_header, caller)
    return ChatRequest(
        body=forwarded,
        stream=bool(body.get("stream")),
        user_id=user_id,
        session_id=session_id,
        kb_name=kb_name,
        query=message_text(_last(messages, "user")),
        new_turns=_new_turns(messages, session_id),
        reply_position=len(messages),
    )


def responses_request(raw: bytes, *, session_header: str | None, caller: Caller | None = None) -> ChatRequest:
    """A Responses API request (``input`` a text or a list of items) read as :func:`chat_request` reads a chat
    completion. With ``previous_response_id`` the upstream holds the conversation and ``input`` carries only what is
    new: the turns' ids then depend on it too, so the same words said twice are two turns."""
    body = _json_object(raw)
    given = body.get("input")
    if isinstance(given, str) and given.strip():
        items = [{"role": "user", "content": given}]
    elif isinstance(given, list) and given:
        items = given
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                raise ProxyError(400, f"input[{n}] must be an object (a message or another input item).")
    else:
        raise ProxyError(400, "'input' must be a text or a non-empty list of input items.", code="invalid_input")
    messages = [item for item in items if item.get("role") in ROLES and item.get("type", "message") == "message"]
    forwarded, user_id, kb_name, session_id = _common(body, session_header, caller)
    salt = str(body.get("previous_response_id") or "")
    return ChatRequest(
        body=forwarded,
        stream=bool(body.get("stream")),
        user_id=user_id,
        session_id=session_id,
        kb_name=kb_name,
        query=message_text(_last(messages, "user")),
        new_turns=_new_turns(messages, session_id, salt),
        reply_position=len(messages),
        salt=salt,
    )


def messages_request(raw: bytes, *, session_header: str | None, caller: Caller | None = None) -> ChatRequest:
    """An Anthropic Messages API request read as :func:`chat_request` reads a chat completion. The end user is
    ``metadata.user_id`` (Anthropic's own field, sent on to the upstream); ``metadata.session_id`` and
    ``metadata.kb`` are ours, taken out."""
    body = _json_object(raw)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ProxyError(400, "'messages' must be a non-empty list of messages.", code="invalid_messages")
    for n, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise ProxyError(400, f"messages[{n}] must be an object with a role (user or assistant).")
    tokens = body.get("max_tokens")
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise ProxyError(400, "'max_tokens' must be a positive integer.", code="invalid_max_tokens")
    forwarded, user_id, kb_name, session_id = _common(body, session_header, caller)
    if user_id:
        forwarded["metadata"] = {**forwarded.get("metadata", {}), "user_id": user_id}
    said = [m for m in messages if m["role"] != "user" or message_text(m).strip()]  # a tool result says nothing
    return ChatRequest(
        body=forwarded,
        stream=bool(body.get("stream")),
        user_id=user_id,
        session_id=session_id,
        kb_name=kb_name,
        query=message_text(_last(said, "user")),
        new_turns=_new_turns(messages, session_id),
        reply_position=len(messages),
    )


def _common(
    body: dict, session_header: str | None, caller: Caller | None = None
) -> tuple[dict, str | None, str | None, str]:
    """What every kind of request carries alike: the body to send on (the model renamed, our metadata out), the end
    user, the recording KB named and the session. With a key of one end user the request is that user's, and naming
    another is refused."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise ProxyError(400, "'model' must name the model to use.", code="invalid_model")
    metadata = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    user_id = _checked(body.get("user") or metadata.get("user_id"), USER_ID_RE, "user", "a user_id")
    if caller is not None:
        try:
            caller.named_check(user_id)
        except NotTheKeysUser as exc:
            raise ProxyError(403, str(exc), kind="permission_error", code="permission_denied") from exc
        if caller.end_user_key:  # a key of one end user acts as them, named or not
            user_id = caller.user_id
    kb_name = _checked(metadata.get("kb"), NAME_RE, "metadata.kb", "a knowledge base name")
    session_id = str(metadata.get("session_id") or session_header or _default_session(user_id))
    if len(session_id) > 200:
        raise ProxyError(400, "The session id (metadata.session_id or X-Session-Id) is longer than 200 characters.")
    forwarded = {**body, "model": settings.PROXY_MODELS.get(body["model"], body["model"])}
    rest = {k: v for k, v in metadata.items() if k not in OUR_METADATA}
    if "metadata" in forwarded:
        forwarded.pop("metadata")
        if rest:
            forwarded["metadata"] = rest
    return forwarded, user_id, kb_name, session_id


def _json_object(raw: bytes) -> dict:
    try:
        body = json.loads(raw or b"")
    except (ValueError, RecursionError) as exc:
        raise ProxyError(400, f"The body is not valid JSON: {exc}", code="invalid_json") from exc
    if not isinstance(body, dict):
        raise ProxyError(400, "The body must be a JSON object (a chat completion request).", code="invalid_json")
    try:
        text_check(body)
    except UnstorableText as exc:
        raise ProxyError(400, f"The body's {exc}.", code="invalid_text") from exc
    return body


def _checked(value, pattern: str, where: str, what: str) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not re.fullmatch(pattern, value):
        raise ProxyError(400, f"'{where}' must be {what} (matching {pattern}), not {value!r}.", code=f"invalid_{what}")
    return value


def _default_session(user_id: str | None) -> str:
    """Where the turns of a request that names no session go: one running conversation per user."""
    return f"chat:{user_id}" if user_id else "chat"


def _last(messages: list[dict], role: str) -> dict | None:
    return next((m for m in reversed(messages) if m.get("role") == role), None)


# Parts of a message's content that hold its text: a chat completion's, and a response's input and output.
TEXT_PARTS = {"text", "input_text", "output_text"}


def message_text(message: dict | None) -> str:
    """The text of a message: its content, or the text parts of a multi-part content."""
    if not message:
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") in TEXT_PARTS)
    return ""


def _new_turns(messages: list[dict], session_id: str, salt: str = "") -> list[dict]:
    """The user messages after the last assistant message: what the caller says now (the earlier ones were
    recorded with the answers they got). Each gets an id derived from its session, position and text, so a request
    sent again records nothing twice."""
    answered = max((n for n, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return [
        turn(session_id, n, "user", text, salt)
        for n, m in enumerate(messages)
        if n > answered and m.get("role") == "user" and (text := message_text(m).strip())
    ]


def turn(session_id: str, position: int, role: str, text: str, salt: str = "") -> dict:
    key = f"{session_id}\x00{position}\x00{role}\x00{text}" + (f"\x00{salt}" if salt else "")
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return {"external_id": f"chat-{position}-{digest}", "role": role, "content": text}
