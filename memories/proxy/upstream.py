"""The chat proxy's upstream: the configured OpenAI-compatible endpoint through the ``openai`` client's raw
responses (and, for the Anthropic relay, the configured Messages API endpoint through the ``anthropic`` client's),
so that what it answers (status, body, each chunk of a stream) goes back to the caller as it came."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anthropic
import openai
from django.conf import settings
from django.http import HttpResponse

from memories.proxy.errors import ProxyError


@dataclass
class Answer:
    """What the upstream answered: its status, content type and body (or, streaming, its chunks)."""

    status: int
    content_type: str
    body: bytes = b""
    chunks: AsyncIterator[bytes] | None = None


_clients: dict = {}


def _client() -> openai.AsyncOpenAI:
    """One client per event loop (its connections belong to the loop) and configuration."""
    if not settings.LLM_BASE_URL:
        raise ProxyError(
            503,
            "No upstream LLM is configured: kbsite runs in offline mode. Set LLM_BASE_URL (and LLM_API_KEY) to an "
            "OpenAI-compatible endpoint to use the chat proxy.",
            kind="server_error",
            code="no_upstream",
        )
    key = (id(asyncio.get_running_loop()), settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.PROXY_TIMEOUT_SECONDS)
    if key not in _clients:
        _clients.clear()  # a loop or a setting that changed: the old clients are not used again
        _clients[key] = openai.AsyncOpenAI(
            base_url=settings.LLM_BASE_URL,
            api_key=settings.LLM_API_KEY or "not-needed",
            timeout=settings.PROXY_TIMEOUT_SECONDS,
            max_retries=0,  # the caller sees what the upstream answered, and retries as it likes
        )
    return _clients[key]


def _anthropic() -> anthropic.AsyncAnthropic:
    """One Anthropic client per event loop and configuration, as :func:`_client`."""
    if not settings.ANTHROPIC_BASE_URL:
        raise ProxyError(
            503,
            "No Anthropic upstream is configured: set ANTHROPIC_BASE_URL (and ANTHROPIC_API_KEY) to a Messages API "
            "endpoint to use the Anthropic relay.",
            kind="server_error",
            code="no_upstream",
        )
    key = ("anthropic", id(asyncio.get_running_loop()), settings.ANTHROPIC_BASE_URL, settings.ANTHROPIC_API_KEY)
    key += (settings.PROXY_TIMEOUT_SECONDS,)
    if key not in _clients:
        _clients[key] = anthropic.AsyncAnthropic(
            base_url=settings.ANTHROPIC_BASE_URL,
            api_key=settings.ANTHROPIC_API_KEY or "not-needed",
            timeout=settings.PROXY_TIMEOUT_SECONDS,
            max_retries=0,
        )
    return _clients[key]


@asynccontextmanager
async def _raw(call):
    """Run ``call`` (a streaming-response request), turning the client's exceptions into the caller's answers."""
    try:
        async with call as response:
            yield response
    except anthropic.APIStatusError as exc:  # already in Anthropic's shape: passed on as it came
        raise UpstreamAnswer(exc.response.status_code, exc.response.content) from exc
    except (openai.APITimeoutError, anthropic.APITimeoutError) as exc:
        raise ProxyError(
            504,
            f"The upstream LLM did not answer within {settings.PROXY_TIMEOUT_SECONDS:g} s (PROXY_TIMEOUT_SECONDS).",
            kind="timeout",
            code="upstream_timeout",
        ) from exc
    except openai.APIStatusError as exc:
        raise _upstream_error(exc.response.status_code, exc.response.content) from exc
    except (openai.APIConnectionError, anthropic.APIConnectionError) as exc:
        raise ProxyError(
            502, f"The upstream LLM could not be reached: {exc}", kind="upstream_error", code="upstream_unreachable"
        ) from exc


def _upstream_error(status: int, content: bytes) -> ProxyError:
    """The upstream's error with its status, message, type and code (it speaks OpenAI's shape), else its text."""
    try:
        error = json.loads(content).get("error")
    except (ValueError, AttributeError):
        error = None
    if isinstance(error, dict) and error.get("message"):
        code = error.get("code")
        return ProxyError(
            status, str(error["message"]), kind=str(error.get("type") or "upstream_error"), code=code and str(code)
        )
    text = content.decode("utf-8", "replace").strip()[:500] or "no body"
    return ProxyError(status, f"The upstream LLM answered {status}: {text}", kind="upstream_error")


class UpstreamAnswer(ProxyError):
    """An error the upstream answered in the caller's own shape: its status and body go back as they came."""

    def __init__(self, status: int, body: bytes):
        super().__init__(status, body.decode("utf-8", "replace")[:500])
        self.body = body

    def response(self, api: str = "chat"):
        return HttpResponse(self.body, status=self.status, content_type="application/json")


def _call(api: str, body: dict, headers: dict | None = None):
    """The client's raw-response call of ``api`` ("chat": chat completions, "responses": the Responses API,
    "messages": Anthropic's Messages API) with ``body`` as it is (the client's own parameters are the model and the
    messages or input, and max_tokens for Anthropic; the rest goes as is), with the caller's ``headers`` that
    select the API's version and features."""
    if api == "messages":
        extra = {k: v for k, v in body.items() if k not in ("model", "messages", "max_tokens")}
        return _anthropic().messages.with_streaming_response.create(
            model=body["model"],
            messages=body["messages"],
            max_tokens=body["max_tokens"],
            extra_body=extra,
            extra_headers=headers or None,
        )
    client = _client()
    if api == "chat":
        extra = {k: v for k, v in body.items() if k not in ("model", "messages")}
        return client.chat.completions.with_streaming_response.create(
            model=body["model"], messages=body["messages"], extra_body=extra
        )
    extra = {k: v for k, v in body.items() if k not in ("model", "input")}
    return client.responses.with_streaming_response.create(model=body["model"], input=body["input"], extra_body=extra)


async def chat(body: dict, api: str = "chat", headers: dict | None = None) -> Answer:
    """A chat completion (or a response, or a message), not streamed: the upstream's whole answer."""
    async with _raw(_call(api, body, headers)) as response:
        content = await response.read()
        return Answer(response.status_code, response.headers.get("content-type", "application/json"), body=content)


@asynccontextmanager
async def chat_stream(body: dict, api: str = "chat", headers: dict | None = None):
    """A streamed chat completion (or response, or message): the answer with its chunks, read as the upstream sends
    them."""
    async with _raw(_call(api, body, headers)) as response:
        yield Answer(
            response.status_code,
            response.headers.get("content-type", "text/event-stream"),
            chunks=response.iter_bytes(),
        )


async def models() -> Answer:
    """The upstream's model list, as it answered it."""
    async with _raw(_client().models.with_streaming_response.list()) as response:
        content = await response.read()
        return Answer(response.status_code, response.headers.get("content-type", "application/json"), body=content)
