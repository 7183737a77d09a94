"""Tools for bots (seeds 002 and 004): OpenAI function definitions and their execution.

Definitions are built per bot, so the ``kb`` parameter lists exactly the
bot's own knowledge bases; arguments are validated against the same JSON
Schema before anything runs, and every tool acts only within the calling
bot's knowledge bases. A call made for one end user (named by the bot, never
by the model) searches that user's own memories and documents plus the shared
ones, and what it writes is theirs; a call for no user sees shared ones only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jsonschema import Draft202012Validator

from kbsite.caller import Caller
from kbsite.models import Bot, KnowledgeBase
from kbsite.text import UnstorableText, text_check
from knowledge import files, services
from knowledge.models import Document
from knowledge.search import chunks_search
from memories import recall
from memories.models import Memory
from memories.services import memory_add, memory_forget, memory_update

LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "default": 5, "description": "Maximum number of results."}


class ToolError(Exception):
    """The call cannot be executed as asked; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict
    required: tuple[str, ...]
    run: Callable[[Caller, list[KnowledgeBase], dict], dict]

    def parameters(self, kb_names: list[str]) -> dict:
        properties = dict(self.properties)
        properties["kb"] = {
            "type": "string",
            "enum": kb_names,
            "description": "Knowledge base to use. Optional when you have only one; searches cover all when omitted.",
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(self.required),
            "additionalProperties": False,
        }

    def definition(self, kb_names: list[str]) -> dict:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters(kb_names)},
        }


def _kbs(bot: Bot) -> list[KnowledgeBase]:
    return list(KnowledgeBase.objects.for_bot(bot).filter(is_active=True).order_by("name"))


def _scope(kbs: list[KnowledgeBase], args: dict) -> list[KnowledgeBase]:
    """The KBs a search covers: the named one, or all of the bot's."""
    if "kb" in args:
        return [kb for kb in kbs if kb.name == args["kb"]]
    return kbs


def _one(kbs: list[KnowledgeBase], args: dict) -> KnowledgeBase:
    """The KB a read or write acts on: the named one, or the only one."""
    if "kb" in args:
        return _scope(kbs, args)[0]
    if len(kbs) == 1:
        return kbs[0]
    raise ToolError(f"'kb' is required: you have {len(kbs)} knowledge bases ({', '.join(kb.name for kb in kbs)})")


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
    scope = _scope(kbs, args)
    results = chunks_search(
        kbs=scope,
        query=args["query"],
        limit=args.get("limit", 5),
        namespaces=["documents"],
        end_user_id=caller.end_user_id,
    )
    return {"results": _hits(results, scope)}


def _knowledge_read(caller, kbs, args):
    kb = _one(kbs, args)
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
    kb = _one(kbs, args)
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
    scope = _scope(kbs, args)
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
    scope = _scope(kbs, args)
    results = chunks_search(
        kbs=scope,
        query=args["query"],
        limit=args.get("limit", 5),
        namespaces=NAMESPACES[args.get("search_type", "all")],
        exclude_session=args.get("session_id"),
        end_user_id=caller.end_user_id,
    )
    return {"results": _hits(results, scope)}


def _memory_search(caller, kbs, args):
    hits = recall.recall(
        recall.RecallQuery(
            kbs=tuple(_scope(kbs, args)),
            text=args["query"],
            k=args.get("limit", 5),
            end_user_id=caller.end_user_id,
            metadata=args.get("metadata"),
        )
    )
    return {
        "results": [
            {"kb": h.kb, "id": h.id, "type": h.type, "kind": h.kind, "text": h.text, "score": round(h.score, 5)}
            for h in hits
        ]
    }


def _memory_add(caller, kbs, args):
    kb = _one(kbs, args)
    memory, created = memory_add(
        kb=kb,
        text=args["text"],
        kind=args.get("kind", Memory.Kind.FACT),
        entities=args.get("entities", []),
        topics=args.get("topics", []),
        metadata=args.get("metadata", {}),
        source="tool",
        end_user=caller.end_user,
    )
    return {"kb": kb.name, "id": memory.pk, "created": created, "quarantined": memory.quarantined}


def _own_memory(caller, kbs, args) -> Memory:
    """The live memory ``args["id"]`` a call may change: in one of the bot's KBs (the named one, if named), and
    the end user's own (or, for no user, a shared one). Anything else is not found."""
    memory = (
        Memory.objects.live()
        .owned_by(caller.end_user_id)
        .filter(pk=args["id"], kb__in=_scope(kbs, args))
        .select_related("kb")
        .first()
    )
    if memory is None:
        raise ToolError(f"no live memory {args['id']} of yours: search for it with memory_search", status=404)
    return memory


