"""ASGI entry point."""

from django.core.asgi import get_asgi_application

from kbsite import boot

boot.prepare()
application = get_asgi_application()
