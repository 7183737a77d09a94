"""WSGI entry point."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kbsite.settings")
# A web process embeds one short query at a time, beside its own database work: one thread is
# faster there (p95 33 ms against 46 ms with two on 2 cores) than threads that wait for each other.
os.environ.setdefault("EMBEDDING_THREADS", "1")
application = get_wsgi_application()
