"""Reciprocal Rank Fusion of ranked lists, and packing the fused results under a count and a character budget."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from django.conf import settings

T = TypeVar("T")


class Fusion:
    """Scores fused from ranked lists: each item gets ``weight / (RECALL_RRF_K + rank)`` from every list it is in
    (rank from 1), and the name of each list that found it as a signal."""

    def __init__(self) -> None:
        self.scores: dict[Hashable, float] = defaultdict(float)
        self.signals: dict[Hashable, list[str]] = defaultdict(list)

    def add(self, ranked: Iterable[Hashable], *, weight: float, signal: str) -> None:
        """Fuse in one ranked list, best first."""
        k = settings.RECALL_RRF_K
        for rank, key in enumerate(ranked, start=1):
            self.scores[key] += weight / (k + rank)
            if signal not in self.signals[key]:
                self.signals[key].append(signal)

    def add_at(self, key: Hashable, *, rank: int, weight: float, signal: str) -> None:
        """Credit ``key`` as found at ``rank`` (from 1) by the list named ``signal``."""
        self.scores[key] += weight / (settings.RECALL_RRF_K + rank)
        if signal not in self.signals[key]:
            self.signals[key].append(signal)

    def ranked(self) -> list[Hashable]:
        """Every item, best first."""
        return sorted(self.scores, key=lambda key: -self.scores[key])


def pack(items: Sequence[T], *, k: int, budget_chars: int | None, size: Callable[[T], int]) -> list[T]:
    """Take items in rank order while they fit: at most ``k``, at most ``budget_chars`` characters in all (an
    item too long to fit is skipped and the next ones are still tried)."""
    out: list[T] = []
    used = 0
    for item in items:
        if len(out) >= k:
            break
        length = size(item)
        if budget_chars is not None and used + length > budget_chars:
            continue
        out.append(item)
        used += length
    return out
