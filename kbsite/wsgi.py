"""WSGI entry point."""

import logging
import os
import threading

from django.core.wsgi import get_wsgi_application

from kbsite import boot
from kbsite.ai import embeddings

# A web process embeds one short query at a time, beside its own database work: one thread is
# faster there (p95 33 ms against 46 ms with two on 2 cores) than threads that wait for each other.
os.environ.setdefault("EMBEDDING_THREADS", "1")
boot.prepare()
application = get_wsgi_application()


def _prepare_query_path() -> None:
    """Load the model and trace its query path, so a web process's first recall does not wait 2-3 s for it.
    Runs beside the process's first requests rather than before them: the admin answers at once."""
    try:
        embeddings.embed_query("what do you remember")
    except Exception:  # an unreachable remote backend: the requests that need it will say so (503)
        logging.getLogger(__name__).warning("could not prepare query embedding at start", exc_info=True)


warming = threading.Thread(target=_prepare_query_path, name="prepare-query-embedding", daemon=True)
warming.start()
