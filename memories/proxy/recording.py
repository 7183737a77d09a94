"""The turns of an answered chat request, recorded for ingest by a job: the caller's new user messages and the
upstream's reply become turns of the request's session, for its end user, in the recording KB.

A job, so that recording never delays an answer and is never lost: it fails visibly (a session of another user)
and is retried like any job, with the turns kept in the run until they are stored.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from kbsite import jobs
from kbsite.models import EndUser, JobRun, KnowledgeBase
from memories.ingest import SessionOfAnotherUser, messages_receive
from memories.proxy.requests import ChatRequest, message_text, turn


def chat_record_queue(*, kb: KnowledgeBase, chat: ChatRequest, reply: str) -> JobRun | None:
    """Queue the recording of ``chat``'s new user messages and the ``reply``. Returns the job (None when there is
    nothing to record)."""
    turns = list(chat.new_turns)
    if reply.strip():
        turns.append(turn(chat.session_id, chat.reply_position, "assistant", reply.strip(), chat.salt))
    if not turns:
        return None
    now = timezone.now().isoformat()
    limit = settings.MAX_MESSAGE_CHARS
    detail = {
        "session_id": chat.session_id,
        "user_id": chat.user_id,
        "turns": [{**t, "content": t["content"][:limit], "created_at": now} for t in turns],
    }
    return jobs.job_enqueue(kind=JobRun.Kind.RECORD_CHAT, kb=kb, target=chat.session_id, detail=detail)


def chat_record(*, job: JobRun) -> JobRun:
    """Store the run's turns in its session (idempotent by their ids) and queue their extraction; the turns leave
    the run's detail once stored."""
    job.start()
    detail = job.detail
    turns = [{**t, "created_at": parse_datetime(t["created_at"])} for t in detail.get("turns", [])]
    try:
        received = messages_receive(
            kb=job.kb,
            session_id=detail["session_id"],
            messages=turns,
            end_user=EndUser.objects.seen(job.kb.bot, detail.get("user_id")),
        )
    except SessionOfAnotherUser as exc:
        job.fail(str(exc), retryable=False)
        return job
    job.items_read = received["accepted"]
    job.detail = {k: v for k, v in detail.items() if k != "turns"} | {
        "accepted": received["accepted"],
        "duplicates": received["duplicates"],
    }
    job.finish(status=JobRun.Status.SUCCEEDED)
    return job


def chat_record_retry(job: JobRun) -> JobRun | None:
    """Queue a failed recording again with its turns."""
    if not job.detail.get("turns"):
        return None
    return jobs.job_enqueue(kind=job.kind, kb=job.kb, target=job.target, detail=job.detail)


class Transcript:
    """The assistant's reply, read from a streamed chat completion's server-sent events as they pass."""

    def __init__(self) -> None:
        self._pending = b""
        self._parts: list[str] = []
        self.done = False  # the stream's end ("data: [DONE]") has passed

    def feed(self, chunk: bytes) -> None:
        self._pending += chunk
        *lines, self._pending = self._pending.split(b"\n")
        for line in lines:
            line = line.strip()
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                self.done = True
            elif data:
                try:
                    event = json.loads(data)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    self._event(event)

    def _event(self, event: dict) -> None:
        for choice in event.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                content = (choice.get("delta") or {}).get("content")
                if isinstance(content, str):
                    self._parts.append(content)

    @property
    def text(self) -> str:
        return "".join(self._parts)


class ResponseTranscript(Transcript):
    """The assistant's reply, read from a streamed response's events (its output text deltas); the stream ends with
    the response completed, incomplete or failed."""

    ENDS = {"response.completed", "response.incomplete", "response.failed"}

    def _event(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "response.output_text.delta" and isinstance(event.get("delta"), str):
            self._parts.append(event["delta"])
        elif kind in self.ENDS:
            self.done = True


def reply_text(body: bytes) -> str:
    """The assistant's reply in a chat completion (its first choice's content), or nothing."""
    try:
        choices = json.loads(body).get("choices") or []
        content = (choices[0].get("message") or {}).get("content")
    except (ValueError, AttributeError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


class MessageTranscript(Transcript):
    """The assistant's reply, read from a streamed Anthropic message's events (its text deltas); the stream ends with
    message_stop."""

    def _event(self, event: dict) -> None:
        kind = event.get("type")
        delta = event.get("delta") or {}
        if kind == "content_block_delta" and delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            self._parts.append(delta["text"])
        elif kind == "message_stop":
            self.done = True


def message_reply_text(body: bytes) -> str:
    """The assistant's reply in an Anthropic message: the text of its content blocks, or nothing."""
    try:
        return message_text(json.loads(body))
    except (ValueError, AttributeError):
        return ""


def response_text(body: bytes) -> str:
    """The assistant's reply in a response: the text of its output messages, or nothing."""
    try:
        output = json.loads(body).get("output") or []
    except (ValueError, AttributeError):
        return ""
    if not isinstance(output, list):
        return ""
    return "".join(message_text(item) for item in output if isinstance(item, dict) and item.get("type") == "message")
