"""Knowledge documents and their chunks, embedded and full-text indexed for search.

Knowledge documents: markdown files on disk, uploads and archived conversations, chunked, embedded and full-text
indexed for search.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KeyTextTransform
from pgvector.django import HnswIndex, VectorField

from kbsite.languages.fulltext import RowConfig
from kbsite.models import EndUser, KnowledgeBase

SLUG_RE = r"^[a-z0-9][a-z0-9-]{0,62}[a-z0-9]$"


class DocumentQuerySet(models.QuerySet):
    def present(self):
        """Not deleted (a file removed from disk marks its document deleted)."""
        return self.filter(deleted_at__isnull=True)

    def for_bot(self, bot):
        return self.filter(kb__bot=bot)

    def visible_to(self, end_user_id: int | None):
        """The shared documents, and with ``end_user_id`` that end user's own; never another user's."""
        shared = Q(end_user__isnull=True)
        return self.filter(shared | Q(end_user_id=end_user_id) if end_user_id else shared)

    def readable(self):
        """What a bot may read: present, indexed, and not flagged as a secret or an injection."""
        return self.present().filter(status=Document.Status.DONE, quarantine_reason="")

    def holding_slug(self, kb, slug: str):
        """The present upload, text or conversation document of ``kb`` named ``slug``: a markdown file
        of that name would clash with it."""
        return self.present().filter(kb=kb, slug=slug).exclude(doc_type=Document.Type.MARKDOWN)


class Document(models.Model):
    """A knowledge document of a KB, indexed as chunks."""

    class Type(models.TextChoices):
        MARKDOWN = "markdown"
        UPLOAD = "upload"
        CONVERSATION = "conversation"
        TEXT = "text"

    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSING = "processing"
        DONE = "done"
        FAILED = "failed"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="documents")
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="documents",
        help_text="The end user whose document it is; none: shared knowledge of the KB.",
    )
    slug = models.CharField(max_length=64)
    title = models.CharField(max_length=300, blank=True)
    doc_type = models.CharField(max_length=16, choices=Type.choices, default=Type.MARKDOWN)
    namespace = models.CharField(max_length=200, default="documents")
    source = models.CharField(max_length=300, blank=True, help_text="Original file name, session, or 'api'.")
    content = models.TextField(blank=True, help_text="Extracted text (the markdown itself for markdown files).")
    language = models.CharField(max_length=8, blank=True, help_text="The language it is in (a code; empty: not told).")
    content_hash = models.CharField(max_length=64, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    size_bytes = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    quarantine_reason = models.CharField(
        max_length=300,
        blank=True,
        help_text="Set when a chunk looks like a secret or a prompt injection: "
        "the document stays searchable by operators but never reaches a bot's context.",
    )
    deleted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["kb", "slug"]
        constraints = [models.UniqueConstraint(fields=["kb", "slug"], name="unique_document_slug_per_kb")]
        indexes = [
            models.Index(fields=["kb", "status"]),
            # Cross-session search leaves out the caller's own archived conversations.
            models.Index(KeyTextTransform("session_id", "metadata"), name="document_session_id"),
        ]

    def __str__(self) -> str:
        return self.title or self.slug


class Chunk(models.Model):
    """A piece of a document (about 800 characters), embedded and full-text indexed."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    language = models.CharField(max_length=8, blank=True, help_text="The language it is in (a code; empty: not told).")
    start_char = models.PositiveIntegerField(default=0)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    # A second vector from multilingual-e5-small (MULTILINGUAL_VECTORS): what the text means in any language.
    multilingual_embedding = VectorField(dimensions=384, null=True, blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=RowConfig()),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "ordinal"]
        constraints = [models.UniqueConstraint(fields=["document", "ordinal"], name="unique_chunk_ordinal")]
        indexes = [
            GinIndex(fields=["search_vector"], name="chunk_fts_gin"),
            HnswIndex(
                name="chunk_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            HnswIndex(
                name="chunk_multilingual_hnsw",
                fields=["multilingual_embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            models.Index(fields=["kb"], name="chunk_kb", condition=Q(embedding__isnull=False)),
            models.Index(  # those still without their multilingual vector (memories.multilingual)
                fields=["id"],
                name="chunk_no_multilingual",
                condition=Q(multilingual_embedding__isnull=True, embedding__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document.slug}#{self.ordinal}"
