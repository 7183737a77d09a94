"""The memory domain's models: sessions, turns, memories, insights, the entity graph, ingest items.

The memory domain: conversations (sessions and turns), the memories drawn from them, insights, the entity graph, and
the inputs waiting to be ingested.

Bi-temporal. Valid time: when a fact was true in the world (``valid_from`` / ``valid_to``). System time: when
kbsite learned it (``created_at``) and when it retired it (``retired_at``). A memory is *live* while ``retired_at``
is null. The system never hard-deletes a memory: a contradicted fact is retired (``superseded_by`` pointing at its
replacement, its valid time ending where the replacement's begins), so its history stays visible.
"""

from __future__ import annotations

import hashlib
import re

from django.conf import settings
from django.contrib.contenttypes.fields import GenericRelation
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from kbsite.ai.fulltext import FTS_CONFIG
from kbsite.models import Bot, EndUser, JobRun, KnowledgeBase, Mode


def text_hash(text: str) -> str:
    """Hash of the normalised text: case, whitespace and trailing dots ignored (verbatim dedup)."""
    normalised = re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .!")
    return hashlib.sha256(normalised.encode()).hexdigest()


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
    ids are often its chat's own)."""

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
    metadata = models.JSONField(default=dict, blank=True, help_text="The client's own labels, carried to its facts.")
    created_at = models.DateTimeField(default=timezone.now, help_text="When the turn was said (client's clock).")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["session", "external_id"], name="unique_message_per_session")]
        indexes = [models.Index(fields=["session", "id"])]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.content[:60]}"


class LifeSpanQuerySet(models.QuerySet):
    """Rows that are live until retired (``retired_at`` set): memories and insights."""

    def live(self):
        """Not retired: what is currently believed."""
        return self.filter(retired_at__isnull=True)

    def retired(self):
        return self.filter(retired_at__isnull=False)

    def known_at(self, moment):
        """What the system held as live at ``moment`` (system time)."""
        return self.filter(created_at__lte=moment).filter(Q(retired_at__isnull=True) | Q(retired_at__gt=moment))

    def owned_by(self, end_user_id: int | None):
        """Rows of exactly this owner: the end user's own, or (None) the shared ones."""
        return self.filter(end_user_id=end_user_id) if end_user_id else self.filter(end_user__isnull=True)

    def visible_to(self, end_user_id: int | None):
        """What a request for this end user may see: their own rows and the shared ones; with no user, the
        shared ones only. Never another user's."""
        return self.filter(visible_to(end_user_id))


def visible_to(end_user_id: int | None, prefix: str = "") -> Q:
    """The condition of :meth:`LifeSpanQuerySet.visible_to`, for any model with an ``end_user`` (``prefix``:
    the path to it, e.g. ``"session__"``)."""
    shared = Q(**{f"{prefix}end_user__isnull": True})
    return shared | Q(**{f"{prefix}end_user_id": end_user_id}) if end_user_id else shared


class MemoryQuerySet(LifeSpanQuerySet):
    def valid_at(self, moment, known_at=None):
        """The facts true in the world at ``moment`` (valid time), as the system knew them at ``known_at`` (system
        time; default now): those it held then, and those a newer fact had replaced by then, whose valid time
        ended where the newer one's began. A fact retired for another reason (an edit, forgotten, wrong) was
        never true as worded; one with no ``valid_from`` is taken as true from the start."""
        known = known_at or timezone.now()
        held = Q(retired_at__isnull=True) | Q(retired_at__gt=known)
        replaced = Q(retired_at__lte=known, valid_to__isnull=False)
        began = Q(valid_from__isnull=True) | Q(valid_from__lte=moment)
        # A valid time that ended after ``known`` was not known to have ended then.
        not_ended = Q(valid_to__isnull=True) | Q(valid_to__gt=moment) | Q(retired_at__gt=known)
        return self.filter(Q(created_at__lte=known) & (held | replaced) & began & not_ended)

    def injectable(self):
        """Live and not quarantined: safe to put into a bot's prompt."""
        return self.live().filter(quarantined=False)

    def for_bot(self, bot: Bot):
        return self.filter(kb__bot=bot)

    def sources_by_id(self) -> dict[int, list[dict]]:
        """Each memory's provenance (as ``Memory.sources()``) in one flat query, with no model instances: for the
        few results of a recall, where building instances cost more than the query."""
        ids = list(self.values_list("id", flat=True))
        return sources_of(ids)


