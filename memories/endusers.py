"""End users' data rights: what is held about each of a bot's end users, and their erasure (their export is
:mod:`memories.portability`)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from django.db import transaction
from django.db.models import Count, IntegerField, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from kbsite import locks
from kbsite.locks import Lock
from kbsite.models import Bot, EndUser, Erasure, KnowledgeBase
from knowledge.models import Document
from memories.ingest.inbox import user_folders
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


# --- Erasure --------------------------------------------------------------------------


def user_erase(*, end_user: EndUser, erased_by: str) -> dict[str, int]:
    """Erase everything held about ``end_user`` in every KB of their bot: turns and sessions, memories (retired
    history too), insights drawn from them, their entities and edges, their documents (archived conversations
    included) with their files on disk, pending ingest items, their inbox folders (waiting, claimed, processed and
    failed files); then the user. Keeps an :class:`Erasure` record
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
        folders = [folder for kb in kbs for folder in user_folders(kb, end_user.external_id) if folder.is_dir()]
        entities = Entity.objects.filter(end_user=end_user).delete()[1]
        counts = {
            "turns": Message.objects.filter(session__end_user=end_user).count(),
            "sessions": Session.objects.filter(end_user=end_user).delete()[1].get("memories.Session", 0),
            "insights": Insight.objects.filter(end_user=end_user).delete()[0]
            + Insight.objects.filter(memories__end_user=end_user).delete()[0],
            "memories": Memory.objects.filter(end_user=end_user).delete()[1].get("memories.Memory", 0),
            "entities": entities.get("memories.Entity", 0),
            "edges": entities.get("memories.Edge", 0),
            "documents": documents.delete()[1].get("knowledge.Document", 0),
            "ingest_items": IngestItem.objects.filter(end_user=end_user).delete()[1].get("memories.IngestItem", 0),
            "files": len(files),
            "inbox_files": sum(1 for folder in folders for path in folder.rglob("*") if path.is_file()),
        }
        digest = Erasure.digest(end_user.external_id)
        Erasure.objects.create(bot=bot, user_id_sha256=digest, erased_by=erased_by, counts=counts)
        end_user.delete()
        transaction.on_commit(lambda: _files_remove(files, folders))
    for kb in kbs:
        if TermStat.objects.filter(kb=kb).exists():  # its word counts held the user's words
            kb_term_stats_refresh(kb=kb)
    logger.info("erased an end user of %s: %s", bot, counts)
    return counts


def _files_remove(paths: list[Path], folders: list[Path]) -> None:
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            logger.exception("could not remove %s of an erased end user", path)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
