"""What bots send in: sessions and their turns, and the texts and files waiting to be ingested."""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.fields import GenericRelation
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from kbsite.languages.fulltext import RowConfig
from kbsite.models import EndUser, JobRun, KnowledgeBase


class Session(models.Model):
    """A conversation of the bot, with the extraction cursor over its messages."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="sessions")
    external_id = models.CharField(max_length=200)
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="sessions",
        help_text="The end user whose conversation it is; none: a shared conversation.",
    )
    # Id of the last message fed to a committed extraction. Messages are
    # ordered by insertion (id), so a late-arriving old turn is still fed.
    extracted_through = models.BigIntegerField(default=0)
    # Id of the last message summarised into an archived conversation document.
    archived_through = models.BigIntegerField(default=0)
    # The extraction job working on the session's new turns, until ``claimed_until``: jobs sharing a KB's
    # backlog never extract the same turns, and the claim of a worker that died runs out.
    claimed_by = models.ForeignKey("kbsite.JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [models.UniqueConstraint(fields=["kb", "external_id"], name="unique_session_per_kb")]

    def __str__(self) -> str:
        return self.external_id


class Message(models.Model):
    """One chat turn posted by a bot; idempotent by ``external_id`` within its session (a chat platform's message
    ids are often its chat's own).

    With an LLM, the turns its facts were drawn from are searched beside those facts (memories.recall.turns): an
    extraction in LLM mode embeds its screened user turns (``embedding``; null: not searched)."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        SYSTEM = "system"
        TOOL = "tool"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="messages")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    # The session's end user (a session never changes hands), kept on the turn: a user's searched turns and the
    # shared ones are then read through indexes of their own (memories.recall.scope).
    end_user = models.ForeignKey(
        EndUser, null=True, blank=True, on_delete=models.CASCADE, related_name="+", editable=False, db_index=False
    )
    external_id = models.CharField(max_length=200)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.USER)
    speaker = models.CharField(max_length=200, blank=True)
    content = models.TextField()
    language = models.CharField(max_length=8, blank=True, help_text="The language it is in (a code; empty: not told).")
    metadata = models.JSONField(default=dict, blank=True, help_text="The client's own labels, carried to its facts.")
    created_at = models.DateTimeField(default=timezone.now, help_text="When the turn was said (client's clock).")
    received_at = models.DateTimeField(auto_now_add=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    # A searched turn of a shared session of a KB that has outgrown exact search (KnowledgeBase.vector_index) is
    # searched through the HNSW index, as its memories are; an end user's turns are compared exactly.
    in_vector_index = models.BooleanField(default=False, db_default=False, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config=RowConfig()),
        output_field=SearchVectorField(),
        db_persist=True,
    )

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["session", "external_id"], name="unique_message_per_session")]
        indexes = [
            models.Index(fields=["session", "id"]),
            GinIndex(fields=["search_vector"], name="message_fts_gin", condition=Q(embedding__isnull=False)),
            # The searched turns of a KB, compared exactly (an end user's few, or a KB's).
            models.Index(fields=["kb", "session"], name="message_searched", condition=Q(embedding__isnull=False)),
            # The searched turns outside the HNSW index, by end user: a user's turns, compared exactly, read without
            # the shared turns of the KB's index (277 ms with 100,000 shared turns; 0.5 ms so).
            models.Index(
                fields=["end_user"],
                name="message_user_exact",
                condition=Q(embedding__isnull=False, in_vector_index=False),
            ),
            # A user's own searched turns, whose words are read one by one (memories.recall.fulltext).
            models.Index(fields=["end_user"], name="message_user_searched", condition=Q(embedding__isnull=False)),
            # The words of the shared searched turns alone: a word's rows among 100,000 shared turns, without
            # every user's turns that hold it too.
            GinIndex(
                fields=["search_vector"],
                name="message_shared_fts",
                condition=Q(embedding__isnull=False, end_user__isnull=True),
            ),
            HnswIndex(
                name="message_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(in_vector_index=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.content[:60]}"

    def save(self, *args, **kwargs):
        if self._state.adding and self.session_id:
            self.end_user_id = self.session.end_user_id
        super().save(*args, **kwargs)


class IngestItem(models.Model):
    """A text or inbox-file input, kept until processed so that nothing is lost."""

    class Kind(models.TextChoices):
        TEXT = "text"
        FILE = "file", "Inbox file"
        DOCUMENT = "document", "Uploaded document"

    class Status(models.TextChoices):
        PENDING = "pending"
        DONE = "done"
        FAILED = "failed"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="ingest_items")
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ingest_items",
        help_text="Whose input it is; none: shared.",
    )
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.TEXT)
    source = models.CharField(max_length=300, blank=True)
    file_name = models.CharField(max_length=255, blank=True)
    # An uploaded document's facts are extracted chunk by chunk, each fact citing its chunk.
    document = models.ForeignKey(
        "knowledge.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="ingest_items"
    )
    text = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True, help_text="The client's own labels, carried to its facts.")
    # Segments already applied: a retry resumes after them instead of re-extracting.
    progress = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    job_runs = GenericRelation(JobRun, content_type_field="object_type", object_id_field="object_id")
    created_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "ingest item"
        indexes = [models.Index(fields=["kb", "status"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.source or self.file_name or self.pk}"
