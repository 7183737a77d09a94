"""The chat proxy's endpoints: ``POST /openai/v1/chat/completions``, ``POST /openai/v1/responses``,
``GET /openai/v1/models``, and Anthropic's ``POST /anthropic/v1/messages``.

Async views: a stream waits on the upstream without holding a thread, so open streams do not starve the rest of the
API. The database and the embedding model are reached in a thread (``in_thread``), whose connection goes back to the
pool at once: an open stream holds none.
"""

from __future__ import annotations

import json
import logging
import time
from contextlib import AsyncExitStack

from django.conf import settings
from django.http import HttpResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from kbsite import replicas
from kbsite.ai import usage
from kbsite.ai.embeddings import EmbeddingError
from kbsite.api.authentication import bearer_key, key_authenticate
from kbsite.asyncdb import in_thread
from kbsite.caller import Caller
from kbsite.models import ApiKey, Bot, KnowledgeBase
from kbsite.ratelimits import rate_message, rate_take
from kbsite.stats import usage_record
from memories.proxy import upstream
from memories.proxy.errors import ProxyError, error_response
from memories.proxy.recording import (
    MessageTranscript,
    ResponseTranscript,
    Transcript,
    chat_record_queue,
    message_reply_text,
    reply_text,
    response_text,
)
from memories.proxy.requests import ChatRequest, chat_request, messages_request, responses_request
from memories.recall.context import context_build

logger = logging.getLogger(__name__)


@csrf_exempt
async def chat_completions(request):
    """An OpenAI chat completion with the caller's memory: the context block for the last user message is added
    after the caller's system messages, the request goes to the upstream, its answer comes back as it was, and the
    new turns are recorded for ingest once the answer is complete."""
    return await _relay(request, "chat")


@csrf_exempt
async def messages(request):
    """An Anthropic Messages API request with the caller's memory: the context block for the last user message goes
    after the caller's ``system``; the request goes to the Anthropic upstream (ANTHROPIC_BASE_URL); the rest as for
    a chat completion."""
    return await _relay(request, "messages")


@csrf_exempt
async def responses(request):
    """An OpenAI Responses API request with the caller's memory: the context block for the last user message goes
    after the caller's ``instructions``; the rest as for a chat completion."""
    return await _relay(request, "responses")


async def _relay(request, api: str):
    if request.method != "POST":
        what = {"chat": "chat completions", "responses": "responses", "messages": "messages"}[api]
        return error_response(405, f"Use POST for {what}.", code="method_not_allowed", api=api)
    started = time.perf_counter()
    read, reply_of, transcript = RELAYED[api]
    # Anthropic's version and features, as the caller asked for them.
    headers = {k: v for k, v in request.headers.items() if k.lower() in ("anthropic-version", "anthropic-beta")}
    try:
        caller = await _caller(request)
        if caller.read_only:
            raise ProxyError(
                403,
                "This key reads only, and the chat proxy records the conversation: use a key that may write.",
                kind="permission_error",
                code="permission_denied",
            )
        chat = read(await in_thread(request.read), session_header=request.headers.get("X-Session-Id"), caller=caller)
        kb = await in_thread(_recording_kb, caller.bot, chat.kb_name)
        body, note, spent = await in_thread(_metered_memory, caller, chat, api, started)
        if chat.stream:
            response = await _streamed(kb, chat, body, api, transcript(), headers)
        else:
            answer = await upstream.chat(body, api, headers)
            response = HttpResponse(answer.body, status=answer.status, content_type=answer.content_type)
            # Recorded once the answer is sent: Django closes a response (in a thread) after its last byte.
            response._resource_closers.append(lambda: _record(kb, chat, reply_of(answer.body)))
    except ProxyError as exc:
        return exc.response(api)
    response["X-Kbsite-Memory"] = note or "none"
    for name, value in (spent or {}).items():
        response[USAGE_HEADERS[name]] = str(value)
    return response


