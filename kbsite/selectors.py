"""Reads of the base models that need more than a queryset method.

The two reads of every API call (its key with its bot, and the KB it names) are plain SQL read into model instances:
built through the ORM, each cost 0.8-0.9 ms of Python (a query compiled anew every time) for 0.1 ms in the database.
"""

from __future__ import annotations

import functools

from django.db import connection, models

from kbsite.models import ApiKey, Bot, EndUser, KnowledgeBase


def _columns(model: type[models.Model], alias: str) -> str:
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def _instance(model: type[models.Model], values) -> models.Model:
    return model.from_db(connection.alias, [field.attname for field in model._meta.concrete_fields], values)


@functools.cache
def _key_sql() -> str:
    return (
        f"SELECT {_columns(ApiKey, 'k')}, {_columns(Bot, 'b')}, {_columns(EndUser, 'u')} "
        f"FROM {ApiKey._meta.db_table} k JOIN {Bot._meta.db_table} b ON b.id = k.bot_id "
        f"LEFT JOIN {EndUser._meta.db_table} u ON u.id = k.end_user_id "
        "WHERE k.hashed_key = %s AND k.revoked_at IS NULL AND b.is_active LIMIT 1"
    )


def key_active(hashed_key: str) -> ApiKey | None:
    """The active key (of an active bot) with this hash, its bot and its end user (if it is one's) loaded; None for
    none."""
    with connection.cursor() as cursor:
        cursor.execute(_key_sql(), [hashed_key])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(ApiKey._meta.concrete_fields)
    bot_end = split + len(Bot._meta.concrete_fields)
    key = _instance(ApiKey, row[:split])
    key.bot = _instance(Bot, row[split:bot_end])
    if key.end_user_id is not None:
        key.end_user = _instance(EndUser, row[bot_end:])
    return key


@functools.cache
def _kb_sql() -> str:
    return (
        f"SELECT {_columns(KnowledgeBase, 'kb')} FROM {KnowledgeBase._meta.db_table} kb WHERE bot_id = %s AND name = %s"
    )


def kb_get(*, bot: Bot, name: str, queryset=None) -> KnowledgeBase:
    """The bot's KB called ``name`` (from ``queryset``, e.g. one annotated with counts), or
    ``KnowledgeBase.DoesNotExist`` saying so (the API answers it 404)."""
    if queryset is None:
        with connection.cursor() as cursor:
            cursor.execute(_kb_sql(), [bot.pk, name])
            row = cursor.fetchone()
        kb = _instance(KnowledgeBase, row) if row else None
    else:
        # One row by its unique name: no ordering (the model's would join the bot to sort a single row).
        kb = next(iter(queryset.for_bot(bot).filter(name=name).order_by()[:1]), None)
    if kb is None:
        raise KnowledgeBase.DoesNotExist(f"This bot has no knowledge base named {name!r}.")
    if kb.bot_id == bot.pk:
        kb.bot = bot  # the caller's bot, already loaded
    return kb
