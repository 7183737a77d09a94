"""What is held about end users: each of a bot's end users with their counts, and everything held about one of them
(:class:`Holdings`), as their erasure (:mod:`memories.rights.erasure`) removes it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, IntegerField, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from kbsite.models import Bot, EndUser, JobRun, KnowledgeBase
from knowledge.models import Document
from memories.ingest.inbox import user_folders
from memories.models import Edge, Entity, IngestItem, Insight, Memory, Message, Session


def _count(queryset: QuerySet, owner: str = "end_user") -> Coalesce:
    """How many rows of ``queryset`` each end user (the outer row) owns, as a subquery."""
    rows = queryset.filter(**{owner: OuterRef("pk")}).order_by().values(owner).annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def users_with_counts(*, bot: Bot, kb: KnowledgeBase | None = None) -> QuerySet:
    """The bot's end users with their sessions, turns, memories (live and retired), documents and when they were
    last seen; with ``kb``, those holding something in it, counted in it."""
    users = EndUser.objects.filter(bot=bot)
    if kb:
        users = users.filter(
            Q(pk__in=Session.objects.filter(kb=kb).values("end_user"))
            | Q(pk__in=Memory.objects.filter(kb=kb).values("end_user"))
            | Q(pk__in=Document.objects.filter(kb=kb).values("end_user"))
        )
    return users_annotated(users, kb=kb).order_by("external_id")


def users_annotated(users: QuerySet, kb: KnowledgeBase | None = None) -> QuerySet:
    """``users`` with their counts (in ``kb`` only, when given), computed for the rows read only."""
    scope = {"kb": kb} if kb else {}
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
    )


@dataclass
class Holdings:
    """What is held about one end user, as erasure would remove it: rows by kind, and files on disk."""

    rows: dict[str, QuerySet]
    files: list[Path]  # stored uploads of their documents
    folders: list[Path]  # their inbox folders

    @classmethod
    def of(cls, end_user: EndUser) -> Holdings:
        documents = Document.objects.filter(end_user=end_user)
        kbs = KnowledgeBase.objects.filter(bot_id=end_user.bot_id).select_related("bot")
        uploads = documents.filter(metadata__has_key="file").select_related("kb__bot")
        return cls(
            rows={
                "turns": Message.objects.filter(session__end_user=end_user),
                "sessions": Session.objects.filter(end_user=end_user),
                # Their own, and any that drew on one of their memories as well as shared ones: removed, not rewritten.
                "insights": Insight.objects.filter(Q(end_user=end_user) | Q(memories__end_user=end_user)).distinct(),
                "memories": Memory.objects.filter(end_user=end_user),
                "edges": Edge.objects.filter(src__end_user=end_user),
                "entities": Entity.objects.filter(end_user=end_user),
                "documents": documents,
                "ingest_items": IngestItem.objects.filter(end_user=end_user),
                "job_runs": JobRun.objects.filter(_runs_naming(end_user)),
            },
            files=[d.kb.folder / d.metadata["file"] for d in uploads],
            folders=[f for kb in kbs for f in user_folders(kb, end_user.external_id) if f.is_dir()],
        )

    def counts(self) -> dict[str, int]:
        counts = {kind: rows.count() for kind, rows in self.rows.items()}
        counts["files"] = sum(1 for path in self.files if path.is_file())
        counts["inbox_files"] = sum(1 for folder in self.folders for path in folder.rglob("*") if path.is_file())
        return counts


def _runs_naming(end_user: EndUser) -> Q:
    """The job runs whose targets name the user's sessions, documents and inbox files."""
    return (
        Q(kb__bot_id=end_user.bot_id, target__contains=f"users/{end_user.external_id}/")
        | Q(kb__bot_id=end_user.bot_id, kind=JobRun.Kind.RECORD_CHAT, detail__user_id=end_user.external_id)
        | _runs_of(Session, Session.objects.filter(end_user=end_user))
        | _runs_of(Document, Document.objects.filter(end_user=end_user))
        | _runs_of(IngestItem, IngestItem.objects.filter(end_user=end_user))
    )


def runs_about(end_user: EndUser) -> QuerySet:
    """The job runs that worked on the user's data: those naming them (erasure removes these) and the shared ones
    that read their turns into their memories (kept: they name no one)."""
    made_theirs = Memory.objects.filter(end_user=end_user, job_run__isnull=False).values("job_run")
    return JobRun.objects.filter(_runs_naming(end_user) | Q(pk__in=made_theirs))


def _runs_of(model, rows: QuerySet) -> Q:
    return Q(object_type=ContentType.objects.get_for_model(model), object_id__in=rows.values("pk"))
