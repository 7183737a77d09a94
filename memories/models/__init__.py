"""The memory domain's models: sessions, turns, memories, insights, the entity graph, ingest items.

Conversations (sessions and turns) and the inputs waiting to be ingested (``conversations``), the memories drawn
from them (``memory``), the insights linking them (``insights``), the entity graph (``graph``), the review queue
(``reviews``), and the querysets they share (``querysets``). Every model is importable from here, as
``memories.models``.
"""

from memories.models.conversations import IngestItem, Message, Session
from memories.models.graph import Edge, Entity
from memories.models.insights import Insight
from memories.models.memory import Memory, TermStat, source_entries, text_hash
from memories.models.querysets import LifeSpanQuerySet, MemoryQuerySet, visible_to
from memories.models.reviews import ReviewItem

__all__ = [
    "Edge",
    "Entity",
    "IngestItem",
    "Insight",
    "LifeSpanQuerySet",
    "Memory",
    "MemoryQuerySet",
    "Message",
    "ReviewItem",
    "Session",
    "TermStat",
    "source_entries",
    "text_hash",
    "visible_to",
]
