"""gunicorn's settings for ``manage.py serve``: the ASGI application under uvicorn workers (kbsite.serving), whose
own error responses (a malformed request line: what no view sees) are JSON, like every API error."""

from __future__ import annotations

worker_class = "kbsite.serving.Worker"
timeout = 120
graceful_timeout = 20
accesslog = "-"
