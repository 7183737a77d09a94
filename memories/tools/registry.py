"""The bot tools' registry: what a tool is (its JSON Schema, the function that runs it), the tools registered by
:mod:`memories.tools.knowledge` and :mod:`memories.tools.memory`, their definitions for a bot, and their execution.

Definitions are built per bot, so the ``kb`` parameter lists exactly the bot's own knowledge bases; arguments are
validated against the same JSON Schema before anything runs, and every tool acts only within the calling bot's
knowledge bases. A call made for one end user (named by the bot, never by the model) searches that user's own
memories and documents plus the shared ones, and what it writes is theirs; a call for no user sees shared ones only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jsonschema import Draft202012Validator

from kbsite.caller import Caller
from kbsite.models import Bot, KnowledgeBase
from kbsite.text import UnstorableText, text_check

LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "default": 5, "description": "Maximum number of results."}
QUERY = {"type": "string", "minLength": 1, "maxLength": 1000, "description": "Search terms or a question."}


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


TOOLS: dict[str, Tool] = {}  # by name, in the order registered: the order of their definitions


def register(*tools: Tool) -> None:
    """Add ``tools`` to :data:`TOOLS`."""
    for tool in tools:
        TOOLS[tool.name] = tool


def bot_kbs(bot: Bot) -> list[KnowledgeBase]:
    """The bot's active knowledge bases, by name: what its tools act within."""
    return list(KnowledgeBase.objects.for_bot(bot).filter(is_active=True).order_by("name"))


def scope_kbs(kbs: list[KnowledgeBase], args: dict) -> list[KnowledgeBase]:
    """The KBs a search covers: the named one, or all of the bot's."""
    if "kb" in args:
        return [kb for kb in kbs if kb.name == args["kb"]]
    return kbs


def one_kb(kbs: list[KnowledgeBase], args: dict) -> KnowledgeBase:
    """The KB a read or write acts on: the named one, or the only one."""
    if "kb" in args:
        return scope_kbs(kbs, args)[0]
    if len(kbs) == 1:
        return kbs[0]
    raise ToolError(f"'kb' is required: you have {len(kbs)} knowledge bases ({', '.join(kb.name for kb in kbs)})")


WRITES = {"knowledge_write", "memory_add"}  # tools that may name a new end user into existence
CHANGES = WRITES | {"memory_update", "memory_forget"}  # tools a read-only key may not call


def tools_definitions(*, caller: Caller) -> list[dict]:
    """The tools' function definitions for the caller's bot (its KBs named in them); for a read-only key, the
    reading ones."""
    names = [kb.name for kb in bot_kbs(caller.bot)]
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
    kbs = bot_kbs(caller.bot)
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
