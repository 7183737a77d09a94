"""The base models every domain uses: bots, their API keys and knowledge bases, and the run record of every job.

They were born in the ``memories`` app and keep its table names (``memories_bot`` …), so that a database of
an earlier release keeps its rows.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

NAME_RE = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"
name_validator = RegexValidator(
    NAME_RE,
    "Use 1-64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.",
)


USER_ID_RE = r"^[A-Za-z0-9_.:@-]{1,200}$"
user_id_validator = RegexValidator(
    USER_ID_RE, "A user_id is 1-200 characters of letters, digits and _ . : @ - (the bot's own id for the user)."
)


class Mode(models.TextChoices):
    """What produced a memory, an insight or a job's result."""

    LLM = "llm", "LLM"
    HEURISTIC = "heuristic", "Heuristic (offline)"
    MANUAL = "manual", "Manual"


class Bot(models.Model):
    """A client application. Owns API keys and knowledge bases."""

    name = models.CharField(max_length=64, unique=True, validators=[name_validator])
    description = models.TextField(blank=True)
    is_active = models.BooleanField(default=True)
    operators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="operated_bots",
        help_text="Staff users who operate this bot: in the admin they see and curate its data, and no other bot's "
        "(give them the Operators group for the permissions). Superusers see every bot.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memories_bot"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def issue_key(
        self, *, name: str = "default", end_user: EndUser | None = None, read_only: bool = False
    ) -> tuple[ApiKey, str]:
        """Create a new API key (of the whole bot, or of one of its end users; reading only, or not); returns the
        row and the plain key, which is never stored."""
        plain = f"kb_{secrets.token_urlsafe(32)}"
        key = ApiKey.objects.create(
            bot=self,
            end_user=end_user,
            read_only=read_only,
            name=name,
            prefix=plain[:10],
            hashed_key=ApiKey.hash(plain),
        )
        return key, plain


class ApiKeyQuerySet(models.QuerySet):
    def active(self):
        return self.filter(revoked_at__isnull=True, bot__is_active=True)


class ApiKey(models.Model):
    """A bot's API key, stored as a SHA-256 hash (keys are 256-bit random, so no slow hash is needed).

    A key of one end user (``end_user``) acts as that user and only as them, on the few things an end user's own
    client needs (recall, context, ask, tools, posting turns and text, their own export and erasure); it is erased
    with them. The bot's keys act for any of its users. A read-only key (of the bot or of a user) writes nothing.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="api_keys")
    end_user = models.ForeignKey(
        "EndUser",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_keys",
        help_text="The end user this key acts as, and only as; none: a key of the whole bot.",
    )
    read_only = models.BooleanField(
        default=False,
        help_text="Reads only: lists, recall, context, ask, searches and the reading tools; nothing written.",
    )
    name = models.CharField(max_length=100, default="default")
    prefix = models.CharField(max_length=16, help_text="First characters of the key, to recognise it.")
    hashed_key = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        db_table = "memories_apikey"
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
    records_chat = models.BooleanField(
        "records chat",
        default=False,
        help_text="The bot's chat proxy (/openai/v1/) records the turns of a request that names no KB here; one KB "
        "of a bot at most.",
    )
    # Live memories when the word statistics (memories' TermStat) were last counted; 0 = none kept.
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
        db_table = "memories_knowledgebase"
        ordering = ["bot__name", "name"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "name"], name="unique_kb_name_per_bot"),
            models.UniqueConstraint(fields=["bot"], condition=Q(records_chat=True), name="one_chat_recording_kb"),
        ]
        verbose_name = "knowledge base"

    def __str__(self) -> str:
        return f"{self.bot.name}/{self.name}"

    def save(self, *args, **kwargs):
        with transaction.atomic():
            if self.records_chat:  # the bot's chat is recorded here from now on, no longer in another KB
                KnowledgeBase.objects.filter(bot_id=self.bot_id, records_chat=True).exclude(pk=self.pk).update(
                    records_chat=False
                )
            super().save(*args, **kwargs)
        self.ensure_folders()

    def ensure_folders(self) -> None:
        for path in (self.inbox_dir, self.processed_dir, self.failed_dir, self.knowledge_dir):
            path.mkdir(parents=True, exist_ok=True)

    @property
    def folder(self) -> Path:
        """``<data dir>/<bot>/<kb>/``: both names are validated slugs, so no path tricks."""
        return Path(settings.KBSITE_DATA_DIR) / self.bot.name / self.name

    def folder_trash(self) -> Path | None:
        """Move the KB's folder (its knowledge files, inbox, processed and failed files) to
        ``<data dir>/.trash/<bot>/<kb>-<time>/``, which no sync or scan reads: a new KB of the same name starts
        empty, and an operator can still get the files back. Returns where it went (None if there was none)."""
        if not self.folder.is_dir():
            return None
        target = (
            Path(settings.KBSITE_DATA_DIR) / ".trash" / self.bot.name / f"{self.name}-{timezone.now():%Y%m%dT%H%M%S%f}"
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        self.folder.rename(target)
        return target

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


class EndUserQuerySet(models.QuerySet):
    def named(self, bot: Bot, user_id: str | None) -> EndUser | None:
        """The bot's end user ``user_id`` (None for none given, or one that holds nothing yet)."""
        if not user_id:
            return None
        return next(iter(self.filter(bot=bot, external_id=user_id).order_by()[:1]), None)  # unique: no sort

    def seen(self, bot: Bot, user_id: str | None) -> EndUser | None:
        """The bot's end user ``user_id``, created when first named, with ``last_seen_at`` moved to now."""
        if not user_id:
            return None
        user, created = self.get_or_create(bot=bot, external_id=user_id, defaults={"last_seen_at": timezone.now()})
        if not created:
            self.touch(user)
        return user

    def touch(self, user: EndUser) -> None:
        """Move the user's ``last_seen_at`` to now (written at most once a minute)."""
        now = timezone.now()
        if now - user.last_seen_at > timedelta(minutes=1):
            self.filter(pk=user.pk).update(last_seen_at=now)
            user.last_seen_at = now


