"""JobRun: the run record of every background job (what to do, for which KB and object; then what it did)."""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.utils import timezone

from kbsite.models.knowledge_bases import KnowledgeBase
from kbsite.models.modes import Mode


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
        # Stopped with its input left where it was until the bot's LLM budget allows (see jobs.jobs_resume_waiting).
        WAITING = "waiting", "Waiting for the LLM budget"

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
    llm_calls = models.PositiveIntegerField(default=0, help_text="LLM calls of its last run, failed ones included.")
    embeddings = models.PositiveIntegerField(default=0, help_text="Texts its last run embedded.")
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

    # Keys of ``detail`` another process may write on a queued or running run: an operator forcing it offline
    # (kbsite.jobs.job_force_offline) after a worker loaded it. The run's own saves keep them (see save_work).
    SHARED_DETAIL = ("llm_forced", "forced_by", "forced_for")

    # What a run's work writes on its row as it goes: counts, tokens, mode, detail (see save_work).
    WORK_FIELDS = (
        "mode",
        "items_read",
        "facts_added",
        "facts_superseded",
        "facts_skipped",
        "facts_quarantined",
        "tokens_in",
        "tokens_out",
        "detail",
    )

    def save_work(self, *fields: str) -> None:
        """Save what the run's work wrote (WORK_FIELDS) and ``fields``, never the rest of the row: another process
        may have written it since the worker loaded the run (the tries of a retry, an operator's forcing). The keys
        of ``detail`` others write (SHARED_DETAIL) are read back from the row and kept. The row is locked so that a
        forcing, which writes them under the same lock, comes wholly before or after."""
        with transaction.atomic():
            row = JobRun.objects.select_for_update().filter(pk=self.pk).values_list("detail", flat=True).first()
            if row is None:
                return  # deleted meanwhile (with its KB): nothing is left to save
            shared = {key: value for key, value in row.items() if key in self.SHARED_DETAIL}
            self.detail = {**self.detail, **shared}
            self.save(update_fields=[*self.WORK_FIELDS, *fields])

    def finish(self, *, status: str, error: str = "") -> None:
        """Finish the run as ``status`` (with ``error``). Its bot's webhooks are told of a failure by
        :func:`kbsite.jobs.job_run`, which ran it."""
        self.status = status
        self.error = error
        self.finished_at = timezone.now()
        self.save_work("status", "error", "finished_at", "retry_at")
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
