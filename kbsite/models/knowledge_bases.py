"""KnowledgeBase: a bot's named memory and document store, with its folders on disk."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone

from kbsite import languages
from kbsite.languages import detection
from kbsite.models.bots import Bot
from kbsite.models.names import name_validator

# Questions told in one language other than English before a KB notes it (KnowledgeBase.asked_note).
ASKED_NOTED = 3


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
    language = models.CharField(
        max_length=8,
        default=languages.AUTO,
        choices=languages.CHOICES,
        help_text="The language of what the KB holds: auto (each text's own, told as it comes in) or a code (es, "
        "de…) that every text is taken to be in.",
    )
    languages = ArrayField(
        models.CharField(max_length=8),
        default=list,
        blank=True,
        editable=False,
        help_text="The languages its texts are in, as told; a question is searched in full text under each.",
    )
    asked_languages = ArrayField(
        models.CharField(max_length=8),
        default=list,
        blank=True,
        editable=False,
        help_text="The languages other than English its questions have come in, as told (three questions in each): "
        "its memories get a second, multilingual vector, so that a question in one finds facts said in another.",
    )
    # How many questions have been told in each language other than English, until it is noted in asked_languages.
    asked_counts = models.JSONField(default=dict, blank=True, editable=False)
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

    def clean(self) -> None:
        # Its folder is under its bot's id: a KB given to another bot would lose its files (and the next sync would
        # mark its documents deleted), and its sessions would belong to another bot's end users.
        if self.pk and KnowledgeBase.objects.filter(pk=self.pk).exclude(bot_id=self.bot_id).exists():
            raise ValidationError({"bot": "A knowledge base stays with the bot it was made for."})

    def languages_of(self, texts: list[str]) -> list[str]:
        """The language of each of ``texts`` written to this KB: its own language if it has one set, else each
        text's as told (one too short to tell taking the one's before it; none told: the first language the KB held,
        else the default)."""
        if self.language != languages.AUTO:
            return [self.language] * len(texts)
        return detection.detect_all(texts, fallback=self.languages[0] if self.languages else languages.DEFAULT)

    def languages_note(self, codes: list[str]) -> None:
        """Remember that the KB now holds texts in ``codes`` (its questions are searched under each)."""
        self._codes_add("languages", codes)

    def asked_note(self, code: str) -> bool:
        """Count a question told in the language ``code``, when it is not English; at the ASKED_NOTED-th, note the
        language: its memories then get a second, multilingual vector (memories.multilingual). A few questions, not
        one: a short English line with a foreign name in it is now and then told as another language ("Dinner at
        La Paloma": Norwegian), and a note is for good. Returns whether the language was noted by this call (not
        before it, nor by another process)."""
        if code in languages.ENGLISH or code in self.asked_languages:
            return False
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE memories_knowledgebase SET asked_counts = jsonb_set(asked_counts, ARRAY[%s], "
                "to_jsonb(coalesce((asked_counts ->> %s)::int, 0) + 1)) "
                "WHERE id = %s AND NOT asked_languages @> ARRAY[%s]::varchar[] RETURNING asked_counts",
                [code, code, self.pk, code],
            )
            row = cursor.fetchone()
        if not row:
            return False  # noted already (this copy is older than the row)
        self.asked_counts = row[0] if isinstance(row[0], dict) else json.loads(row[0])
        if self.asked_counts.get(code, 0) < ASKED_NOTED:
            return False
        return self._codes_add("asked_languages", [code])

    @property
    def across_languages(self) -> bool:
        """Whether the KB has been asked in a language other than English (the only kind asked_note notes): every
        one of its memories, English ones too, is then given a multilingual vector (an English fact is found by a
        Spanish question)."""
        return bool(self.asked_languages)

    def _codes_add(self, field: str, codes: list[str]) -> bool:
        """Add ``codes`` to the array ``field`` (one statement: of two processes adding the same code at once, one
        adds it); returns whether this call added any (this copy may be older than the row: another process's
        addition, or a replica's copy, adds nothing)."""
        assert field in ("languages", "asked_languages")
        new = sorted({code for code in codes if code} - set(getattr(self, field)))
        if not new:
            return False
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE memories_knowledgebase SET {field} = {field} || ARRAY("
                f"SELECT unnest(%s::varchar[]) EXCEPT SELECT unnest({field})) "
                f"WHERE id = %s AND NOT {field} @> %s::varchar[] RETURNING {field}",
                [new, self.pk, new],
            )
            row = cursor.fetchone()
        if not row:
            return False
        setattr(self, field, row[0])
        return True

    def ensure_folders(self) -> None:
        for path in (self.inbox_dir, self.processed_dir, self.failed_dir, self.knowledge_dir):
            path.mkdir(parents=True, exist_ok=True)

    @property
    def folder(self) -> Path:
        """``<data dir>/bot_<bot id>/kb_<kb id>/``: keyed by ids, which never change and are never reused, never by
        names, which an operator may change (a bot renamed to another's old name must not take over its files).
        A KB never moves to another bot (its bot is read-only once made), so the folder never moves either."""
        if self.pk is None:
            raise ValueError("a knowledge base has no folder before it is saved")
        return Path(settings.KBSITE_DATA_DIR) / f"bot_{self.bot_id}" / f"kb_{self.pk}"

    def trash_place(self) -> Path:
        """Where the folder goes when the KB is deleted:
        ``<data dir>/.trash/bot_<bot id>/kb_<kb id>-<kb name>-<time>/``, which no sync or scan reads (with the name
        it had then, for whoever looks for the files later)."""
        return (
            Path(settings.KBSITE_DATA_DIR)
            / ".trash"
            / f"bot_{self.bot_id}"
            / f"kb_{self.pk}-{self.name}-{timezone.now():%Y%m%dT%H%M%S%f}"
        )

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


def folder_trash(folder: Path, place: Path) -> Path | None:
    """Move a deleted KB's folder (its knowledge files, uploads, inbox, processed and failed files) to ``place`` in
    the trash, so that nothing reads them any more and an operator can still get them back. Returns where it went
    (None if there was no folder)."""
    if not folder.is_dir():
        return None
    place.parent.mkdir(parents=True, exist_ok=True)
    folder.rename(place)
    return place
