"""The MCP server's handlers: the same tool registry as ``/api/v1/tools/`` (one implementation, two surfaces), for
the bot (and end user) its request was authenticated as."""

from __future__ import annotations

import json

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from kbsite import replicas
from kbsite.asyncdb import in_thread
from kbsite.caller import Caller
from kbsite.stats import usage_metered
from memories import tools

INSTRUCTIONS = (
    "Long-term memory and knowledge bases of this bot. Search memories (facts remembered from conversations) with "
    "memory_search, save one with memory_add, correct or forget one with memory_update and memory_forget; read, "
    "write, list and search knowledge documents with the "
    "knowledge_* tools; search past conversations' summaries with search_knowledge_base."
)


def caller(ctx: ServerRequestContext) -> Caller:
    """Who the gate authenticated this request as: the bot, its key, the end user it serves."""
    return ctx.request.scope["state"]["kbsite_caller"]


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    definitions = await in_thread(tools.tools_definitions, caller=caller(ctx))
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=d["function"]["name"],
                description=d["function"]["description"],
                input_schema=d["function"]["parameters"],
            )
            for d in definitions
        ]
    )


def tool_metered(*, caller: Caller, name: str, arguments: dict) -> dict:
    """Execute a tool as ``POST /api/v1/tools/{name}/`` does, metered the same way: one request of the bot for its
    end user (a tool may reach any of the bot's KBs: no one KB's) with what it spent; its LLM tokens count against
    the bot's budget while it runs. A refused call (:class:`~memories.tools.ToolError`) counts nothing. As there,
    a tool that changes nothing reads from a replica that has replayed the bot's last write (and again from the
    primary if that replica fails mid-call); one that changes something leaves the bot's mark."""
    changes = name in tools.CHANGES

    def execute() -> dict:
        return tools.tool_execute(caller=caller, name=name, arguments=arguments)

    with usage_metered(bot_id=caller.bot.pk, end_user_id=caller.end_user_id):
        result = execute() if changes else replicas.read(caller.bot.pk, execute)
    if changes:
        replicas.written(caller.bot.pk)  # the API's next reads of this bot see what the tool changed
    return result


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    """Run a tool; what it refuses (bad arguments, another bot's KB, an unknown document) is a tool error whose
    message says why, for the agent to read."""
    try:
        result = await in_thread(
            tool_metered, caller=caller(ctx), name=params.name, arguments=dict(params.arguments or {})
        )
    except tools.ToolError as exc:
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))], is_error=True)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False, default=str))],
        structured_content=result,
    )


server = Server(
    "kbsite",
    title="kbsite memory",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)
