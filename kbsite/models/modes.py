"""Mode: what produced a memory, an insight or a job's result (the LLM, the offline heuristics, a person)."""

from __future__ import annotations

from django.db import models


class Mode(models.TextChoices):
    """What produced a memory, an insight or a job's result."""

    LLM = "llm", "LLM"
    HEURISTIC = "heuristic", "Heuristic (offline)"
    MANUAL = "manual", "Manual"