# What kbsite spent on a proxied request (the context block it added), in headers: the upstream's own tokens are in
# its answer.
USAGE_HEADERS = {
    "llm_calls": "Kbsite-Usage-Llm-Calls",
    "tokens_in": "Kbsite-Usage-Tokens-In",
    "tokens_out": "Kbsite-Usage-Tokens-Out",
    "embeddings": "Kbsite-Usage-Embeddings",
    "server_ms": "Kbsite-Usage-Server-Ms",
}


# Per API: how its request is read, how the reply is read from its answer, and from its stream.
RELAYED = {
    "chat": (chat_request, reply_text, Transcript),
    "responses": (responses_request, response_text, ResponseTranscript),
    "messages": (messages_request, message_reply_text, MessageTranscript),
}


async def models(request):
    """The upstream's models, as it lists them."""
    if request.method != "GET":
        return error_response(405, "Use GET to list the models.", code="method_not_allowed")
    try:
        await _caller(request)
        answer = await upstream.models()
    except ProxyError as exc:
        return exc.response()
    return HttpResponse(answer.body, status=answer.status, content_type=answer.content_type)


async def _caller(request) -> Caller:
    # OpenAI's clients send the key as a bearer token, Anthropic's as x-api-key.
    plain = bearer_key(request.headers.get("Authorization", "")) or request.headers.get("x-api-key", "").strip()
    key, wait = await in_thread(_key_and_wait, plain) if plain else (None, None)
    if key is None:
        raise ProxyError(
            401, "Invalid or missing API key: use the bot's kbsite key as the api_key.", code="invalid_api_key"
        )
    if wait is not None:
        # OpenAI's own shape for a rate limit (its clients raise RateLimitError; Anthropic's, by the status).
        retry = {"Retry-After": str(wait)}
        raise ProxyError(429, rate_message(key, wait), kind="requests", code="rate_limit_exceeded", headers=retry)
    return Caller.of_key(key)


def _key_and_wait(plain: str) -> tuple[ApiKey | None, int | None]:
    """The active key ``plain`` is, and the seconds it must wait by its rate limit (None: it may go on)."""
    key = key_authenticate(plain)
    return key, (rate_take(key=key) if key is not None else None)


def _recording_kb(bot: Bot, name: str | None) -> KnowledgeBase:
    """The KB that records the request's turns: the one it names, else the bot's chat-recording KB."""
    kbs = KnowledgeBase.objects.for_bot(bot)
    kb = next(iter(kbs.filter(name=name).order_by()[:1] if name else kbs.filter(records_chat=True)[:1]), None)
    if kb is None and name:
        raise ProxyError(404, f"This bot has no knowledge base named {name!r} (metadata.kb).", code="kb_not_found")
    if kb is None:
        raise ProxyError(
            400,
            "No knowledge base records this bot's chat. Name one in the request (metadata.kb), or set one as the "
            'bot\'s: PATCH /api/v1/kbs/{name}/ with {"records_chat": true}, or tick "records chat" in the admin.',
            code="no_recording_kb",
        )
    if not kb.is_active:
        raise ProxyError(409, f"Knowledge base {kb.name!r} is inactive; activate it to record the chat.")
    return kb


def _metered_memory(caller: Caller, chat: ChatRequest, api: str, started: float) -> tuple[dict, str, dict | None]:
    """:func:`_with_memory`, and what kbsite spent on the request from ``started`` (a ``time.perf_counter()``) until
    it goes upstream, added to the bot's usage of the day as one request (:func:`usage_record`; None while
    USAGE_ACCOUNTING is off). Only the context block is metered: the upstream's tokens are the caller's."""
    acting = caller.acting_for(chat.user_id)
    if not settings.USAGE_ACCOUNTING:
        return (*_with_memory(acting, chat, api), None)
    with usage.metered() as meter:
        # Its milliseconds are the request's from its start (its key and body read), as the API's from its view's.
        meter.started = started
        body, note = _with_memory(acting, chat, api)
    spent = usage_record(meter, bot_id=caller.bot.pk, end_user_id=acting.end_user_id)  # its always-on KBs'
    return body, note, spent


