"""How the web tier is served: ASGI under gunicorn with uvicorn workers (``manage.py serve``).

ASGI, so that the chat proxy's streams and the MCP server wait on the network without holding a thread each, while
every other view runs as before in a thread of its own. A web process prepares the query embedding as it starts;
a request that no view sees (a malformed request line) is answered in JSON, like every API error.
"""

from __future__ import annotations

import json
import logging
import threading

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker

logger = logging.getLogger(__name__)


def load_views() -> None:
    """Import every view now (Django would on the first request: with the admin, the API and its schema, 3-4 s),
    so that the process's first request is answered as fast as the next ones."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - the property imports them


# Set once this process has prepared its query embedding (or found it cannot): until then a recall may wait for
# the model, and the process loads it beside its requests (/api/health/ says which).
warm = threading.Event()


def warm_up_in_background() -> threading.Thread:
    """Load the embedding model and trace its query path beside the process's first requests, so that the first
    recall does not wait 2-3 s for it (the admin answers at once)."""
    from kbsite.ai import embeddings

    def prepare() -> None:
        try:
            embeddings.embed_query("what do you remember")
        except Exception:  # an unreachable remote backend: the requests that need it will say so (503)
            logger.warning("could not prepare query embedding at start", exc_info=True)
        finally:
            warm.set()

    thread = threading.Thread(target=prepare, name="prepare-query-embedding", daemon=True)
    thread.start()
    return thread


class JsonErrorsProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol, answering a request it cannot parse with a JSON error instead of plain text."""

    def send_400_response(self, msg: str) -> None:
        body = json.dumps({"detail": f"Bad Request: {msg}"}).encode()
        head = (
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        self.transport.write(head + body)
        self.transport.close()


class Worker(UvicornWorker):
    """gunicorn's worker for ``kbsite.asgi``: uvloop, and the JSON-speaking protocol above."""

    CONFIG_KWARGS = {"loop": "uvloop", "http": "kbsite.serving:JsonErrorsProtocol", "lifespan": "on"}
