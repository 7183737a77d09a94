"""The memory tools: search the memories a call may see, add one, correct one (a new version), forget one."""

from __future__ import annotations

from memories import recall
from memories.models import Memory
from memories.services import memory_add, memory_forget, memory_update
from memories.tools.registry import LIMIT, QUERY, Tool, ToolError, one_kb, register, scope_kbs

MEMORY_ID = {"type": "integer", "minimum": 1, "description": "The memory's id, as memory_search returned it."}
TAGS = {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "maxItems": 50}
METADATA = {
    "type": "object",
    "maxProperties": 20,
    "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
    "description": "Labels (key: value) to store with the memory, or, in a search, that a memory must have.",
}


def _memory_search(caller, kbs, args):
    hits = recall.recall(
        recall.RecallQuery(
            kbs=tuple(scope_kbs(kbs, args)),
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
    kb = one_kb(kbs, args)
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
        .filter(pk=args["id"], kb__in=scope_kbs(kbs, args))
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


register(
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
)
