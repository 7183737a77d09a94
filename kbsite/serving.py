"""How the web tier is served: ASGI under gunicorn with uvicorn workers (``manage.py serve``), or WSGI
(``kbsite.wsgi``) under gunicorn's sync workers (:class:`SyncWorker`; kbsite.gunicorn_conf picks the worker).

ASGI, so that the chat proxy's streams and the MCP server wait on the network without holding a thread each, while
every other view runs as before in a thread of its own (:class:`SyncViews`: the whole request in it, as under
WSGI). A web process prepares the query embedding as it starts; a request that no view sees (a malformed request
line) is answered in JSON, like every API error.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from tempfile import SpooledTemporaryFile

from asgiref.sync import AsyncToSync, ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from gunicorn.workers.sync import SyncWorker as GunicornSyncWorker
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


class SyncViews:
    """Django's sync request handler (the WSGI one) served from ASGI: a request's middleware, signals and view run
    in one thread of their own, as under WSGI, and a plain response is sent from the event loop once it is ready.

    Django's ASGI handler runs each sync middleware's request and response halves, the request signals and the
    view in a thread, one hop each between the event loop and the thread: a health check took 4.6 ms against 1.5
    under WSGI, and an authenticated call 3 ms more than needed. Async views (the chat proxy's) stay with it.
    A streamed response (an export) is sent chunk by chunk from the thread.
    """

    def __init__(self) -> None:
        self.handler = WSGIHandler()

    async def __call__(self, scope, receive, send) -> None:
        with SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as body:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return  # gone before its body came: nobody to answer
                body.write(message.get("body", b""))
                if not message.get("more_body"):
                    break
            body.seek(0)
            # A thread of this request's own, as Django's ASGI handler gives each request.
            async with ThreadSensitiveContext():
                answer = await sync_to_async(self._respond, thread_sensitive=True)(scope, body, AsyncToSync(send))
        if answer is not None:
            start, content = answer
            await send(start)
            await send({"type": "http.response.body", "body": content})

    def _respond(self, scope, body, send_from_thread):
        """The response to the request as (start message, body), or None once a streamed one has been sent."""
        environ = wsgi_environ(scope, body)
        start = {}

        def start_response(status, headers, exc_info=None):
            start.update(
                type="http.response.start",
                status=int(status.split(" ", 1)[0]),
                headers=[(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
            )

        response = self.handler(environ, start_response)
        try:  # closing the response ends the request: request_finished hands its database connection back
            if not getattr(response, "streaming", False):
                return start, b"".join(response)
            send_from_thread(start)
            for chunk in response:
                if chunk:
                    send_from_thread({"type": "http.response.body", "body": chunk, "more_body": True})
            send_from_thread({"type": "http.response.body"})
            return None
        finally:
            response.close()


def wsgi_environ(scope: dict, body) -> dict:
    """The WSGI environ of an ASGI HTTP request (PEP 3333: text as latin-1 of its UTF-8 bytes), ``body`` its input."""
    script_name = scope.get("root_path", "").encode("utf-8", "surrogateescape").decode("latin-1")
    path_info = scope["path"].encode("utf-8", "surrogateescape").decode("latin-1")
    if script_name and path_info.startswith(script_name):
        path_info = path_info[len(script_name) :]
    server = scope.get("server") or ("localhost", 80)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1] or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": body,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if scope.get("client"):
        environ["REMOTE_ADDR"] = scope["client"][0]
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        name = name if name in ("CONTENT_LENGTH", "CONTENT_TYPE") else f"HTTP_{name}"
        value = raw_value.decode("latin-1")
        environ[name] = f"{environ[name]},{value}" if name in environ else value
    return environ


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

    def load_wsgi(self):
        super().load_wsgi()  # the application, and with it Django, is loaded
        from kbsite.stats import stats_buffered

        stats_buffered()  # a request writes no daily statistics row of its own (kbsite.stats)


class SyncWorker(GunicornSyncWorker):
    """gunicorn's sync worker for ``kbsite.wsgi`` (``gunicorn kbsite.wsgi --config python:kbsite.gunicorn_conf``):
    one request at a time per process, the daily statistics buffered as under :class:`Worker`."""

    def load_wsgi(self):
        super().load_wsgi()
        from kbsite.stats import stats_buffered

        stats_buffered()
