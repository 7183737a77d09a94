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

from asgiref.sync import ThreadSensitiveContext, sync_to_async
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
    recall does not wait 2-3 s for it (the admin answers at once); the language detector, which posted turns and
    every question need (0.7 s to load); and the place names a question asking where needs (0.3 s)."""
    from kbsite.ai import embeddings
    from kbsite.languages import detection, places

    def prepare() -> None:
        try:
            detection.detect("what do you remember of me")
            places.places_named("Where in Lisbon?")
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
    in one thread of their own, as under WSGI, and the response is sent from the request's own task on the event
    loop.

    Django's ASGI handler runs each sync middleware's request and response halves, the request signals and the
    view in a thread, one hop each between the event loop and the thread: a health check took 4.6 ms against 1.5
    under WSGI, and an authenticated call 3 ms more than needed. Async views (the chat proxy's) stay with it.

    A streamed response (a static file, an export) is read in the request's thread a piece at a time and each piece
    sent from the task: never from the thread through ``AsyncToSync``. Completing a response can start the next
    request pipelined on its connection (uvicorn does, inside ``send``), in the sender's context: sent through
    ``AsyncToSync`` that context held the finished thread's executor, and the next request's ``sync_to_async`` failed
    on it ("CurrentThreadExecutor already quit or is broken": 500s on keep-alive connections, issue 31). The last
    message goes out after the request's thread-sensitive context is left, for the same reason.
    """

    def __init__(self) -> None:
        self.handler = WSGIHandler()

    async def __call__(self, scope, receive, send) -> None:
        with SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as body:
            if not await read_body(receive, body):
                return  # gone before its body came: nobody to answer
            # A thread of this request's own, as Django's ASGI handler gives each request.
            async with ThreadSensitiveContext():
                start, content, stream = await in_request_thread(self._respond)(scope, body)
                if stream is not None:
                    content = await send_all_but_last(start, content, stream, send)
                    start = None
        if start is not None:
            await send(start)
        await send({"type": "http.response.body", "body": content})

    def _respond(self, scope, body) -> tuple[dict, bytes, StreamedBody | None]:
        """The response's start message and its body, whole (the response closed: its request is over), or for a
        streamed response its first piece and the rest still to read (see :class:`StreamedBody`)."""
        environ = wsgi_environ(scope, body)
        start = {}

        def start_response(status, headers, exc_info=None):
            start.update(
                type="http.response.start",
                status=int(status.split(" ", 1)[0]),
                headers=[(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
            )

        response = self.handler(environ, start_response)
        if getattr(response, "streaming", False):
            stream = StreamedBody(response)
            first = stream.read()
            return start, first, stream if stream.open else None
        try:
            return start, b"".join(response), None
        finally:  # closing the response ends the request: request_finished hands its database connection back
            response.close()


def in_request_thread(function):
    """``function`` run in the thread of the request's thread-sensitive context (its middleware's and view's)."""
    return sync_to_async(function, thread_sensitive=True)


async def read_body(receive, body) -> bool:
    """Writes the request's body into ``body``, rewound; False if the client left before it was all there."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return False
        body.write(message.get("body", b""))
        if not message.get("more_body"):
            body.seek(0)
            return True


async def send_all_but_last(start: dict, first: bytes, stream: StreamedBody, send) -> bytes:
    """Sends a streamed response's start and its pieces, read from the request's thread, but the last: returned, to
    be sent once the request's context is left. The response is closed in that thread whatever happens."""
    piece = first
    try:
        await send(start)
        while stream.open:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            piece = await in_request_thread(stream.read)()
    finally:
        if stream.open:  # the client or the view failed midway
            await in_request_thread(stream.close)()
    return piece


class StreamedBody:
    """A streamed response's body, read in its request's thread a piece at a time: its chunks joined up to
    ``PIECE`` bytes, so that a static file (read 4 KiB a chunk) crosses to the event loop in a few pieces, not chunk
    by chunk. Closed (which ends its request) once read to the end, or when given up."""

    PIECE = 64 * 1024

    def __init__(self, response) -> None:
        self.response = response
        self.chunks = iter(response)
        self.open = True

    def read(self) -> bytes:
        """The next piece, the last one once :attr:`open` is False (possibly empty)."""
        piece, size = [], 0
        try:
            for chunk in self.chunks:
                piece.append(chunk)
                size += len(chunk)
                if size >= self.PIECE:
                    return b"".join(piece)
        except BaseException:
            self.close()
            raise
        self.close()
        return b"".join(piece)

    def close(self) -> None:
        """Closes the response once (each close sends request_finished)."""
        if self.open:
            self.open = False
            self.response.close()


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
    """gunicorn's worker for ``kbsite.asgi``: uvloop, the JSON-speaking protocol above, and each request in a
    context of its own (``reset_contextvars``): uvicorn starts a request pipelined on a connection from inside the
    ``send`` that completes the previous one, whose task's context it would otherwise inherit (Django's ASGI
    handler sends inside its request's thread-sensitive context, which the next request would then share)."""

    CONFIG_KWARGS = {
        "loop": "uvloop",
        "http": "kbsite.serving:JsonErrorsProtocol",
        "lifespan": "on",
        "reset_contextvars": True,
    }

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
