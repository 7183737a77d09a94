"""What one import has written so far, handed from step to step of memories.rights.importing."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kbsite.models import EndUser, KnowledgeBase
from knowledge.models import Document
from memories.models import Session
from memories.rights.import_checks import Line


@dataclass
class ImportState:
    """What one import has written so far: the new ids of the file's rows."""

    kb: KnowledgeBase
    by_type: dict[str, list[Line]]
    users: dict[str | None, EndUser | None] = field(default_factory=lambda: {None: None})
    sessions: dict[str, Session] = field(default_factory=dict)
    messages: dict[tuple[str, str], int] = field(default_factory=dict)  # (session, turn) external ids -> message id
    documents: dict[str, Document] = field(default_factory=dict)
    new_documents: list[Document] = field(default_factory=list)
    memories: dict[int, int] = field(default_factory=dict)  # the file's memory id -> the KB's
    files: list[Path] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def owner(self, data: dict) -> int | None:
        user = self.users[data.get("user_id")]
        return user.pk if user else None