def _memory_update(caller, kbs, args):
    memory = _own_memory(caller, kbs, args)
    changes = {name: args[name] for name in ("text", "kind", "entities", "topics", "metadata") if name in args}
    for name in ("entities", "topics"):
        if name in changes:
            changes[name] = sorted({v.strip().lower() for v in changes[name] if v.strip()})
    if not changes:
        raise ToolError("nothing to change: give the new text, kind, entities, topics or metadata")
    version = memory_update(memory=memory, data=changes)
    return {
        "kb": memory.kb.name,
        "id": version.pk,
        "replaces": memory.pk if version.pk != memory.pk else None,
        "text": version.text,
        "quarantined": version.quarantined,
    }


def _memory_forget(caller, kbs, args):
    memory = _own_memory(caller, kbs, args)
    memory_forget(memory=memory, reason=args["reason"])
    return {"kb": memory.kb.name, "id": memory.pk, "forgotten": True}


QUERY = {"type": "string", "minLength": 1, "maxLength": 1000, "description": "Search terms or a question."}
MEMORY_ID = {"type": "integer", "minimum": 1, "description": "The memory's id, as memory_search returned it."}
SLUG = {
    "type": "string",
    "pattern": files.SLUG_RE,
    "description": "Document slug (lowercase, hyphens), e.g. 'matrix-tips'.",
}
TAGS = {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "maxItems": 50}
METADATA = {
    "type": "object",
    "maxProperties": 20,
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
    "description": "Labels (key: value) to store with the memory, or, in a search, that a memory must have.",
}

TOOLS = {
    tool.name: tool
    for tool in [
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
        Tool(
            "memory_search",
            "Search your memories (atomic facts remembered from conversations) for ones relevant to a query.",
            {"query": QUERY, "limit": LIMIT, "metadata": METADATA},
            ("query",),
            _memory_search,
        ),
        Tool(
            "memory_add",
            "Remember a fact: one short declarative sentence about the user, their world or a decision.",
            {
                "text": {"type": "string", "minLength": 3, "maxLength": 2000},
                "kind": {"type": "string", "enum": list(Memory.Kind.values), "default": "fact"},
                "entities": TAGS,
                "topics": TAGS,
                "metadata": METADATA,
            },
            ("text",),
            _memory_add,
        ),
        Tool(
            "memory_update",
            "Correct a memory: give its id (from memory_search) and the new text (or kind, entities, topics). The "
            "old wording is kept in its history; the corrected memory gets a new id.",
            {
                "id": MEMORY_ID,
                "text": {"type": "string", "minLength": 3, "maxLength": 2000},
                "kind": {"type": "string", "enum": list(Memory.Kind.values)},
                "entities": TAGS,
                "topics": TAGS,
                "metadata": METADATA,
            },
            ("id",),
            _memory_update,
        ),
        Tool(
            "memory_forget",
            "Forget a memory that is wrong or no longer true: give its id (from memory_search) and why. It is no "
            "longer recalled; an operator can still see and restore it.",
            {"id": MEMORY_ID, "reason": {"type": "string", "minLength": 1, "maxLength": 200}},
            ("id", "reason"),
            _memory_forget,
        ),
    ]
}


WRITES = {"knowledge_write", "memory_add"}  # tools that may name a new end user into existence
CHANGES = WRITES | {"memory_update", "memory_forget"}  # tools a read-only key may not call


def tools_definitions(*, caller: Caller) -> list[dict]:
    """The tools' function definitions for the caller's bot (its KBs named in them); for a read-only key, the
    reading ones."""
    names = [kb.name for kb in _kbs(caller.bot)]
    return [tool.definition(names) for tool in TOOLS.values() if not (caller.read_only and tool.name in CHANGES)]


def tool_execute(*, caller: Caller, name: str, arguments: dict) -> dict:
    """Validate ``arguments`` against the tool's schema and run it within the caller's bot's knowledge bases, for
    its end user (their own and the shared rows; none: the shared ones only). A read-only caller's call of a tool
    that changes anything is refused (403)."""
    tool = TOOLS.get(name)
    if tool is None:
        raise ToolError(f"unknown tool {name!r}; available: {', '.join(TOOLS)}", status=404)
    if caller.read_only and name in CHANGES:
        raise ToolError(f"this key reads only: {name} changes memory or knowledge", status=403)
    kbs = _kbs(caller.bot)
    if not kbs:
        raise ToolError("this bot has no active knowledge base; create one first", status=409)
    try:
        text_check(arguments, "arguments")
    except UnstorableText as exc:
        raise ToolError(f"invalid arguments: {exc}") from exc
    validator = Draft202012Validator(tool.parameters([kb.name for kb in kbs]))
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if errors:
        raise ToolError(
            "invalid arguments: "
            + "; ".join(f"{'/'.join(map(str, e.absolute_path)) or '(arguments)'}: {e.message}" for e in errors[:5])
        )
    if name in WRITES and caller.user_id and caller.end_user is None:
        caller = caller.writing_for(caller.user_id)  # a write names the user into existence
    return tool.run(caller, kbs, arguments)