class EndUser(models.Model):
    """One of a bot's end users, named by the bot's own id for them (``user_id`` in the API).

    Sessions, memories, insights, documents and ingest items of an end user are theirs alone: recall with their
    ``user_id`` sees them plus the KB's shared rows (those without an end user), recall without a user sees only
    the shared ones, and nothing of one user ever reaches another.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="end_users")
    external_id = models.CharField("user id", max_length=200, validators=[user_id_validator])
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(default=timezone.now)

    objects = EndUserQuerySet.as_manager()

    class Meta:
        ordering = ["bot__name", "external_id"]
        constraints = [models.UniqueConstraint(fields=["bot", "external_id"], name="unique_end_user_per_bot")]
        verbose_name = "end user"

    def __str__(self) -> str:
        return self.external_id


class Erasure(models.Model):
    """The audit record of an end user's erasure: who, when and how many rows, and no content.

    The user's id is kept only as its SHA-256, so that "was user X erased?" can be answered without keeping X.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="erasures")
    user_id_sha256 = models.CharField(max_length=64, db_index=True)
    erased_by = models.CharField(max_length=200, help_text="The API key or the operator that asked for it.")
    counts = models.JSONField(default=dict, help_text="Rows and files removed, by kind.")
    erased_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-erased_at"]

    def __str__(self) -> str:
        return f"{self.bot.name}: {self.user_id_sha256[:12]} at {self.erased_at:%Y-%m-%d %H:%M}"

    @staticmethod
    def digest(user_id: str) -> str:
        return hashlib.sha256(user_id.encode()).hexdigest()


