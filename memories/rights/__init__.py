"""End users' data rights, and moving memory between installations: what is held about each end user
(``holdings``) and their erasure (``erasure``); a KB or an end user exported as JSON Lines (``exporting``), in the
format of ``records``, and a KB's export imported into a KB (``importing``: the file checked in ``import_checks``,
then written by ``import_conversations``, ``import_documents`` and ``import_memories``)."""

from memories.rights.erasure import user_erase
from memories.rights.exporting import json_lines, records
from memories.rights.holdings import Holdings, runs_about, users_annotated, users_with_counts
from memories.rights.import_checks import ImportRefused
from memories.rights.importing import kb_import

__all__ = [
    "Holdings",
    "ImportRefused",
    "json_lines",
    "kb_import",
    "records",
    "runs_about",
    "user_erase",
    "users_annotated",
    "users_with_counts",
]
