"""Memory, one atomic fact with its provenance and its life span, and the word counts of large KBs' memories.

Bi-temporal. Valid time: when a fact was true in the world (``valid_from`` / ``valid_to``). System time: when
kbsite learned it (``created_at``) and when it retired it (``retired_at``). A memory is *live* while ``retired_at``
is null. The system never hard-deletes a memory: a contradicted fact is retired (``superseded_by`` pointing at its
replacement, its valid time ending where the replacement's begins), so its history stays visible.
"""

from __future__ import annotations

import hashlib
import re

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from kbsite import languages
from kbsite.languages.fulltext import RowConfig
from kbsite.models import EndUser, KnowledgeBase, Mode
from memories.models.conversations import Message
from memories.models.querysets import MemoryQuerySet


def text_hash(text: str) -> str:
    """Hash of the normalised text: case, whitespace and trailing dots ignored (verbatim dedup)."""
    normalised = re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .!")
    return hashlib.sha256(normalised.encode()).hexdigest()


def source_entries(messages: list[tuple[str, str]], chunk: tuple[str, int] | None, source_file: str) -> list[dict]:
    """A memory's provenance as the API shows it: its messages (session, external id), then the document
    chunk (slug, ordinal), then the inbox file."""
    found: list[dict] = [
        {"type": "message", "session_id": session, "external_id": external_id} for session, external_id in messages
    ]
    if chunk:
        found.append({"type": "document", "document": chunk[0], "chunk": chunk[1]})
    if source_file:
        found.append({"type": "file", "file": source_file})
    return found