class JobRun(models.Model):
    """One background job and what it did: queued, run and retried through :mod:`kbsite.jobs`.

    ``object`` is what the job works on (an ingest item, a document, a session), when it is one row;
    ``target`` says it in words for the admin list (a session's id, a file's path, "scheduled").
    """

    class Kind(models.TextChoices):
        INGEST_MESSAGES = "ingest_messages", "Ingest messages"
        INGEST_TEXT = "ingest_text", "Ingest text"
        INGEST_FILE = "ingest_file", "Ingest inbox file"
        CONSOLIDATE = "consolidate"
        SYNC = "sync", "Knowledge sync"
        DOCUMENT = "document", "Index document"
        ARCHIVE = "archive", "Archive conversation"
        RECORD_CHAT = "record_chat", "Record chat turns"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        RETRIED = "retried", "Failed, then retried"  # its input was taken up by a later run (see jobs.job_retry)
        SKIPPED = "skipped"

    kb = models.ForeignKey(KnowledgeBase, null=True, blank=True, on_delete=models.CASCADE, related_name="job_runs")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    target = models.CharField(max_length=500, blank=True, help_text="Session, file or document the job works on.")
    object_type = models.ForeignKey(ContentType, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    object_id = models.PositiveBigIntegerField(null=True, blank=True)
    object = GenericForeignKey("object_type", "object_id")
    mode = models.CharField(max_length=16, choices=Mode.choices, blank=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Times this run was started (a lost one restarts).")
    tries = models.PositiveIntegerField(default=1, help_text="Which try of its input this run is.")
    retry_at = models.DateTimeField(
        null=True, blank=True, help_text="When this failed run's input is queued again by itself (backing off)."
    )
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid of the process that ran it last.")
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
        db_table = "memories_jobrun"
        ordering = ["-created_at", "-id"]
        verbose_name = "job run"
        indexes = [
            models.Index(fields=["kb", "status"]),
            models.Index(fields=["status", "-created_at"]),
            models.Index(fields=["object_type", "object_id"], name="jobrun_object"),
            models.Index(fields=["retry_at"], name="jobrun_retry_due", condition=models.Q(retry_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    def start(self) -> None:
        self.status = self.Status.RUNNING
        self.started_at = timezone.now()
        self.attempts += 1
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self.save(update_fields=["status", "started_at", "attempts", "worker"])

    def finish(self, *, status: str, error: str = "") -> None:
        self.status = status
        self.error = error
        self.finished_at = timezone.now()
        self.save()
        if status == self.Status.SUCCEEDED:
            # Earlier failed runs of the same input were taken up by this one: they are history, not present failures.
            self.failed_before().update(status=self.Status.RETRIED, retry_at=None)

    def fail(self, error: str, *, retryable: bool) -> None:
        """Finish as failed with ``error``. When the failure may pass (a provider down, a time limit, a lost worker)
        and tries of its input remain, the input is queued again by itself at ``retry_at``, backing off."""
        self.retry_at = self.next_retry_at() if retryable else None
        if retryable and self.retry_at is None:
            error = f"{error} (gave up after {self.tries} tries; retry it from the admin)"
        self.finish(status=self.Status.FAILED, error=error)

    def next_retry_at(self):
        """When a retryable failure of this run is tried again (None once JOB_RETRIES tries are spent)."""
        if self.tries >= settings.JOB_RETRIES:
            return None
        delay = min(settings.JOB_RETRY_SECONDS * 2 ** (self.tries - 1), settings.JOB_RETRY_MAX_SECONDS)
        return timezone.now() + timedelta(seconds=delay)

    def failed_before(self):
        """Failed runs of the same kind, KB and object created before this one."""
        return JobRun.objects.filter(
            kind=self.kind,
            kb_id=self.kb_id,
            object_type_id=self.object_type_id,
            object_id=self.object_id,
            status=self.Status.FAILED,
            created_at__lt=self.created_at,
        )

    @property
    def duration_ms(self) -> int | None:
        if self.started_at and self.finished_at:
            return int((self.finished_at - self.started_at).total_seconds() * 1000)
        return None


class DailyStat(models.Model):
    """What a knowledge base received, served and spent on one day (UTC), added to as it happens
    (:func:`kbsite.stats.stats_add`), so that the dashboard draws 30 days from 30 rows a KB instead of counting
    turns, recalls and jobs."""

    day = models.DateField()
    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="daily_stats")
    turns = models.PositiveBigIntegerField(default=0, help_text="Chat turns received.")
    texts = models.PositiveBigIntegerField(default=0, help_text="Texts and inbox files received.")
    documents = models.PositiveBigIntegerField(default=0, help_text="Documents written or uploaded.")
    recalls = models.PositiveBigIntegerField(default=0, help_text="Recalls served (search, context, ask, tools).")
    llm_calls = models.PositiveBigIntegerField(default=0, help_text="LLM calls made by its jobs and answers.")
    tokens_in = models.PositiveBigIntegerField(default=0)
    tokens_out = models.PositiveBigIntegerField(default=0)
    facts_added = models.PositiveBigIntegerField(default=0)
    facts_superseded = models.PositiveBigIntegerField(default=0)
    facts_quarantined = models.PositiveBigIntegerField(default=0)
    jobs_succeeded = models.PositiveBigIntegerField(default=0)
    jobs_failed = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-day", "kb"]
        constraints = [models.UniqueConstraint(fields=["day", "kb"], name="one_daily_stat_per_kb")]
        verbose_name = "daily statistics"
        verbose_name_plural = "daily statistics"

    def __str__(self) -> str:
        return f"{self.kb} on {self.day}"
