"""Tools for bots (seeds 002 and 004): OpenAI function definitions and their execution.

The registry (``registry``: what a tool is, their definitions for a bot, their execution within its knowledge bases)
and the tools themselves, registered in this order: the knowledge tools (``knowledge``), then the memory tools
(``memory``).
"""

from memories.tools import knowledge, memory
from memories.tools.registry import CHANGES, TOOLS, WRITES, Tool, ToolError, tool_execute, tools_definitions

__all__ = [
    "CHANGES",
    "TOOLS",
    "WRITES",
    "Tool",
    "ToolError",
    "knowledge",
    "memory",
    "tool_execute",
    "tools_definitions",
]