class Memory(models.Model):
    """One atomic declarative fact, with its provenance and its life span."""

    class Kind(models.TextChoices):
        FACT = "fact"
        PREFERENCE = "preference"
        USER_PROFILE = "user_profile", "User profile"
        PROJECT = "project"
        ENV = "env", "Environment"
        EVENT = "event"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="memories")
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="memories",
        help_text="Whose fact it is; none: shared knowledge of the KB.",
    )
    text = models.TextField()
    language = models.CharField(max_length=8, blank=True, help_text="The language it is in (a code; empty: not told).")
    reading = models.JSONField(
        default=dict,
        blank=True,
        editable=False,
        help_text="What it states of one person's attributes and says has changed, read once when it was written "
        "(empty: written before readings were stored; read when needed).",
    )
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.FACT)
    entities = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    topics = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    importance = models.FloatField(default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    # In a language other than English, or in a KB asked in one, a second vector from multilingual-e5-small
    # (MULTILINGUAL_VECTORS): what recall finds it by, and ask judges its closeness by, across languages
    # (memories.multilingual).
    multilingual_embedding = VectorField(dimensions=384, null=True, blank=True, editable=False)
    # In the HNSW index (its KB has outgrown exact search); otherwise found by an exact scan of its KB.
    in_vector_index = models.BooleanField(default=False, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=RowConfig()),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    content_hash = models.CharField(max_length=64, editable=False)

    valid_from = models.DateTimeField(
        null=True, blank=True, help_text="Valid time: when the fact became true in the world, if known."
    )
    valid_to = models.DateTimeField(
        null=True, blank=True, help_text="Valid time: when it stopped being true (where the fact replacing it began)."
    )
    retired_at = models.DateTimeField(
        null=True, blank=True, help_text="System time: when kbsite retired it (superseded, edited, forgotten)."
    )
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    retired_reason = models.CharField(max_length=200, blank=True)

    source = models.CharField(max_length=300, blank=True, help_text="chat, api, inbox file name, document…")
    metadata = models.JSONField(
        default=dict, blank=True, help_text="Labels of the client (from its turns or text, or set directly)."
    )
    source_messages = models.ManyToManyField(Message, blank=True, related_name="memories")
    source_chunk = models.ForeignKey(
        "knowledge.Chunk", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    source_file = models.CharField(max_length=500, blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.MANUAL)
    job_run = models.ForeignKey(
        "kbsite.JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )

    consolidated = models.BooleanField(default=False)
    quarantined = models.BooleanField(
        default=False, help_text="Flagged on the write path; never injected into a context."
    )
    quarantine_reason = models.CharField(max_length=300, blank=True)

    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = MemoryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "memories"
        indexes = [
            models.Index(  # those still without their multilingual vector (memories.multilingual)
                fields=["id"],
                name="memory_no_multilingual",
                condition=Q(multilingual_embedding__isnull=True, embedding__isnull=False)
                & ~Q(language__in=list(languages.ENGLISH)),
            ),
            models.Index(  # and those of a KB asked in a language other than English (memories.multilingual)
                fields=["kb", "id"],
                name="memory_kb_no_multilingual",
                condition=Q(multilingual_embedding__isnull=True, embedding__isnull=False),
            ),
            GinIndex(fields=["search_vector"], name="memory_fts_gin"),
            GinIndex(fields=["entities"], name="memory_entities_gin"),
            # Only large KBs' memories: an insert into the graph costs more CPU than the rest of storing a
            # memory, and a small KB is searched exactly, and faster, through memory_kb_exact.
            HnswIndex(  # the multilingual vectors of a large KB's memories (memories.multilingual)
                name="memory_multilingual_hnsw",
                fields=["multilingual_embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(in_vector_index=True),
            ),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(in_vector_index=True),
            ),
            # An end user's memories are never in the HNSW index: recall for one user compares their few
            # memories exactly, through this index, however large the KB.
            models.Index(fields=["kb", "end_user"], name="memory_kb_user_exact", condition=Q(in_vector_index=False)),
            models.Index(fields=["kb", "content_hash"], name="memory_kb_hash"),
            models.Index(fields=["kb", "-created_at"], name="memory_kb_recent"),
            models.Index(
                fields=["kb", "created_at"],
                name="memory_kb_unconsolidated",
                condition=Q(consolidated=False, retired_at__isnull=True),
            ),
            # The dashboard's counts of a KB's retired and quarantined memories (a few of its rows): the live
            # ones are all of them less these.
            models.Index(fields=["kb"], name="memory_kb_retired", condition=Q(retired_at__isnull=False)),
            models.Index(
                fields=["kb"], name="memory_kb_quarantined", condition=Q(quarantined=True, retired_at__isnull=True)
            ),
            # The admin's default list (live, not quarantined) and a KB's counts by mode, counted without reading the
            # table.
            models.Index(
                fields=["kb", "mode"], name="memory_kb_live", condition=Q(quarantined=False, retired_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    def save(self, *args, **kwargs):
        self.content_hash = text_hash(self.text)
        super().save(*args, **kwargs)

    @property
    def is_live(self) -> bool:
        return self.retired_at is None

    def sources(self) -> list[dict]:
        """Provenance: the messages, document chunk or file it came from (uses prefetched relations)."""
        chunk = self.source_chunk if self.source_chunk_id else None
        return source_entries(
            [(m.session.external_id, m.external_id) for m in self.source_messages.all()],
            (chunk.document.slug, chunk.ordinal) if chunk else None,
            self.source_file,
        )

    def versions(self, limit: int = 100) -> list[Memory]:
        """Its whole history: every memory linked to it by supersession (the wordings it replaced, the ones that
        replaced them, and on), oldest first, itself included."""
        seen: dict[int, Memory] = {self.pk: self}
        frontier = [self.pk]
        while frontier and len(seen) < limit:
            linked = Memory.objects.filter(Q(superseded_by__in=frontier) | Q(supersedes__in=frontier))
            frontier = []
            for memory in linked.exclude(pk__in=list(seen)).distinct()[:limit]:
                seen[memory.pk] = memory
                frontier.append(memory.pk)
        return sorted(seen.values(), key=lambda m: (m.created_at, m.pk))

    def retire(self, *, reason: str, superseded_by: Memory | None = None) -> bool:
        """Retire this fact (never delete): its own row only. What follows (its edges and insights retired, its
        bot's webhooks told) is :func:`memories.services.memory_retire`'s, which calls this. Returns False if it was
        already retired.

        Locks the row: two concurrent supersessions of the same fact must not
        both win, or the fact would end up with two replacements.
        """
        with transaction.atomic():
            row = Memory.objects.select_for_update().get(pk=self.pk)
            if row.retired_at is not None:
                return False
            row.retired_at = timezone.now()
            row.retired_reason = reason
            row.superseded_by = superseded_by
            row.save(update_fields=["retired_at", "retired_reason", "superseded_by", "updated_at"])
        self.retired_at, self.retired_reason, self.superseded_by = row.retired_at, row.retired_reason, row.superseded_by
        return True


class TermStat(models.Model):
    """In how many live memories of a large KB each word (lexeme) occurs.

    The full-text ranking weighs words by rarity; counting a common word in a
    KB of 100,000 memories at query time costs more than the rest of a recall,
    so large KBs keep the counts here, refreshed by their ingest jobs.
    """

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="term_stats")
    term = models.CharField(max_length=200)
    ndoc = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kb", "term"], name="unique_term_per_kb")]

    def __str__(self) -> str:
        return f"{self.term}: {self.ndoc}"
