"""End users' data rights: what is held about each of a bot's end users, their export, and their erasure."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

from django.db import transaction
from django.db.models import Count, IntegerField, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from kbsite import locks
from kbsite.locks import Lock
from kbsite.models import Bot, EndUser, Erasure, KnowledgeBase
from knowledge.models import Document
from memories.models import Entity, IngestItem, Insight, Memory, Message, Session, TermStat
from memories.services import kb_term_stats_refresh

logger = logging.getLogger(__name__)


def _count(queryset: QuerySet, owner: str = "end_user") -> Coalesce:
    """How many rows of ``queryset`` each end user (the outer row) owns, as a subquery."""
    rows = queryset.filter(**{owner: OuterRef("pk")}).order_by().values(owner).annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def users_with_counts(*, bot: Bot, kb: KnowledgeBase | None = None) -> QuerySet:
    """The bot's end users with their sessions, turns, memories (live and retired), documents and when they were
    last seen; with ``kb``, those holding something in it, counted in it."""
    scope = {"kb": kb} if kb else {}
    users = EndUser.objects.filter(bot=bot)
    if kb:
        users = users.filter(
            Q(pk__in=Session.objects.filter(kb=kb).values("end_user"))
            | Q(pk__in=Memory.objects.filter(kb=kb).values("end_user"))
            | Q(pk__in=Document.objects.filter(kb=kb).values("end_user"))
        )
    return users.annotate(
        n_sessions=_count(Session.objects.filter(**scope)),
        n_turns=_count(Message.objects.filter(**scope), owner="session__end_user"),
        n_memories=_count(Memory.objects.filter(**scope)),
        n_documents=_count(Document.objects.present().filter(**scope)),
        last_turn_at=Subquery(
            Message.objects.filter(session__end_user=OuterRef("pk"), **scope)
            .order_by()
            .values("session__end_user")
            .annotate(last=Max("created_at"))
            .values("last")
        ),
    ).order_by("external_id")


# --- Export: JSON Lines ---------------------------------------------------------------


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def records(*, kbs: list[KnowledgeBase], end_user: EndUser | None = None) -> Iterator[dict]:
    """Everything held in ``kbs`` (about ``end_user`` only, when given), as records of the export format: the
    user(s), sessions, turns, memories (live and retired, with provenance and validity), insights and documents
    with their content. Read in chunks, never all at once."""
    kb_names = {kb.pk: kb.name for kb in kbs}

    def owned(queryset: QuerySet, owner: str = "end_user") -> QuerySet:
        queryset = queryset.filter(kb__in=kbs)
        return queryset.filter(**{owner: end_user}) if end_user else queryset

    users = [end_user] if end_user else EndUser.objects.filter(bot=kbs[0].bot) if kbs else []
    for user in users:
        yield {"type": "user", "user_id": user.external_id, "created_at": _iso(user.created_at)}
    for s in owned(Session.objects.select_related("end_user")).order_by("id").iterator(chunk_size=500):
        yield {
            "type": "session",
            "kb": kb_names[s.kb_id],
            "session_id": s.external_id,
            "user_id": s.end_user.external_id if s.end_user else None,
            "created_at": _iso(s.created_at),
        }
    turns = owned(Message.objects.select_related("session"), owner="session__end_user").order_by("id")
    for m in turns.iterator(chunk_size=1000):
        yield {
            "type": "turn",
            "kb": kb_names[m.kb_id],
            "session_id": m.session.external_id,
            "external_id": m.external_id,
            "role": m.role,
            "speaker": m.speaker,
            "content": m.content,
            "created_at": _iso(m.created_at),
        }
    yield from _memory_records(owned(Memory.objects.select_related("end_user")), kb_names)
    insights = owned(Insight.objects.select_related("end_user")).prefetch_related("memories").order_by("id")
    for i in insights.iterator(chunk_size=500):
        yield {
            "type": "insight",
            "kb": kb_names[i.kb_id],
            "id": i.pk,
            "user_id": i.end_user.external_id if i.end_user else None,
            "text": i.text,
            "memories": sorted(m.pk for m in i.memories.all()),
            "mode": i.mode,
            "created_at": _iso(i.created_at),
            "valid_to": _iso(i.valid_to),
        }
    for d in owned(Document.objects.present().select_related("end_user")).order_by("id").iterator(chunk_size=100):
        yield {
            "type": "document",
            "kb": kb_names[d.kb_id],
            "slug": d.slug,
            "user_id": d.end_user.external_id if d.end_user else None,
            "title": d.title,
            "doc_type": d.doc_type,
            "namespace": d.namespace,
            "source": d.source,
            "content": d.content,
            "metadata": d.metadata,
            "created_at": _iso(d.created_at),
        }


def _memory_records(memories: QuerySet, kb_names: dict[int, str]) -> Iterator[dict]:
    """Memory records, 500 at a time with their provenance."""
    batch: list[Memory] = []
    for memory in memories.order_by("id").defer("embedding").iterator(chunk_size=500):
        batch.append(memory)
        if len(batch) == 500:
            yield from _memory_batch(batch, kb_names)
            batch = []
    yield from _memory_batch(batch, kb_names)


def _memory_batch(batch: list[Memory], kb_names: dict[int, str]) -> Iterator[dict]:
    sources = Memory.objects.filter(pk__in=[m.pk for m in batch]).sources_by_id()
    for m in batch:
        yield {
            "type": "memory",
            "kb": kb_names[m.kb_id],
            "id": m.pk,
            "user_id": m.end_user.external_id if m.end_user else None,
            "text": m.text,
            "kind": m.kind,
            "entities": m.entities,
            "topics": m.topics,
            "importance": m.importance,
            "valid_from": _iso(m.valid_from),
            "valid_to": _iso(m.valid_to),
            "superseded_by": m.superseded_by_id,
            "retired_reason": m.retired_reason,
            "source": m.source,
            "sources": sources.get(m.pk, []),
            "mode": m.mode,
            "quarantined": m.quarantined,
            "quarantine_reason": m.quarantine_reason,
            "created_at": _iso(m.created_at),
        }


def json_lines(rows: Iterator[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


# --- Erasure --------------------------------------------------------------------------


def user_erase(*, end_user: EndUser, erased_by: str) -> dict[str, int]:
    """Erase everything held about ``end_user`` in every KB of their bot: turns and sessions, memories (retired
    history too), insights drawn from them, their entities and edges, their documents (archived conversations
    included) with their files on disk, pending ingest items; then the user. Keeps an :class:`Erasure` record
    with who asked, when and the counts, and no content. Returns the counts.

    Applies of the bot's KBs are held off meanwhile (their write locks), so a running extraction cannot write a
    fact of this user after it: its apply fails on the missing user and nothing is stored.
    """
    bot = end_user.bot
    kbs = list(KnowledgeBase.objects.filter(bot=bot).order_by("pk"))
    files = []
    with transaction.atomic():
        for kb in kbs:
            locks.hold(Lock.KB_WRITE, kb.pk)
        documents = Document.objects.filter(end_user=end_user)
        for document in documents.select_related("kb__bot"):
            relative = (document.metadata or {}).get("file")
            if relative:
                files.append(document.kb.folder / relative)
        counts = {
            "turns": Message.objects.filter(session__end_user=end_user).count(),
            "sessions": Session.objects.filter(end_user=end_user).delete()[1].get("memories.Session", 0),
            "insights": Insight.objects.filter(end_user=end_user).delete()[0]
            + Insight.objects.filter(memories__end_user=end_user).delete()[0],
            "memories": Memory.objects.filter(end_user=end_user).delete()[1].get("memories.Memory", 0),
            "entities": Entity.objects.filter(end_user=end_user).delete()[1].get("memories.Entity", 0),
            "documents": documents.delete()[1].get("knowledge.Document", 0),
            "ingest_items": IngestItem.objects.filter(end_user=end_user).delete()[1].get("memories.IngestItem", 0),
            "files": len(files),
        }
        digest = Erasure.digest(end_user.external_id)
        Erasure.objects.create(bot=bot, user_id_sha256=digest, erased_by=erased_by, counts=counts)
        end_user.delete()
        transaction.on_commit(lambda: _files_remove(files))
    for kb in kbs:
        if TermStat.objects.filter(kb=kb).exists():  # its word counts held the user's words
            kb_term_stats_refresh(kb=kb)
    logger.info("erased an end user of %s: %s", bot, counts)
    return counts


def _files_remove(paths: list) -> None:
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            logger.exception("could not remove %s of an erased end user", path)
