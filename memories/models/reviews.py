"""ReviewItem: a supersession, or an open conflict between two live facts, for an operator to accept, revert or keep
both."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from kbsite.models import EndUser, KnowledgeBase
from memories.models.memory import Memory


class ReviewItem(models.Model):
    """Two facts of one scope (an end user's, or the KB's shared ones) about one thing. A **supersession**: the
    newer retired the older (the LLM named it, a restatement, an edit); accepting keeps it so, reverting restores
    the older and retires the newer, keeping both makes both live. An **open conflict**: both are live and state
    different values of a one-valued attribute (where one lives, works, a diet…) that nothing settled; the newer is
    presented as current until an operator decides."""

    class Kind(models.TextChoices):
        SUPERSESSION = "supersession", "supersession"
        CONFLICT = "conflict", "open conflict"

    class Status(models.TextChoices):
        OPEN = "open", "open"
        ACCEPTED = "accepted", "accepted"
        REVERTED = "reverted", "reverted"
        KEPT_BOTH = "kept_both", "kept both"

    kb = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="review_items")
    end_user = models.ForeignKey(EndUser, null=True, blank=True, on_delete=models.CASCADE, related_name="review_items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    older = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="reviews_as_older")
    newer = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="reviews_as_newer")
    attribute = models.CharField(max_length=100, blank=True, help_text="What both state, where known.")
    reason = models.CharField(max_length=200, blank=True, help_text="How the supersession came about.")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["older", "newer", "kind"], name="review_item_once")]
        indexes = [models.Index(fields=["kb", "status", "-created_at"], name="review_kb_status")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}: {self.older_id} -> {self.newer_id} ({self.status})"
