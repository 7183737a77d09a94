"""gunicorn's settings for the web tier, for either entry point:

- ``gunicorn kbsite.asgi:application --config python:kbsite.gunicorn_conf`` (what ``manage.py serve`` runs): the
  ASGI application under uvicorn workers (kbsite.serving.Worker), whose own error responses (a malformed request
  line: what no view sees) are JSON, like every API error;
- ``gunicorn kbsite.wsgi --config python:kbsite.gunicorn_conf``: the WSGI application under gunicorn's sync
  workers (kbsite.serving.SyncWorker). A uvicorn worker cannot call a WSGI application (``WSGIHandler.__call__()
  missing 1 required positional argument: 'start_response'``), so the worker class follows the application.

A worker class given on the command line (``-k``) is kept as given.
"""

from __future__ import annotations

ASGI_WORKER = "kbsite.serving.Worker"
WSGI_WORKER = "kbsite.serving.SyncWorker"

worker_class = ASGI_WORKER
timeout = 120
graceful_timeout = 20
accesslog = "-"


def serves_asgi(app_uri: str | None) -> bool:
    """Whether gunicorn was asked for the project's ASGI application (``kbsite.asgi[:application]``)."""
    return (app_uri or "").split(":", 1)[0].strip() == "kbsite.asgi"


def on_starting(server) -> None:
    """The sync worker for any application but ``kbsite.asgi``, unless a worker class was named explicitly."""
    if server.cfg.worker_class_str == ASGI_WORKER and not serves_asgi(getattr(server.app, "app_uri", None)):
        server.cfg.set("worker_class", WSGI_WORKER)
        server.worker_class = server.cfg.worker_class
