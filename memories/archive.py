"""Archived conversations (seed 004): a session's older turns become a searchable document.

A session's older turns become a conversation document — summary, topics, entities and decisions in its metadata —
that other sessions can search.

Triggered when a session has more than ARCHIVE_AFTER_TURNS unarchived turns (all but the newest ARCHIVE_KEEP_TURNS
are archived) or on request (all of them). Summaries come from the LLM; offline (or once the bot's LLM budget of the
day is spent, unless it chose to wait: the run then waits for tokens), the most informative turns are kept verbatim
(extractive). The session's ``archived_through`` cursor moves in the same transaction that stores the
document, so a failed run loses nothing and a re-run does not archive twice.
"""

from __future__ import annotations

from collections import Counter

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from pydantic import BaseModel, Field, ValidationError

from kbsite import budgets, jobs, languages, locks
from kbsite.ai import embeddings, llm
from kbsite.locks import Lock
from kbsite.models import JobRun, Mode
from knowledge.models import Document
from knowledge.services import Indexing, document_index, document_store, index_prepare
from memories.models import Message, Session
from memories.text import content_words, entities_guess, is_salient, topics_guess

SUMMARY_CHARS = 2000
SYSTEM_PROMPT = """You archive a finished part of a conversation so it can be found in later sessions.
Return a JSON object: {"summary": "...", "topics": ["..."], "entities": ["..."], "decisions": ["..."]}.
- summary: at most 12 sentences, third person, concrete: who said, wanted, planned or decided what, with dates.
- topics: up to 8 short lowercase topics. entities: up to 12 people, places, products, projects (lowercase).
- decisions: each decision or commitment made, one short sentence each (empty list if none).
Use only what the conversation says."""


class _Summary(BaseModel):
    summary: str = Field(min_length=1, max_length=6000)
    topics: list[str] = Field(default_factory=list, max_length=20)
    entities: list[str] = Field(default_factory=list, max_length=30)
    decisions: list[str] = Field(default_factory=list, max_length=30)


def archive_due(*, session: Session, unarchived: int | None = None) -> JobRun | None:
    """Queue an archive of ``session`` if it has outgrown ARCHIVE_AFTER_TURNS and none is waiting.
    ``unarchived``: its turns not yet archived, when the caller knows (else they are counted)."""
    if unarchived is None:
        unarchived = Message.objects.filter(session=session, id__gt=session.archived_through).count()
    if unarchived <= settings.ARCHIVE_AFTER_TURNS:
        return None
    return enqueue_archive(session=session, keep=settings.ARCHIVE_KEEP_TURNS)


def enqueue_archive(*, session: Session, keep: int) -> JobRun:
    """Queue an archive of ``session``'s turns but the newest ``keep``, unless one is already waiting."""
    return jobs.job_enqueue(
        kind=JobRun.Kind.ARCHIVE,
        kb=session.kb,
        obj=session,
        target=session.external_id,
        detail={"keep": keep},
        unique=True,
    )


def archive_retry(job: JobRun) -> JobRun | None:
    """Archive a session again after a failed run, unless the session is gone."""
    if job.object is None:
        return None
    return enqueue_archive(session=job.object, keep=int(job.detail.get("keep", 0)))


def session_archive(*, job: JobRun) -> JobRun:
    """Summarise the session's unarchived turns (but the newest ``keep``) into a conversation document."""
    session = Session.objects.select_related("kb__bot").filter(pk=job.object_id).first()
    if session is None:
        job.finish(status=JobRun.Status.SKIPPED, error="the session was deleted")
        return job
    job.start()
    keep = int(job.detail.get("keep", 0))
    turns = list(Message.objects.filter(session=session, id__gt=session.archived_through).order_by("id"))
    turns = turns[: len(turns) - keep] if keep else turns
    if not turns:
        job.finish(status=JobRun.Status.SKIPPED, error="nothing to archive")
        return job
    job.items_read = len(turns)

    def count_tokens(tokens_in: int, tokens_out: int) -> None:
        job.tokens_in += tokens_in
        job.tokens_out += tokens_out

    state = budgets.llm_state(session.kb.bot_id, job=job)
    if state == budgets.WAIT:
        return jobs.job_wait(job, f"{budgets.SPENT}: the archive waits until tokens are left")
    try:
        if state == budgets.LLM:
            job.mode = Mode.LLM
            summary = llm.complete_validated(
                system=SYSTEM_PROMPT, user=_transcript(turns), validate=_validate, usage=count_tokens
            )
        else:
            job.mode = Mode.HEURISTIC
            summary = summary_extractive(turns)
        content = _summary_markdown(session, turns, summary)
        # Chunked and embedded before the lock is taken: a slow or failing embedding holds up no other run.
        prepared = index_prepare(content, markdown=False)
        with transaction.atomic():
            locks.hold(Lock.ARCHIVE, session.pk)
            session.refresh_from_db(fields=["archived_through"])
            if session.archived_through >= turns[-1].pk:
                job.finish(status=JobRun.Status.SKIPPED, error="already archived by another run")
                return job
            document = _conversation_document(session, turns, summary, content, prepared, mode=job.mode)
            Session.objects.filter(pk=session.pk).update(archived_through=turns[-1].pk)
    except (llm.LLMError, embeddings.EmbeddingError) as exc:
        job.detail = {**job.detail, "llm_attempts": getattr(exc, "attempts", None)}
        job.fail(str(exc), retryable=getattr(exc, "retryable", True))
        return job
    job.detail = {**job.detail, "document": document.slug, "turns": len(turns)}
    job.finish(status=JobRun.Status.SUCCEEDED)
    return job


