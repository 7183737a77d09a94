"""Fixtures of the recall tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def notes(kb):
    """The README's KB: always on."""
    kb.always_on = True
    kb.save(update_fields=["always_on"])
    return kb
