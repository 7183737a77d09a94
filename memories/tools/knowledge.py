"""The knowledge tools: search, read, write and list a bot's knowledge documents, and search them with its archived
conversations (``search_knowledge_base``)."""

from __future__ import annotations

from kbsite.models import KnowledgeBase
from knowledge import files, services
from knowledge.models import Document
from knowledge.search import chunks_search
from memories.tools.registry import LIMIT, QUERY, Tool, ToolError, one_kb, register, scope_kbs

SLUG = {
    "type": "string",
    "pattern": files.SLUG_RE,
    "description": "Document slug (lowercase, hyphens), e.g. 'matrix-tips'.",
}


def _hits(results: list[dict], kbs: list[KnowledgeBase]) -> list[dict]:
    names = {kb.pk: kb.name for kb in kbs}
    return [
        {
            "kb": names[r["kb_id"]],
            "slug": r["document"],
            "title": r["title"],
            "doc_type": r["doc_type"],
            "chunk": r["chunk"],
            "snippet": r["snippet"],
            "score": round(r["score"], 5),
            **({"session_id": r["metadata"].get("session_id")} if r["doc_type"] == Document.Type.CONVERSATION else {}),
        }
        for r in results
    ]


def _knowledge_search(caller, kbs, args):
    scope = scope_kbs(kbs, args)
    results = chunks_search(
        kbs=scope,
        query=args["query"],
        limit=args.get("limit", 5),
        namespaces=["documents"],
        end_user_id=caller.end_user_id,
    )
    return {"results": _hits(results, scope)}


def _knowledge_read(caller, kbs, args):
    kb = one_kb(kbs, args)
    document = Document.objects.present().visible_to(caller.end_user_id).filter(kb=kb, slug=args["slug"]).first()
    if document is None:
        raise ToolError(f"no document {args['slug']!r} in knowledge base {kb.name!r}", status=404)
    if document.quarantine_reason:
        raise ToolError(
            f"document {document.slug!r} is withheld until an operator reviews it: {document.quarantine_reason}",
            status=403,
        )
    if document.status != Document.Status.DONE:
        state = f"failed: {document.error}" if document.status == Document.Status.FAILED else "still being indexed"
        raise ToolError(f"document {document.slug!r} cannot be read yet: {state}", status=409)
    return {
        "kb": kb.name,
        "slug": document.slug,
        "title": document.title,
        "doc_type": document.doc_type,
        "content": document.content,
        "updated_at": document.updated_at.isoformat(),
    }


def _knowledge_write(caller, kbs, args):
    kb = one_kb(kbs, args)
    try:
        if caller.end_user:
            document, created = services.document_text_put(
                kb=kb, slug=args["slug"], content=args["content"], end_user=caller.end_user, source="tool"
            )
        else:
            document, created = services.document_write(
                kb=kb, slug=args["slug"], content=args["content"], source="tool"
            )
    except (files.InvalidSlug, services.DocumentRefused) as exc:
        raise ToolError(str(exc)) from exc
    return {
        "kb": kb.name,
        "slug": document.slug,
        "title": document.title,
        "bytes": document.size_bytes,
        "created": created,
    }


def _knowledge_list(caller, kbs, args):
    scope = scope_kbs(kbs, args)
    documents = (
        Document.objects.readable()
        .visible_to(caller.end_user_id)
        .filter(kb__in=scope)
        .exclude(doc_type=Document.Type.CONVERSATION)
    )
    names = {kb.pk: kb.name for kb in scope}
    return {
        "documents": [
            {
                "kb": names[d.kb_id],
                "slug": d.slug,
                "title": d.title,
                "doc_type": d.doc_type,
                "updated_at": d.updated_at.isoformat(),
            }
            for d in documents.order_by("kb__name", "slug").only("kb_id", "slug", "title", "doc_type", "updated_at")
        ]
    }


NAMESPACES = {"conversations": ["conversations"], "documents": ["documents"], "all": None}


def _search_knowledge_base(caller, kbs, args):
    scope = scope_kbs(kbs, args)
    results = chunks_search(
        kbs=scope,
        query=args["query"],
        limit=args.get("limit", 5),
        namespaces=NAMESPACES[args.get("search_type", "all")],
        exclude_session=args.get("session_id"),
        end_user_id=caller.end_user_id,
    )
    return {"results": _hits(results, scope)}


register(
    Tool(
        "knowledge_search",
        "Search your knowledge documents. Returns matching snippets ranked by relevance.",
        {"query": QUERY, "limit": LIMIT},
        ("query",),
        _knowledge_search,
    ),
    Tool(
        "knowledge_read",
        "Read the full content of a knowledge document by its slug.",
        {"slug": SLUG},
        ("slug",),
        _knowledge_read,
    ),
    Tool(
        "knowledge_write",
        "Create or update a knowledge document (full markdown), to save new knowledge or improve a document.",
        {
            "slug": SLUG,
            "content": {"type": "string", "minLength": 1, "description": "Full markdown, at most 64 KB."},
        },
        ("slug", "content"),
        _knowledge_write,
    ),
    Tool(
        "knowledge_list",
        "List the documents in your knowledge base with their titles and last update.",
        {},
        (),
        _knowledge_list,
    ),
    Tool(
        "search_knowledge_base",
        "Search the knowledge base, including summaries of past conversations and documents.",
        {
            "query": QUERY,
            "search_type": {
                "type": "string",
                "enum": ["conversations", "documents", "all"],
                "default": "all",
                "description": "Type of content to search.",
            },
            "limit": LIMIT,
            "session_id": {
                "type": "string",
                "maxLength": 200,
                "description": "The current session: its own archived conversation is left out.",
            },
        },
        ("query",),
        _search_knowledge_base,
    ),
)
