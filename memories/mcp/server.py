"""The MCP server's handlers: the same tool registry as ``/api/v1/tools/`` (one implementation, two surfaces), for
the bot (and end user) its request was authenticated as."""

from __future__ import annotations

import json

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from kbsite.asyncdb import in_thread
from kbsite.models import Bot
from memories import tools

INSTRUCTIONS = (
    "Long-term memory and knowledge bases of this bot. Search memories (facts remembered from conversations) with "
    "memory_search, save one with memory_add, correct or forget one with memory_update and memory_forget; read, "
    "write, list and search knowledge documents with the "
    "knowledge_* tools; search past conversations' summaries with search_knowledge_base."
)


def caller(ctx: ServerRequestContext) -> tuple[Bot, str | None]:
    """The bot and end user the gate authenticated this request as."""
    state = ctx.request.scope["state"]
    return state["kbsite_bot"], state["kbsite_user_id"]


def read_only(ctx: ServerRequestContext) -> bool:
    """Whether the request's key reads only (its calls of the tools that change anything are refused)."""
    return ctx.request.scope["state"]["kbsite_read_only"]


async def list_tools(ctx: ServerRequestContext, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    bot, _ = caller(ctx)
    definitions = await in_thread(tools.tools_definitions, bot=bot, read_only=read_only(ctx))
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


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    """Run a tool; what it refuses (bad arguments, another bot's KB, an unknown document) is a tool error whose
    message says why, for the agent to read."""
    bot, user_id = caller(ctx)
    try:
        result = await in_thread(
            tools.tool_execute,
            bot=bot,
            name=params.name,
            arguments=dict(params.arguments or {}),
            user_id=user_id,
            read_only=read_only(ctx),
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
