"""The knowledge/ folder of a KB: one markdown file per document, named ``<slug>.md``.

Every path is built from a validated slug inside the KB's folder and checked
to stay there, so no name a client sends can touch anything else. Writes go
to a temporary file in the same folder and are renamed over the target, so a
reader (or the sync) never sees half a document.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from kbsite.models import KnowledgeBase

from .models import SLUG_RE

SUFFIX = ".md"
_slug = re.compile(SLUG_RE)


class InvalidSlug(ValueError):
    """The slug breaks the slug rules; the message says how."""


def slug_check(slug: object) -> str:
    """``slug`` if it is valid, else :class:`InvalidSlug` with a message a client can act on."""
    if not isinstance(slug, str) or not _slug.fullmatch(slug):
        raise InvalidSlug(
            f"invalid slug {slug!r}: use 2-64 lowercase letters, digits and hyphens, "
            "starting and ending with a letter or digit (e.g. 'matrix-tips')"
        )
    return slug


def document_path(kb: KnowledgeBase, slug: str) -> Path:
    """Path of the markdown file of ``slug``; never outside the KB's knowledge folder."""
    folder = kb.knowledge_dir.resolve()
    path = (folder / f"{slug_check(slug)}{SUFFIX}").resolve()
    if path.parent != folder:  # a symlinked file pointing elsewhere resolves outside
        raise InvalidSlug(f"document {slug!r} does not resolve inside the knowledge folder")
    return path


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


# A heading of a text: a markdown one ("## Refund policy"), or a short line standing alone above its paragraph
# ("Opening hours"), ending in no sentence mark.
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<h>.+?)\s*#*\s*$")
HEADING_WORDS = 10
_SENTENCE_MARKS = (".", "!", "?", ":", ";", ",")


def heading(lines: list[str], n: int) -> str:
    """The heading that line ``n`` of ``lines`` is ("" when it is none): a markdown heading, or a line of at most
    HEADING_WORDS words, ending in no sentence mark, with blank lines (or the start) around it and text after."""
    if marked := _HEADING.match(lines[n]):
        return marked.group("h").strip()
    text = lines[n].strip()
    above = lines[n - 1].strip() if n else ""
    below = lines[n + 1].strip() if n + 1 < len(lines) else ""
    after = lines[n + 2].strip() if n + 2 < len(lines) else ""
    short = len(text.split()) <= HEADING_WORDS and not text.endswith(_SENTENCE_MARKS)
    return text if text and short and not above and not below and after else ""


def heading_of(text: str) -> str:
    """The first heading of an extracted text ("" when it has none): its first line standing alone as one, else a
    markdown heading among its first lines (:func:`heading`), whichever comes first."""
    lines = text.lstrip().splitlines()
    for n in range(min(5, len(lines))):
        if (title := heading(lines, n)) and (n == 0 or _HEADING.match(lines[n])):
            return title[:300]
    return ""


def title_of(content: str, slug: str) -> str:
    """The first ``# `` heading, else the humanised slug ("go-patterns" → "Go patterns")."""
    for line in content.splitlines():
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()[:300]
    return slug.replace("-", " ").capitalize()


def file_write(kb: KnowledgeBase, slug: str, content: str) -> Path:
    """Write ``content`` to the slug's file atomically (temporary file, fsync, rename)."""
    path = document_path(kb, slug)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def file_read(kb: KnowledgeBase, slug: str) -> str | None:
    path = document_path(kb, slug)
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def file_delete(kb: KnowledgeBase, slug: str) -> bool:
    path = document_path(kb, slug)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def files_list(kb: KnowledgeBase) -> tuple[dict[str, Path], list[str]]:
    """The folder's documents by slug, and the names skipped (bad slug, not a regular file, symlink)."""
    folder = kb.knowledge_dir
    found: dict[str, Path] = {}
    skipped: list[str] = []
    if not folder.is_dir():
        return found, skipped
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix != SUFFIX:
            continue
        if path.is_symlink() or not path.is_file() or not _slug.fullmatch(path.stem):
            skipped.append(path.name)
            continue
        found[path.stem] = path
    return found, skipped
