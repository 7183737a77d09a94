"""File → text, for inbox files and uploads.

Text formats are read directly; pdf through pypdf, docx through python-docx,
html through BeautifulSoup. Images and audio go through the configured
multimodal model when there is one; otherwise (and for video) the file fails
with a reason that says what is missing.
"""

from __future__ import annotations

import base64
import codecs
import csv
import io
import json
import mimetypes
import zipfile
from pathlib import Path

from django.conf import settings

from kbsite.ai import llm
from kbsite.text import unstorable

TEXT_TYPES = {".txt", ".md", ".markdown", ".json", ".csv", ".html", ".htm", ".pdf", ".docx"}
IMAGE_TYPES = {".png", ".jpg", ".jpeg", ".gif", ".webp"}
AUDIO_TYPES = {".mp3", ".wav", ".m4a", ".ogg", ".flac", ".webm"}
VIDEO_TYPES = {".mp4", ".mov", ".mkv", ".avi"}
SUPPORTED_TYPES = TEXT_TYPES | IMAGE_TYPES | AUDIO_TYPES | VIDEO_TYPES
# Bytes of a .docx's XML per character of its text, at most (for the unpacked-size check).
DOCX_XML_PER_CHAR = 20


class ExtractionFailed(Exception):
    """The file could not be turned into text; the message says why. Trying again would not help."""

    retryable = False


class TooMuchText(ExtractionFailed):
    """The file holds (or would expand to) more text than MAX_INGEST_TEXT_CHARS."""


def _too_much(chars: int, what: str) -> TooMuchText:
    limit = settings.MAX_INGEST_TEXT_CHARS
    return TooMuchText(f"{what} {chars:,} characters; the limit is {limit:,} (MAX_INGEST_TEXT_CHARS)")


def extract_text(name: str, data: bytes) -> str:
    """Text of a file called ``name`` with contents ``data``, at most MAX_INGEST_TEXT_CHARS characters: a file that
    would expand past that (a zip bomb dressed as a .docx, a PDF of a million pages) is refused while it is read,
    before it holds a worker's memory for the whole time limit."""
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_TYPES:
        raise ExtractionFailed(
            f"unsupported file type {suffix or '(none)'!r}; supported: {', '.join(sorted(SUPPORTED_TYPES))}"
        )
    if not data:
        raise ExtractionFailed("the file is empty")
    try:
        if suffix in {".txt", ".md", ".markdown"}:
            text = _decode(data)
        elif suffix == ".json":
            text = _json_text(json.loads(_decode(data)))
        elif suffix == ".csv":
            text = _csv_text(_decode(data))
        elif suffix in {".html", ".htm"}:
            text = _html_text(_decode(data))
        elif suffix == ".pdf":
            text = _pdf_text(data)
        elif suffix == ".docx":
            text = _docx_text(data)
        elif suffix in IMAGE_TYPES:
            text = _image_text(name, data)
        elif suffix in AUDIO_TYPES:
            text = _audio_text(name, data)
        else:
            raise ExtractionFailed(
                f"{suffix} video is unsupported: no video-capable model is configured (images need LLM_VISION_MODEL, "
                "audio needs LLM_AUDIO_MODEL)"
            )
    except ExtractionFailed:
        raise
    except MemoryError as exc:
        raise _too_much(len(data), "the file expands past memory from") from exc
    except Exception as exc:  # a broken file of a supported type
        raise ExtractionFailed(f"could not read {suffix} file: {exc}") from exc
    text = text.strip()
    if not text:
        raise ExtractionFailed(f"no text could be extracted from this {suffix} file")
    if len(text) > settings.MAX_INGEST_TEXT_CHARS:
        raise _too_much(len(text), "its text has")
    if reason := unstorable(text):
        raise ExtractionFailed(f"the text of this {suffix} file {reason}")
    return text


def _decode(data: bytes) -> str:
    """UTF-8, UTF-16 when the file says so (a byte-order mark: any even-length binary would decode as UTF-16),
    else Latin-1; a file with NUL bytes in neither is binary, not text."""
    encodings = ["utf-16"] if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else ["utf-8-sig"]
    for encoding in encodings:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "\x00" not in text:
            return text
    if b"\x00" in data:
        raise ExtractionFailed("the file is binary, not text (it holds NUL bytes)")
    return data.decode("latin-1")


def _json_text(value, prefix: str = "") -> str:
    """Flatten JSON into 'path: value' lines, which read well as facts."""
    lines: list[str] = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, child in node.items():
                walk(child, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for i, child in enumerate(node):
                walk(child, f"{path}[{i}]")
        elif node is not None:
            lines.append(f"{path}: {node}" if path else str(node))

    walk(value, prefix)
    return "\n".join(lines)


def _csv_text(text: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return ""
    header, body = rows[0], rows[1:]
    if not body:
        return ", ".join(header)
    return "\n".join("; ".join(f"{h}: {v}" for h, v in zip(header, row, strict=False) if v) for row in body)


def _html_text(text: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(["script", "style", "noscript"]):
        tag.decompose()
    return "\n".join(line.strip() for line in soup.get_text("\n").splitlines() if line.strip())


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    pages, size = [], 0
    for page in reader.pages:  # page by page, stopping as soon as the text is too long
        pages.append(page.extract_text() or "")
        size += len(pages[-1])
        if size > settings.MAX_INGEST_TEXT_CHARS:
            raise _too_much(size, "its first pages alone have")
    return "\n\n".join(pages)


def _docx_text(data: bytes) -> str:
    import docx

    # A .docx is a zip: what it unpacks to is known before anything is unpacked. XML is verbose, so a few times the
    # text limit is room enough for any document whose text fits.
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        unpacked = sum(member.file_size for member in archive.infolist())
    if unpacked > DOCX_XML_PER_CHAR * settings.MAX_INGEST_TEXT_CHARS:
        raise _too_much(unpacked // DOCX_XML_PER_CHAR, "it unpacks to about")
    document = docx.Document(io.BytesIO(data))
    parts = [p.text for p in document.paragraphs if p.text.strip()]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def _image_text(name: str, data: bytes) -> str:
    if not (settings.LLM_BASE_URL and settings.LLM_VISION_MODEL):
        raise ExtractionFailed("images are unsupported without a vision model (set LLM_BASE_URL and LLM_VISION_MODEL)")
    mime = mimetypes.guess_type(name)[0] or "image/png"
    url = f"data:{mime};base64,{base64.b64encode(data).decode()}"
    return llm.describe_image(image_url=url)


def _audio_text(name: str, data: bytes) -> str:
    if not (settings.LLM_BASE_URL and settings.LLM_AUDIO_MODEL):
        raise ExtractionFailed("audio is unsupported without an audio model (set LLM_BASE_URL and LLM_AUDIO_MODEL)")
    return llm.transcribe(name=name, data=data)
