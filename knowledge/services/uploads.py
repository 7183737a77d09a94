"""Uploads and text documents: a file or a text sent in is stored as a document and queued for indexing; an end
user's own text documents are written here too."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from kbsite.models import EndUser, JobRun, KnowledgeBase
from kbsite.stats import stats_add
from kbsite.text import unstorable
from knowledge import files
from knowledge.extractors import TEXT_TYPES
from knowledge.models import Document
from knowledge.services.documents import DocumentRefused, document_lock, document_store
from knowledge.services.processing import enqueue_document

UPLOAD_TYPES = sorted(TEXT_TYPES)


def _free_slug(kb: KnowledgeBase, wanted: str) -> str:
    base = (slugify(wanted.replace("_", " "))[:56].strip("-") or "document").ljust(2, "0")
    taken = set(Document.objects.filter(kb=kb, slug__startswith=base).values_list("slug", flat=True))
    taken |= set(files.files_list(kb)[0])
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def upload_check(*, name: str, size: int) -> str:
    """The upload's bare file name, if its type and size are acceptable; else DocumentRefused saying why."""
    name = Path(name or "").name  # a client's path is never used as one
    suffix = Path(name).suffix.lower()
    if suffix not in TEXT_TYPES:
        raise DocumentRefused(
            f"unsupported file type {suffix or '(none)'!r} for {name!r}; upload one of: {', '.join(UPLOAD_TYPES)}"
        )
    if size == 0:
        raise DocumentRefused(f"{name!r} is empty")
    if size > settings.MAX_UPLOAD_BYTES:
        raise DocumentRefused(f"{name!r} is {size} bytes; the limit is {settings.MAX_UPLOAD_BYTES} bytes")
    return name


def document_upload(
    *,
    kb: KnowledgeBase,
    name: str,
    data: bytes,
    namespace: str = "documents",
    title: str = "",
    end_user: EndUser | None = None,
) -> tuple[Document, JobRun]:
    """Store an uploaded file (an end user's own, or shared) and queue its extraction and indexing. Refuses
    unknown types and oversized files."""
    name = upload_check(name=name, size=len(data))
    suffix = Path(name).suffix.lower()
    with transaction.atomic():
        slug = _free_slug(kb, Path(name).stem)
        relative = f"uploads/{slug}{suffix}"
        document, _ = document_store(
            kb=kb,
            slug=slug,
            title=title or Path(name).stem,
            doc_type=Document.Type.UPLOAD,
            end_user=end_user,
            namespace=namespace or "documents",
            source=name,
            size_bytes=len(data),
            # Titled by its file's name until its text is read: then by the text's first heading, if it has one.
            metadata={"file": relative, "format": suffix.lstrip("."), **({} if title else {"title_from": "file name"})},
        )
        path = kb.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        job = enqueue_document(document=document)
        stats_add(kb.pk, documents=1)
    return document, job


def document_receive_text(
    *,
    kb: KnowledgeBase,
    content: str,
    title: str = "",
    slug: str = "",
    namespace: str = "documents",
    end_user: EndUser | None = None,
    source: str = "api",
) -> tuple[Document, JobRun]:
    """Store a text document sent as JSON (an end user's own, or shared) and queue its indexing."""
    if not content.strip():
        raise DocumentRefused("content is empty")
    if reason := unstorable(content):
        raise DocumentRefused(f"content {reason}")
    with transaction.atomic():
        if slug:
            files.slug_check(slug)
            if Document.objects.filter(kb=kb, slug=slug).exists() or files.document_path(kb, slug).exists():
                raise DocumentRefused(f"a document with slug {slug!r} already exists in this knowledge base")
        else:
            slug = _free_slug(kb, title or content.strip().splitlines()[0][:60])
        document, _ = document_store(
            kb=kb,
            slug=slug,
            title=title or files.title_of(content, slug),
            doc_type=Document.Type.TEXT,
            end_user=end_user,
            namespace=namespace or "documents",
            source=source,
            content=content,
            content_hash=files.content_hash(content),
            size_bytes=len(content.encode()),
        )
        job = enqueue_document(document=document)
        stats_add(kb.pk, documents=1)
    return document, job


def document_text_put(
    *, kb: KnowledgeBase, slug: str, content: str, end_user: EndUser, source: str = "tool"
) -> tuple[Document, bool]:
    """Create or replace the end user's own text document ``slug`` (a bot writing knowledge while serving that
    user): it lives in the database, not in the shared knowledge/ folder, and is indexed by a job. A slug held by
    a shared document or another user's is refused. Returns (document, created)."""
    files.slug_check(slug)
    with transaction.atomic():
        document_lock(kb.pk, slug)
        document = Document.objects.present().filter(kb=kb, slug=slug).first()
        if document is None:
            document, _ = document_receive_text(
                kb=kb, content=content, slug=slug, end_user=end_user, source=source, title=files.title_of(content, slug)
            )
            return document, True
        if document.end_user_id != end_user.pk or document.doc_type != Document.Type.TEXT:
            raise DocumentRefused(f"the slug {slug!r} is taken in this knowledge base; choose another slug")
        if reason := unstorable(content):
            raise DocumentRefused(f"content {reason}")
        document.content, document.title = content, files.title_of(content, slug)
        document.content_hash, document.size_bytes = files.content_hash(content), len(content.encode())
        document.save(update_fields=["content", "title", "content_hash", "size_bytes", "updated_at"])
        enqueue_document(document=document)
    return document, False