def _transcript(turns: list[Message]) -> str:
    lines = [f"[{m.created_at:%Y-%m-%d %H:%M}] {m.speaker or m.role}: {m.content}" for m in turns]
    return "Conversation:\n" + llm.untrusted("conversation", "\n".join(lines))


def _validate(data: dict) -> _Summary:
    try:
        return _Summary.model_validate(data)
    except ValidationError as exc:
        raise llm.LLMBadReply(f"archive reply does not match the schema: {exc.errors()[:3]}") from exc


def summary_extractive(turns: list[Message]) -> _Summary:
    """Offline summary: the most informative salient turns, in order, up to SUMMARY_CHARS."""
    salient = [m for m in turns if is_salient(m.content)] or turns
    frequency = Counter(w for m in salient for w in set(content_words(m.content)))

    def weight(message: Message) -> float:
        words = set(content_words(message.content))
        # Words the conversation keeps coming back to, per word said: dense turns first.
        return sum(frequency[w] for w in words) / (len(words) + 3)

    chosen: set[int] = set()
    used = 0
    for message in sorted(salient, key=weight, reverse=True):
        line = f"{message.speaker or message.role}: {message.content.strip()}"
        if used + len(line) > SUMMARY_CHARS and chosen:
            continue
        chosen.add(message.pk)
        used += len(line) + 1
    lines = [
        f"- {m.speaker or m.role} ({m.created_at:%Y-%m-%d}): {m.content.strip()}" for m in salient if m.pk in chosen
    ]
    text = "\n".join(m.content for m in salient)
    entities: list[str] = []
    for m in salient:
        entities += [e for e in entities_guess(m.content, m.speaker) if e not in entities]
    decisions = [m.content.strip()[:300] for m in salient if languages.current().words.DECISION.search(m.content)]
    return _Summary(
        summary="\n".join(lines), topics=topics_guess(text), entities=entities[:12], decisions=decisions[:10]
    )


def _title(session: Session, turns: list[Message]) -> str:
    return f"Session {session.external_id}, {turns[0].created_at:%Y-%m-%d} to {turns[-1].created_at:%Y-%m-%d}"


def _summary_markdown(session: Session, turns: list[Message], summary: _Summary) -> str:
    parts = [f"# {_title(session, turns)}", "", "## Summary", "", summary.summary.strip()]
    if summary.decisions:
        parts += ["", "## Decisions", "", *[f"- {d}" for d in summary.decisions]]
    if summary.topics or summary.entities:
        parts += ["", f"Topics: {', '.join(summary.topics)}", f"Entities: {', '.join(summary.entities)}"]
    return "\n".join(parts) + "\n"


def _conversation_document(
    session: Session, turns: list[Message], summary: _Summary, content: str, prepared: Indexing, *, mode: str
) -> Document:
    start, end = turns[0].created_at, turns[-1].created_at
    slug = f"session-{slugify(session.external_id)[:40].strip('-') or session.pk}-{turns[0].pk}"
    title = _title(session, turns)
    document, _ = document_store(
        kb=session.kb,
        end_user_id=session.end_user_id,  # a user's conversation stays theirs
        slug=slug[:64].strip("-"),
        title=title[:300],
        doc_type=Document.Type.CONVERSATION,
        namespace="conversations",
        source=f"session:{session.external_id}",
        content=content,
        size_bytes=len(content.encode()),
        metadata={
            "session_id": session.external_id,
            "date_range": {"start": start.isoformat(), "end": end.isoformat()},
            "topics": summary.topics,
            "entities": summary.entities,
            "decisions": summary.decisions,
            "message_count": len(turns),
            "first_external_id": turns[0].external_id,
            "last_external_id": turns[-1].external_id,
            "compression_date": timezone.now().isoformat(),
            "mode": mode,
        },
    )
    document_index(document=document, prepared=prepared)
    return document