SOURCES_SQL = """
    SELECT m.id, m.source_file, doc.slug, chunk.ordinal, src.sessions, src.turns
    FROM memories_memory m
    LEFT JOIN knowledge_chunk chunk ON chunk.id = m.source_chunk_id
    LEFT JOIN knowledge_document doc ON doc.id = chunk.document_id
    LEFT JOIN LATERAL (
        SELECT array_agg(s.external_id ORDER BY l.message_id) AS sessions,
               array_agg(msg.external_id ORDER BY l.message_id) AS turns
        FROM memories_memory_source_messages l
        JOIN memories_message msg ON msg.id = l.message_id
        JOIN memories_session s ON s.id = msg.session_id
        WHERE l.memory_id = m.id
    ) src ON true
    WHERE m.id = ANY(%s)"""


def sources_of(ids: list[int]) -> dict[int, list[dict]]:
    """The provenance of the memories ``ids`` (those that exist), by id, as ``Memory.sources()`` gives it."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(SOURCES_SQL, [ids])
        rows = cursor.fetchall()
    return {
        pk: source_entries(
            list(zip(sessions or [], turns or [], strict=True)),
            (slug, ordinal) if slug is not None else None,
            source_file,
        )
        for pk, source_file, slug, ordinal, sessions, turns in rows
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
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="memories",
        help_text="Whose fact it is; none: shared knowledge of the KB.",
    )
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
        """Retire this fact (never delete). Returns False if it was already retired.

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
            retirement_follow([row.pk], reason=reason, at=row.retired_at)
        self.retired_at, self.retired_reason, self.superseded_by = row.retired_at, row.retired_reason, row.superseded_by
        return True


def retirement_follow(memory_ids: list[int], *, reason: str, at) -> int:
    """What follows retired memories: the graph edges they asserted are retired with them, and so are the insights
    that drew on them (an insight quoting a retired fact would put it back into a bot's prompt). The other memories
    of those insights are consolidated again, so that what still holds is linked anew. Returns the insights
    retired."""
    if not memory_ids:
        return 0
    Edge.objects.filter(memory_id__in=memory_ids, retired_at__isnull=True).update(retired_at=at)
    insight_ids = list(
        Insight.objects.live().filter(memories__in=memory_ids).values_list("id", flat=True).distinct().order_by()
    )
    if not insight_ids:
        return 0
    Insight.objects.filter(pk__in=insight_ids).update(
        retired_at=at, retired_reason=f"a memory it drew on was retired ({reason})"[:200]
    )
    Memory.objects.live().filter(insights__in=insight_ids).exclude(pk__in=memory_ids).update(consolidated=False)
    return len(insight_ids)


class Insight(models.Model):
    """An insight drawn from several memories, linking back to them."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="insights")
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="insights",
        help_text="Whose memories it links; none: shared ones only.",
    )
    text = models.TextField()
    memories = models.ManyToManyField(Memory, related_name="insights", blank=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True, editable=False)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config=FTS_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.LLM)
    job_run = models.ForeignKey(
        "kbsite.JobRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="insights"
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = LifeSpanQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "insight"
        indexes = [
            GinIndex(fields=["search_vector"], name="insight_fts_gin"),
            # Shared insights only: an end user's are compared exactly (index on end_user).
            HnswIndex(
                name="insight_shared_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=Q(end_user__isnull=True),
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
    end_user = models.ForeignKey(
        EndUser,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="entities",
        help_text="Whose graph it is in; none: the shared graph.",
    )
    name = models.CharField(max_length=200, help_text="Normalised (lowercase) name.")
    display_name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(
                fields=["kb", "end_user", "name"], name="unique_entity_per_owner", nulls_distinct=False
            )
        ]

    def __str__(self) -> str:
        return self.display_name or self.name


class Edge(models.Model):
    """A relation between two entities asserted by a memory (graph edge)."""

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="edges")
    src = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="out_edges")
    relation = models.CharField(max_length=100)
    dst = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="in_edges")
    memory = models.ForeignKey(Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="edges")
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kb", "src", "relation", "dst"],
                condition=Q(retired_at__isnull=True),
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
