"""The MCP server (streamable HTTP, at /mcp/): the bot tools of :mod:`memories.tools` for any MCP client, built on
the official ``mcp`` SDK. ``server`` lists and calls the tools, ``gate`` authenticates each request with the bot's
key (and an optional ``X-User-Id``), ``app`` is the ASGI application the project mounts."""
