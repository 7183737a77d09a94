"""Receiving input: turns, text and documents are stored at once, and their extraction is queued."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from kbsite import jobs, locks
from kbsite.locks import Lock
from kbsite.models import EndUser, JobRun, KnowledgeBase
from kbsite.stats import stats_add
from knowledge.models import Document
from memories.archive import archive_due
from memories.ingest import bulk
from memories.models import IngestItem, Message, Session


class SessionOfAnotherUser(ValueError):
    """Turns posted to a session under another end user than the one it belongs to (an HTTP 409)."""

    def __init__(self, session: Session):
        owner = f"end user {session.end_user.external_id!r}" if session.end_user_id else "no end user (it is shared)"
        super().__init__(
            f"Session {session.external_id!r} belongs to {owner}: a session holds the turns of one user. "
            "Post these turns under that user_id, or to a new session_id."
        )


def messages_receive(
    *, kb: KnowledgeBase, session_id: str, messages: list[dict], end_user: EndUser | None = None
) -> dict:
    """Store a batch of turns (idempotent by external_id within the session: a chat platform's message ids are
    often its chat's own, so two users' chats may both have a turn "17") and queue their extraction.

    A session belongs to the end user it was first posted under (or to none: shared); turns for it under
    another user raise :class:`SessionOfAnotherUser` and nothing is stored."""
    with transaction.atomic():
        # Serialise posts to one KB so the duplicate check below is exact (and a session is created once).
        locks.hold(Lock.KB_WRITE, kb.pk)
        # Sessions are only created here, under the KB's lock: no savepoint needed against a racing insert.
        session = Session.objects.select_related("end_user").filter(kb=kb, external_id=session_id).first()
        created = session is None
        if created:
            session = Session.objects.create(kb=kb, external_id=session_id, end_user=end_user)
        elif session.end_user_id != (end_user.pk if end_user else None):
            raise SessionOfAnotherUser(session)
        wanted = [m["external_id"] for m in messages]
        existing = set(
            Message.objects.filter(session=session, external_id__in=wanted).values_list("external_id", flat=True)
        )
        rows, seen = [], set()
        for m in messages:
            if m["external_id"] in existing or m["external_id"] in seen:
                continue
            seen.add(m["external_id"])
            rows.append(m)
        told = kb.languages_of([m["content"] for m in rows])
        rows = [{**m, "language": code} for m, code in zip(rows, told, strict=True)]
        kb.languages_note(told)
        bulk.messages_insert(kb_id=kb.pk, session_id=session.pk, messages=rows)
        if not created:
            Session.objects.filter(pk=session.pk).update(updated_at=timezone.now())
        job = enqueue_extract(kb=kb) if rows else None
        if rows:
            stats_add(kb.pk, turns=len(rows))
            # A new session holds just these turns: no need to count them.
            archive_due(session=session, unarchived=len(rows) if created else None)
    return {
        "session_id": session_id,
        "accepted": len(rows),
        "duplicates": len(messages) - len(rows),
        "job_id": job.pk if job else None,
    }


def text_receive(
    *, kb: KnowledgeBase, text: str, source: str, end_user: EndUser | None = None, metadata: dict | None = None
) -> tuple[IngestItem, JobRun]:
    """Store a piece of text (the end user's own, or shared; with the client's ``metadata``, which its facts
    carry) and queue its ingestion; returns the item and its job."""
    with transaction.atomic():
        item = IngestItem.objects.create(
            kb=kb, kind=IngestItem.Kind.TEXT, source=source, text=text, end_user=end_user, metadata=metadata or {}
        )
        job = enqueue_item_ingest(item=item)
        stats_add(kb.pk, texts=1)
    return item, job


def enqueue_extract(*, kb: KnowledgeBase) -> JobRun:
    """Queue extraction of the KB's unprocessed turns, unless a queued job will already see them."""
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_MESSAGES, kb=kb, target="unprocessed turns", unique=True)


def enqueue_item_ingest(*, item: IngestItem) -> JobRun:
    return jobs.job_enqueue(kind=JobRun.Kind.INGEST_TEXT, kb=item.kb, obj=item, target=item.file_name or item.source)


def document_facts_queue(*, document: Document) -> JobRun | None:
    """Queue fact extraction from an uploaded or sent document, once: its facts then feed recall, citing chunks.

    Markdown knowledge files are the bot's own reference (searched as documents, not mined for facts), and
    archived conversations were extracted as turns.
    """
    if document.doc_type not in (Document.Type.UPLOAD, Document.Type.TEXT):
        return None
    with transaction.atomic():
        if IngestItem.objects.filter(document=document).exists():
            return None
        item = IngestItem.objects.create(
            kb_id=document.kb_id,
            end_user_id=document.end_user_id,
            kind=IngestItem.Kind.DOCUMENT,
            document=document,
            source=f"document:{document.slug}",
        )
        return enqueue_item_ingest(item=item)