def _with_memory(caller: Caller, chat: ChatRequest, api: str = "chat") -> tuple[dict, str]:
    """The body with the memory context block for ``caller`` (acting for the request's end user), and what was added
    ("" for nothing): for a chat completion, a system message after the caller's own system messages; for a
    response, after the caller's ``instructions``. Memory that cannot be read (the embedding endpoint down) leaves
    the request as it came: the chat goes on without it."""
    if not chat.query.strip() or not settings.PROXY_CONTEXT_CHARS:
        return chat.body, ""
    try:
        block = replicas.read(  # on a replica, as the API's context block: the turns are written after
            caller.bot.pk,
            lambda: context_build(
                caller=caller, query=chat.query, session_id=chat.session_id, budget_chars=settings.PROXY_CONTEXT_CHARS
            ),
        )
    except EmbeddingError:
        logger.warning("chat proxy: no memory for this request, the embedding backend failed", exc_info=True)
        return chat.body, ""
    if not block.text:
        return chat.body, ""
    if api == "messages":
        system = chat.body.get("system")
        if isinstance(system, list):
            added = [*system, {"type": "text", "text": block.text}]
        else:
            added = f"{system}\n\n{block.text}" if isinstance(system, str) and system else block.text
        body = {**chat.body, "system": added}
    elif api == "responses":
        instructions = chat.body.get("instructions")
        added = f"{instructions}\n\n{block.text}" if isinstance(instructions, str) and instructions else block.text
        body = {**chat.body, "instructions": added}
    else:
        messages = chat.body["messages"]
        after = next((n for n, m in enumerate(messages) if m.get("role") not in ("system", "developer")), len(messages))
        body = {
            **chat.body,
            "messages": [*messages[:after], {"role": "system", "content": block.text}, *messages[after:]],
        }
    return body, f"{len(block.memories)} memories, {len(block.insights)} insights, {len(block.documents)} documents"


def _record(kb: KnowledgeBase, chat: ChatRequest, reply: str) -> None:
    """Queue the recording of the request's new turns and the reply. Django ignores what a response's closer
    raises: a failure to queue (the database gone) is logged here as the error it is."""
    try:
        chat_record_queue(kb=kb, chat=chat, reply=reply)
    except Exception:
        logger.exception("chat proxy: could not queue the recording of session %s", chat.session_id)
        raise


async def _streamed(
    kb: KnowledgeBase, chat: ChatRequest, body: dict, api: str, transcript, headers: dict
) -> StreamingHttpResponse:
    """The upstream's stream, chunk by chunk as it arrives; the turns are recorded once it has ended."""
    stack = AsyncExitStack()
    # An error before the first byte: raised.
    answer = await stack.enter_async_context(upstream.chat_stream(body, api, headers))

    recorded = False

    async def record():
        nonlocal recorded
        if not recorded:
            recorded = True
            await in_thread(_record, kb, chat, transcript.text)

    async def chunks():
        try:
            async for chunk in answer.chunks:
                transcript.feed(chunk)
                if transcript.done:
                    # Before the client gets [DONE]: a client that stops reading there may go away at once, and
                    # a stream cut off by its client is closed only when it is collected.
                    await record()
                yield chunk
        except Exception as exc:  # the status is sent already: the stream says what happened, then ends
            logger.warning("chat proxy: the upstream stream broke off: %s", exc)
            message = f"The upstream stream broke off: {exc}"
            if api == "messages":  # Anthropic's error event
                error = {"type": "error", "error": {"type": "api_error", "message": message}}
                yield f"event: error\ndata: {json.dumps(error)}\n\n".encode()
            else:
                error = {"error": {"message": message, "type": "upstream_error"}}
                yield f"data: {json.dumps(error)}\n\n".encode()
        finally:
            await stack.aclose()
            # A stream without [DONE], or cut off by its client (with the reply so far).
            await record()

    return StreamingHttpResponse(chunks(), status=answer.status, content_type=answer.content_type)
