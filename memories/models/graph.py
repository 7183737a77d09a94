"""The entity graph: the people, places and things memories name (Entity), and the relations they assert (Edge)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kbsite.models import EndUser, KnowledgeBase
from memories.models.memory import Memory


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
