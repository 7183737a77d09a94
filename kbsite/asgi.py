"""ASGI entry point (``manage.py serve`` runs it under gunicorn with uvicorn workers; see kbsite.serving).

``/mcp`` (and ``/mcp/``) goes to the MCP server, which also gets the server's lifespan (its SDK keeps a task group);
the chat proxy (``/openai/``, ``/anthropic/``), whose async views stream on the event loop, to Django's ASGI
handler; everything else (the API, the admin, static files) to Django's sync handler, each request in a thread of
its own (:class:`kbsite.serving.SyncViews`).
"""

import os

from django.core.asgi import get_asgi_application

from kbsite import boot

# As in kbsite.wsgi: a web process embeds one short query at a time, beside its own database work.
os.environ.setdefault("EMBEDDING_THREADS", "1")
# This process pools its database connections (kbsite.settings.database): its views run each in a thread.
os.environ["KBSITE_WEB_PROCESS"] = "asgi"
boot.prepare()
django_application = get_asgi_application()

from kbsite.errors import PROXY_PREFIXES  # noqa: E402 - after Django is set up
from kbsite.serving import SyncViews, load_views, warm_up_in_background  # noqa: E402
from memories.mcp.app import PATH as MCP_PATH  # noqa: E402
from memories.mcp.app import mcp_application  # noqa: E402


def build_application():
    """The project's ASGI application, with an MCP server of its own (the SDK's runs once per server start)."""
    mcp = mcp_application()
    sync_views = SyncViews()

    async def application(scope, receive, send):
        if scope["type"] == "lifespan" or (scope["type"] == "http" and scope["path"].rstrip("/") == MCP_PATH):
            return await mcp(scope, receive, send)
        if scope["type"] == "http" and not scope["path"].startswith(PROXY_PREFIXES):
            return await sync_views(scope, receive, send)
        return await django_application(scope, receive, send)

    return application


application = build_application()
load_views()
warming = warm_up_in_background()
