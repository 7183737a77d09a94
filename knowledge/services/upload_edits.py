"""An operator's edits of an uploaded file's text, kept across re-indexing while the file is unchanged.

An upload's text is extracted from its stored file. A chunk edited in the admin (``chunk_edits``) makes the edited
text the document's text of record: its metadata keeps when it was edited (``edited_at``) and the SHA-256 of the file
that text came from (``file_hash``). Indexing the document again (Re-index, the API's reindex, the jobs' healing, a
retry) then indexes that text, screened and embedded like every write, as long as the file's hash is the same. A file
that really changed is extracted again and its text replaces the edits; the metadata says so (``edits_replaced``,
shown on the document's admin page and in the API), so an edit is never dropped silently.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.utils import timezone

from knowledge.extractors import extract_text
from knowledge.models import Document


def file_hash(data: bytes) -> str:
    """The SHA-256 of a stored file's bytes: which file an upload's text came from."""
    return hashlib.sha256(data).hexdigest()


def upload_edit_mark(*, metadata: dict, path: Path) -> dict:
    """The metadata of an upload whose text an operator has just edited: the edit's time and the hash of the file
    (stored at ``path``) the text came from, which an older upload did not record yet."""
    marked = {key: value for key, value in metadata.items() if key != "edits_replaced"}
    if "file_hash" not in marked and path.is_file():
        marked["file_hash"] = file_hash(path.read_bytes())
    marked["edited_at"] = timezone.now().isoformat()
    return marked


def upload_text(*, document: Document, data: bytes) -> tuple[str, dict, str]:
    """The text of record of the upload ``document`` whose stored file holds ``data``, its metadata, and what became
    of an operator's edits: "kept" (the file is the one edited from), "replaced" (the file changed: its text is
    extracted again and the metadata says the edits were replaced), or "" (none). Raises ExtractionFailed."""
    digest, metadata = file_hash(data), dict(document.metadata)
    edited_at = metadata.get("edited_at")
    if edited_at and metadata.get("file_hash") == digest:
        return document.content, metadata, "kept"
    text = extract_text(document.source, data)
    metadata["file_hash"] = digest
    if not edited_at:
        return text, metadata, ""
    del metadata["edited_at"]
    metadata["edits_replaced"] = {
        "edited_at": edited_at,
        "replaced_at": timezone.now().isoformat(),
        "note": f"The operator's edits of {edited_at} were replaced by the changed file's text (the file's content "
        "hash changed, so its text was extracted again). Edit its chunks again if the edits still apply.",
    }
    return text, metadata, "replaced"
