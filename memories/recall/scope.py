"""What a recall searches, and that scope as SQL for the raw ranked lists.

The live (or, as of a moment, then-live), non-quarantined memories of some KBs, of some kinds, maybe leaving out
what was drawn from one session's turns; and those KBs' insights. Of one end user, their own rows and the shared
ones; of no end user, the shared ones only.

The ranked lists are raw SQL for speed; their WHERE clause is compiled from the same queryset methods the rest of
the product uses (``live``, ``as_of``), so the rule for what a recall may return is written once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime

from django.db import connection
from django.db.models import Q, QuerySet

from memories.models import Insight, Memory, Message
from memories.models.querysets import visible_to


@dataclass(frozen=True)
class Scope:
    kb_ids: tuple[int, ...]
    as_of: datetime | None = None  # valid time: the facts true in the world then
    known_at: datetime | None = None  # system time: as kbsite knew them then (default now)
    kinds: tuple[str, ...] | None = None  # memory kinds; None: every kind
    exclude_session: str | None = None
    end_user_id: int | None = None
    metadata: str | None = None  # a JSON object (text, so that a scope stays hashable) memories must contain
    own: bool = False  # the end user's own rows only, without the shared ones (memories.recall.fulltext)

    def _visible(self) -> Q:
        return Q(end_user_id=self.end_user_id) if self.own else visible_to(self.end_user_id)

    def memories(self) -> QuerySet:
        memories = Memory.objects.filter(self._visible(), kb_id__in=self.kb_ids, quarantined=False)
        if self.as_of:
            memories = memories.valid_at(self.as_of, self.known_at)
        else:
            memories = memories.known_at(self.known_at) if self.known_at else memories.live()
        if self.kinds:
            memories = memories.filter(kind__in=self.kinds)
        if self.metadata:
            memories = memories.filter(metadata__contains=json.loads(self.metadata))
        if self.exclude_session:
            # Memories drawn only from the excluded session's own turns are left out.
            memories = memories.exclude(source_messages__session__external_id=self.exclude_session)
        return memories

    def replaced(self) -> QuerySet:
        """The retired facts of the scope that a newer one replaced (memories.recall.replaced): searched so that a
        question worded as the old fact was finds the fact that holds now. Of recall as things stand only."""
        memories = Memory.objects.filter(
            self._visible(),
            kb_id__in=self.kb_ids,
            quarantined=False,
            retired_at__isnull=False,
            superseded_by__isnull=False,
        )
        if self.kinds:
            memories = memories.filter(kind__in=self.kinds)
        return memories

    def turns(self) -> QuerySet:
        """The searched turns (see memories.recall.turns) in scope: of the sessions the end user may see, said by
        ``as_of``, received by ``known_at``, none that a fact out of scope was drawn from (retired or
        quarantined: a superseded fact's turn must not bring it back as current). Turns have no kind: a recall
        of some kinds searches none."""
        if self.kinds:
            return Message.objects.none()
        # By the end user each turn keeps (its session's): scoped by their sessions instead, a user's turns were an
        # array of sessions the planner could not count, read through the session index with all 100,000 shared
        # turns for every word of a question.
        turns = Message.objects.filter(self._visible(), kb_id__in=self.kb_ids, embedding__isnull=False)
        if self.exclude_session:
            turns = turns.exclude(session__external_id=self.exclude_session)
        links = Memory.source_messages.through.objects.filter(memory__in=self._memories_out())
        turns = turns.exclude(pk__in=links.values("message_id"))
        if self.as_of:
            turns = turns.filter(created_at__lte=self.as_of)
        if self.known_at:
            turns = turns.filter(received_at__lte=self.known_at)
        if self.metadata:
            turns = turns.filter(metadata__contains=json.loads(self.metadata))
        return turns

    def _memories_out(self) -> QuerySet:
        """The memories of the KBs a recall at this time may not present: quarantined, or retired by then (as of a
        valid time, retired and not true then)."""
        memories = Memory.objects.filter(kb_id__in=self.kb_ids)
        retired = Q(retired_at__lte=self.known_at) if self.known_at else Q(retired_at__isnull=False)
        if self.as_of:
            retired &= ~Q(pk__in=memories.valid_at(self.as_of, self.known_at).values("pk"))
        return memories.filter(Q(quarantined=True) | retired)

    def insights(self) -> QuerySet:
        insights = Insight.objects.filter(self._visible(), kb_id__in=self.kb_ids)
        return insights.known_at(self.known_at) if self.known_at else insights.live()


@dataclass(frozen=True)
class Table:
    """One searched table: its name, what its rows are called in results, the scope as SQL on the table's own
    name (no alias) with its parameters, and which of its rows its HNSW index holds (the others are compared
    exactly: a small KB's memories, and every end user's memories and insights)."""

    name: str
    type: str  # "memory" | "insight" | "turn"
    where: str
    params: tuple
    in_index: str
    exact: bool = True  # whether rows outside the index may be in scope
    # For an end user's scope: the same table's shared rows only, whose word counts every user of the KBs shares,
    # and the user's own rows only (both parts of the scope, apart).
    shared: Table | None = None
    own: Table | None = None

    def for_user(self, slot: int, end_user_id: int, shared: Table | None = None, own: Table | None = None) -> Table:
        """This table with the end user's id where its scope was compiled with the stand-in ``slot``;
        ``shared``: its scope of the shared rows; ``own``: its scope of the user's own rows, compiled with ``slot``
        too."""
        params = tuple(end_user_id if isinstance(p, int) and p == slot else p for p in self.params)
        if params == self.params:
            raise ValueError("the scope was not compiled for an end user")
        own = own.for_user(slot, end_user_id) if own else None
        return replace(self, params=params, shared=shared, own=own)

    @classmethod
    def of(cls, queryset: QuerySet, type_: str, end_user_id: int | None = None) -> Table:
        query = queryset.query
        where, params = query.get_compiler(connection=connection).compile(query.where)
        name = queryset.model._meta.db_table
        if type_ == "replaced":  # retired: compared exactly, through their own index (memory_kb_retired)
            return cls(name, type_, where, tuple(params), in_index="FALSE")
        if type_ in ("memory", "turn"):  # a large KB's shared ones are in the index, as its memories are
            return cls(name, type_, where, tuple(params), in_index=f"{name}.in_vector_index")
        # The index holds every shared insight: with no end user in scope, it holds all there is to find.
        return cls(name, type_, where, tuple(params), in_index=f"{name}.end_user_id IS NULL", exact=bool(end_user_id))
