"""Fixtures of the memory tests: the chat proxy's recording KB and two end users with facts about shellfish."""

from __future__ import annotations

import pytest

from kbsite.models import EndUser, KnowledgeBase
from tests.factories import MemoryFactory


@pytest.fixture
def recording_kb(kb):
    KnowledgeBase.objects.filter(pk=kb.pk).update(records_chat=True)
    return kb


@pytest.fixture
def two_users(recording_kb):
    alice = EndUser.objects.seen(recording_kb.bot, "alice")
    bob = EndUser.objects.seen(recording_kb.bot, "bob")
    MemoryFactory(kb=recording_kb, end_user=alice, text="Alice is allergic to shellfish.")
    MemoryFactory(kb=recording_kb, end_user=bob, text="Bob loves shellfish and cooks mussels weekly.")
    MemoryFactory(kb=recording_kb, text="The office canteen serves fish on Fridays.")
    from memories.services import memories_embed_missing

    memories_embed_missing()
    return alice, bob
