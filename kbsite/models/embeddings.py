"""EmbeddingState: which embedding model the stored vectors come from, and how far re-embedding them with the
configured one has got (one row)."""

from __future__ import annotations

import time

from django.db import models
from django.utils import timezone

# How long a process trusts what it read of the state (recall reads it on every vector search).
STATE_SECONDS = 5.0
_read: dict = {}


class EmbeddingState(models.Model):
    """The model the vectors of memories, insights, turns and chunks were made with (``model``); while the
    configured model differs, the one they are being re-embedded with (``target``) and, per table, the rows left:
    those with ids in ``(cursor, last]``, ``last`` being the table's highest id when re-embedding began (rows
    written since are embedded by the configured model already)."""

    model = models.CharField(max_length=200, help_text="The model the finished vectors come from.")
    target = models.CharField(max_length=200, blank=True, help_text="The model being re-embedded to; empty: none.")
    progress = models.JSONField(
        default=dict, blank=True, help_text='Per table: {"cursor": id, "last": id, "done": rows, "total": rows}.'
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "embedding state"

    def __str__(self) -> str:
        return f"{self.model} → {self.target}" if self.target else self.model

    @classmethod
    def get(cls) -> EmbeddingState | None:
        return cls.objects.filter(pk=1).first()

    @classmethod
    def cached(cls) -> EmbeddingState | None:
        """The state as read at most STATE_SECONDS ago by this process."""
        at, state = _read.get("state", (0.0, None))
        if time.monotonic() - at > STATE_SECONDS:
            state = cls.get()
            _read["state"] = (time.monotonic(), state)
        return state

    def stale(self, table: str) -> tuple[int, int] | None:
        """The id range ``(cursor, last]`` of ``table``'s rows whose vectors are still the old model's, if any."""
        if not self.target:
            return None
        left = self.progress.get(table)
        if not left or left["cursor"] >= left["last"]:
            return None
        return left["cursor"], left["last"]

    @property
    def share_done(self) -> float:
        done = sum(t.get("done", 0) for t in self.progress.values())
        total = sum(t.get("total", 0) for t in self.progress.values())
        return done / total if total else 1.0

    def begin(self, target: str, tables: dict[str, tuple[int, int]]) -> None:
        """Start re-embedding with ``target``: ``tables`` maps each table to (its highest id, its rows to do)."""
        self.target, self.started_at, self.finished_at = target, timezone.now(), None
        self.progress = {
            name: {"cursor": 0, "last": last, "done": 0, "total": total} for name, (last, total) in tables.items()
        }
        self.save()
        forget()

    def finish(self) -> None:
        self.model, self.target, self.finished_at = self.target, "", timezone.now()
        self.save()
        forget()


def forget() -> None:
    """Read the state again at its next use in this process."""
    _read.clear()


def stale_clause(table: str, alias: str | None = None) -> tuple[str, list]:
    """SQL keeping out the rows of ``table`` whose vectors are still an old model's (while re-embedding), and its
    params: ``TRUE`` when there are none."""
    state = EmbeddingState.cached()
    stale = state.stale(table) if state else None
    if stale is None:
        return "TRUE", []
    column = f"{alias or table}.id"
    return f"NOT ({column} > %s AND {column} <= %s)", list(stale)
