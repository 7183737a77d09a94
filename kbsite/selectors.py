"""Reads of the base models that need more than a queryset method."""

from __future__ import annotations

from kbsite.models import Bot, KnowledgeBase


def kb_get(*, bot: Bot, name: str, queryset=None) -> KnowledgeBase:
    """The bot's KB called ``name`` (from ``queryset``, e.g. one annotated with counts), or
    ``KnowledgeBase.DoesNotExist`` saying so (the API answers it 404)."""
    # One row by its unique name: no ordering (the model's would join the bot to sort a single row).
    kb = (KnowledgeBase.objects if queryset is None else queryset).for_bot(bot).filter(name=name).order_by()[:1]
    kb = next(iter(kb), None)
    if kb is None:
        raise KnowledgeBase.DoesNotExist(f"This bot has no knowledge base named {name!r}.")
    return kb
