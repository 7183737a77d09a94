"""The memory domain: bots, their knowledge bases, conversations, memories.

Bi-temporal: a memory is *live* while ``valid_to`` is null. The system never
hard-deletes a memory; a contradicted fact is retired (``valid_to`` set,
``superseded_by`` pointing at its replacement) so its history stays visible.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

NAME_RE = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
name_validator = RegexValidator(
    NAME_RE,
    "Use 1-64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.",
)

# Full-text config for memories and chunks. 'english' stems and drops the
# usual stopwords; the query side removes the memory-specific ones (seed 001).
FTS_CONFIG = "english"


def text_hash(text: str) -> str:
    """Hash of the normalised text: case, whitespace and trailing dots ignored (verbatim dedup)."""
    normalised = re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .!")
    return hashlib.sha256(normalised.encode()).hexdigest()


class Mode(models.TextChoices):
    """What produced a memory or an insight."""

    LLM = "llm", "LLM"
    HEURISTIC = "heuristic", "Heuristic (offline)"
    MANUAL = "manual", "Manual"


class Bot(models.Model):
    """A client application. Owns API keys and knowledge bases."""

    name = models.CharField(max_length=64, unique=True, validators=[name_validator])
    description = models.TextField(blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def issue_key(self, *, name: str = "default") -> tuple[ApiKey, str]:
        """Create a new API key; returns the row and the plain key, which is never stored."""
        plain = f"kb_{secrets.token_urlsafe(32)}"
        key = ApiKey.objects.create(bot=self, name=name, prefix=plain[:10], hashed_key=ApiKey.hash(plain))
        return key, plain


class ApiKeyQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True, bot__is_active=True)


class ApiKey(models.Model):
    """A bot's API key, stored as a SHA-256 hash (keys are 256-bit random, so no slow hash is needed)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=16, help_text="First characters of the key, to recognise it.")
    hashed_key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.bot})"

    @staticmethod
    def hash(plain: str) -> str:
        return hashlib.sha256(plain.encode()).hexdigest()

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])


class KnowledgeBaseQuerySet(models.QuerySet):
    def for_bot(self, bot: Bot):
        return self.filter(bot=bot)

    def always_on(self):
        return self.filter(always_on=True, is_active=True)


class KnowledgeBaseManager(models.Manager.from_queryset(KnowledgeBaseQuerySet)):
    def get_queryset(self):
        # A KB is always named "<bot>/<kb>": fetch the bot with it, everywhere.
        return super().get_queryset().select_related("bot")


