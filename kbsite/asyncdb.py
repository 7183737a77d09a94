"""Database work from async code (the chat proxy, the MCP server).

An async view reaches the database in a thread (``sync_to_async``). Django hands a request's connection back only
when the request finishes, which for a stream is when the stream ends: fifty open streams held fifty pooled
connections, and the rest of the API waited for one (PoolTimeout). :func:`in_thread` hands it back at once.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.db import close_old_connections


async def in_thread(fn, /, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a thread, as Django runs a sync view; its connection goes back to the pool (or,
    without a pool, is closed when past its age) as soon as it returns."""

    def run():
        try:
            return fn(*args, **kwargs)
        finally:
            close_old_connections()

    return await sync_to_async(run)()