class KnowledgeBase(models.Model):
    """A named memory + document store of one bot, with its own folders on disk."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="knowledge_bases")
    name = models.CharField(max_length=64, validators=[name_validator])
    description = models.TextField(blank=True)
    always_on = models.BooleanField(
        default=False,
        help_text="Inject this KB's memory into every context request of the bot, and consolidate it on a schedule.",
    )
    consolidate_interval_minutes = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(1), MaxValueValidator(7 * 24 * 60)]
    )
    is_active = models.BooleanField(default=True)
    # Live memories when the word statistics (TermStat) were last counted; 0 = none kept.
    term_stats_memories = models.PositiveIntegerField(default=0, editable=False)
    vector_index = models.BooleanField(
        default=False,
        editable=False,
        help_text="Its memories are searched through the approximate vector index (HNSW); a KB is searched exactly "
        "until it outgrows VECTOR_INDEX_MIN_MEMORIES.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = KnowledgeBaseManager()

    class Meta:
        ordering = ["bot__name", "name"]
        constraints = [models.UniqueConstraint(fields=["bot", "name"], name="unique_kb_name_per_bot")]
        verbose_name = "knowledge base"

    def __str__(self) -> str:
        return f"{self.bot.name}/{self.name}"

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        self.ensure_folders()

    def ensure_folders(self) -> None:
        for path in (self.inbox_dir, self.processed_dir, self.failed_dir, self.knowledge_dir):
            path.mkdir(parents=True, exist_ok=True)

    @property
    def folder(self) -> Path:
        """``<data dir>/<bot>/<kb>/``: both names are validated slugs, so no path tricks."""
        return Path(settings.KBSITE_DATA_DIR) / self.bot.name / self.name

    @property
    def inbox_dir(self) -> Path:
        return self.folder / "inbox"

    @property
    def processed_dir(self) -> Path:
        return self.folder / "processed"

    @property
    def failed_dir(self) -> Path:
        return self.folder / "failed"

    @property
    def knowledge_dir(self) -> Path:
        return self.folder / "knowledge"


class Session(models.Model):
    """A conversation of the bot, with the extraction cursor over its messages."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="sessions")
    external_id = models.CharField(max_length=200)
    # Id of the last message fed to a committed extraction. Messages are
    # ordered by insertion (id), so a late-arriving old turn is still fed.
    extracted_through = models.BigIntegerField(default=0)
    # Id of the last message summarised into an archived conversation document.
    archived_through = models.BigIntegerField(default=0)
    # The extraction job working on the session's new turns, until ``claimed_until``: jobs sharing a KB's
    # backlog never extract the same turns, and the claim of a worker that died runs out.
    claimed_by = models.ForeignKey("JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [models.UniqueConstraint(fields=["kb", "external_id"], name="unique_session_per_kb")]

    def __str__(self) -> str:
        return self.external_id


class Message(models.Model):
    """One chat turn posted by a bot; idempotent by ``external_id`` within a KB."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        SYSTEM = "system"
        TOOL = "tool"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="messages")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    external_id = models.CharField(max_length=200)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.USER)
    speaker = models.CharField(max_length=200, blank=True)
    content = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, help_text="When the turn was said (client's clock).")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["kb", "external_id"], name="unique_message_per_kb")]
        indexes = [models.Index(fields=["session", "id"])]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.content[:60]}"


class MemoryQuerySet(models.QuerySet):
    def live(self):
        """Not retired: the facts currently believed."""
        return self.filter(valid_to__isnull=True)

    def retired(self):
        return self.filter(valid_to__isnull=False)

    def injectable(self):
        """Live and not quarantined: safe to put into a bot's prompt."""
        return self.live().filter(quarantined=False)

    def for_bot(self, bot: Bot):
        return self.filter(kb__bot=bot)

    def as_of(self, moment):
        """The facts the system held as live at ``moment`` (transaction time)."""
        return self.filter(created_at__lte=moment).filter(Q(valid_to__isnull=True) | Q(valid_to__gt=moment))

    def sources_by_id(self) -> dict[int, list[dict]]:
        """Each memory's provenance (as ``Memory.sources()``) in two flat queries, with no model instances:
        for the few results of a recall, where building instances cost more than the queries."""
        rows = list(self.values_list("id", "source_file", "source_chunk__document__slug", "source_chunk__ordinal"))
        messages: dict[int, list[tuple[str, str]]] = {pk: [] for pk, *_ in rows}
        links = (
            Memory.source_messages.through.objects.filter(memory_id__in=list(messages))
            .order_by("memory_id", "message_id")
            .values_list("memory_id", "message__session__external_id", "message__external_id")
        )
        for pk, session_id, external_id in links:
            messages[pk].append((session_id, external_id))
        return {
            pk: source_entries(messages[pk], (slug, ordinal) if slug is not None else None, source_file)
            for pk, source_file, slug, ordinal in rows
        }


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
    text = models.TextField()
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.FACT)
    entities = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    topics = ArrayField(models.CharField(max_length=200), default=list, blank=True)
    importance = models.FloatField(default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    # In the HNSW index (its KB has outgrown exact search); otherwise found by an exact scan of its KB.
    in_vector_index = models.BooleanField(default=False, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=FTS_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    content_hash = models.CharField(max_length=64, editable=False)

    valid_from = models.DateTimeField(null=True, blank=True, help_text="When the fact became true, if known.")
    valid_to = models.DateTimeField(null=True, blank=True, help_text="Set when the fact was retired.")
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    retired_reason = models.CharField(max_length=200, blank=True)

    source = models.CharField(max_length=300, blank=True, help_text="chat, api, inbox file name, document…")
    source_messages = models.ManyToManyField(Message, blank=True, related_name="memories")
    source_chunk = models.ForeignKey(
        "knowledge.Chunk", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories"
    )
    source_file = models.CharField(max_length=500, blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.MANUAL)
    job_run = models.ForeignKey("JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="memories")

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
            GinIndex(fields=["search_vector"], name="memory_fts_gin"),
            GinIndex(fields=["entities"], name="memory_entities_gin"),
            # Only large KBs' memories: an insert into the graph costs more CPU than the rest of storing a
            # memory, and a small KB is searched exactly, and faster, through memory_kb_exact.
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(in_vector_index=True),
            ),
            models.Index(fields=["kb"], name="memory_kb_exact", condition=Q(in_vector_index=False)),
            models.Index(fields=["kb", "content_hash"], name="memory_kb_hash"),
            models.Index(fields=["kb", "-created_at"], name="memory_kb_recent"),
            models.Index(
                fields=["kb", "created_at"],
                name="memory_kb_unconsolidated",
                condition=Q(consolidated=False, valid_to__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    def save(self, *args, **kwargs):
        self.content_hash = text_hash(self.text)
        super().save(*args, **kwargs)

    @property
    def is_live(self) -> bool:
        return self.valid_to is None

    def sources(self) -> list[dict]:
        """Provenance: the messages, document chunk or file it came from (uses prefetched relations)."""
        chunk = self.source_chunk if self.source_chunk_id else None
        return source_entries(
            [(m.session.external_id, m.external_id) for m in self.source_messages.all()],
            (chunk.document.slug, chunk.ordinal) if chunk else None,
            self.source_file,
        )

    def retire(self, *, reason: str, superseded_by: Memory | None = None) -> bool:
        """Retire this fact (never delete). Returns False if it was already retired.

        Locks the row: two concurrent supersessions of the same fact must not
        both win, or the fact would end up with two replacements.
        """
        with transaction.atomic():
            row = Memory.objects.select_for_update().get(pk=self.pk)
            if row.valid_to is not None:
                return False
            row.valid_to = timezone.now()
            row.retired_reason = reason
            row.superseded_by = superseded_by
            row.save(update_fields=["valid_to", "retired_reason", "superseded_by", "updated_at"])
        self.valid_to, self.retired_reason, self.superseded_by = row.valid_to, row.retired_reason, row.superseded_by
        return True


class Consolidation(models.Model):
    """An insight drawn from several memories, linking back to them."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="insights")
    text = models.TextField()
    memories = models.ManyToManyField(Memory, related_name="insights", blank=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=FTS_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.LLM)
    job_run = models.ForeignKey("JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="insights")
    valid_to = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "insight"
        indexes = [
            GinIndex(fields=["search_vector"], name="insight_fts_gin"),
            HnswIndex(
                name="insight_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]


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


class Entity(models.Model):
    """A person, tool, place or project named by memories of a KB (graph node)."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="entities")
    name = models.CharField(max_length=200, help_text="Normalised (lowercase) name.")
    display_name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "entities"
        constraints = [models.UniqueConstraint(fields=["kb", "name"], name="unique_entity_per_kb")]

    def __str__(self) -> str:
        return self.display_name or self.name


class Edge(models.Model):
    """A relation between two entities asserted by a memory (graph edge)."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="edges")
    src = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="out_edges")
    relation = models.CharField(max_length=100)
    dst = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="in_edges")
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="edges")
    valid_to = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kb", "src", "relation", "dst"],
                condition=Q(valid_to__isnull=True),
                name="unique_live_edge",
            )
        ]

    def __str__(self) -> str:
        return f"{self.src} -{self.relation}-> {self.dst}"


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
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.TEXT)
    source = models.CharField(max_length=300, blank=True)
    file_name = models.CharField(max_length=255, blank=True)
    # An uploaded document's facts are extracted chunk by chunk, each fact citing its chunk.
    document = models.ForeignKey(
        "knowledge.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="ingest_items"
    )
    text = models.TextField(blank=True)
    # Segments already applied: a retry resumes after them instead of re-extracting.
    progress = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "ingest item"
        indexes = [models.Index(fields=["kb", "status"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.source or self.file_name or self.pk}"


class JobRun(models.Model):
    """One background job: ingest, consolidation, sync, upload, archive."""

    class Kind(models.TextChoices):
        INGEST_MESSAGES = "ingest_messages", "Ingest messages"
        INGEST_TEXT = "ingest_text", "Ingest text"
        INGEST_FILE = "ingest_file", "Ingest inbox file"
        CONSOLIDATE = "consolidate"
        SYNC = "sync", "Knowledge sync"
        DOCUMENT = "document", "Index document"
        ARCHIVE = "archive", "Archive conversation"
        EMBED = "embed", "Embed"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        SKIPPED = "skipped"

    kb = models.ForeignKey(KnowledgeBase, null=True, blank=True, on_delete=models.CASCADE, related_name="job_runs")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    target = models.CharField(max_length=500, blank=True, help_text="Session, file or document the job works on.")
    ingest_item = models.ForeignKey(
        IngestItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="job_runs"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    items_read = models.PositiveIntegerField(default=0)
    facts_added = models.PositiveIntegerField(default=0)
    facts_superseded = models.PositiveIntegerField(default=0)
    facts_skipped = models.PositiveIntegerField(default=0)
    facts_quarantined = models.PositiveIntegerField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "job run"
        indexes = [models.Index(fields=["kb", "status"]), models.Index(fields=["status", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    def start(self) -> None:
        self.status = self.Status.RUNNING
        self.started_at = timezone.now()
        self.attempts += 1
        self.save(update_fields=["status", "started_at", "attempts"])

    def finish(self, *, status: str, error: str = "") -> None:
        self.status = status
        self.error = error
        self.finished_at = timezone.now()
        self.save()

    @property
    def duration_ms(self) -> int | None:
        if self.started_at and self.finished_at:
            return int((self.finished_at - self.started_at).total_seconds() * 1000)
        return None
