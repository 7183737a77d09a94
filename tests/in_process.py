"""The API in the test's own process and transaction: a test that needs no real server (no SDK client, no stream, no
second connection) runs inside a transaction that is rolled back (pytest-django's ``db``) and sends its requests
through Django's test client, instead of truncating every table after it and sending them over HTTP."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from urllib.parse import urlsplit

import requests
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.transaction import Atomic, get_connection
from django.test import Client
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

logger = logging.getLogger(__name__)

# The address of the API for an ApiClient that sends its requests in process (the test client's host).
IN_PROCESS_URL = "http://testserver"


class DjangoTestClientAdapter(BaseAdapter):
    """requests' transport to Django's test client: requests builds the request (body, query, headers) and reads
    the answer (redirects, encoding, ``json()``) as it does over HTTP; the request runs in this thread, on the
    test's connection."""

    def send(self, request: requests.PreparedRequest, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        parts = urlsplit(request.url)
        body = request.body or b""
        # A fresh client per request, checking CSRF like a server: cookies are requests' business.
        answer = Client(enforce_csrf_checks=True).generic(
            request.method,
            f"{parts.path}?{parts.query}" if parts.query else parts.path,
            data=body.encode() if isinstance(body, str) else body,
            content_type=request.headers.get("Content-Type", ""),
            headers=dict(request.headers),
        )
        response = requests.Response()
        response.status_code, response.reason = answer.status_code, answer.reason_phrase
        response.headers = CaseInsensitiveDict(answer.headers.items())
        response.encoding = get_encoding_from_headers(response.headers)
        # Reading a stream to its end closes it, as the test client closes any other answer (request_finished).
        response._content = b"".join(answer.streaming_content) if answer.streaming else answer.content
        response._content_consumed = True
        response.url, response.request, response.connection = request.url, request, self
        return response

    def close(self) -> None:
        pass


def in_process_request(method: str, url: str, **kwargs) -> requests.Response:
    """``requests.request(method, url, **kwargs)`` for a URL under ``IN_PROCESS_URL``, through Django's test
    client."""
    with requests.Session() as session:
        session.mount(IN_PROCESS_URL, DjangoTestClientAdapter())
        return session.request(method, url, **kwargs)


def _at_test_level(connection: BaseDatabaseWrapper) -> bool:
    """Whether the only open atomic blocks are the test's own (pytest-django's ``db``): there, a block of the code
    under test that ends, or a statement outside any, is committed as far as that code can tell."""
    blocks = connection.atomic_blocks
    return bool(blocks) and all(getattr(block, "_from_testcase", False) for block in blocks)


def _commit_hooks_run(connection: BaseDatabaseWrapper) -> None:
    """What a commit does with the callbacks of ``transaction.on_commit`` (Django's ``run_and_clear_commit_hooks``,
    which refuses to run inside the test's transaction): each runs once, in order."""
    if connection.needs_rollback:
        return
    callbacks, connection.run_on_commit = connection.run_on_commit, []
    while callbacks:
        _, func, robust = callbacks.pop(0)
        if not robust:
            func()
            continue
        try:
            func()
        except Exception as e:
            logger.error(f"Error calling {func.__qualname__} in on_commit() (%s).", e, exc_info=True)


@contextmanager
def autocommit_at_the_test_level():
    """Inside the test's transaction (``db``), what the code under test does outside its own atomic blocks behaves
    as in autocommit, as it does with ``transactional_db`` or in production:

    - ``transaction.on_commit`` callbacks run when the outermost atomic block of the code under test ends, and at
      once when registered outside any. Django's TestCase never runs them (its transaction is rolled back), but the
      product queues its jobs on commit, and a test runs them (``run_queued_tasks``) or looks at what a commit does
      (a deleted KB's folder moved away).
    - The connection is not closed as unusable or obsolete (``close_old_connections``: a django-q worker between
      tasks, an async view's database work): closing it would end the test's transaction. Django's test client
      disconnects its requests' own ``close_old_connections`` for the same reason.

    Outside a test's transaction (``transactional_db``) nothing changes."""
    on_commit, atomic_exit = BaseDatabaseWrapper.on_commit, Atomic.__exit__
    close_if_unusable_or_obsolete = BaseDatabaseWrapper.close_if_unusable_or_obsolete

    def on_commit_at_test_level(self, func, robust=False):
        on_commit(self, func, robust)
        if _at_test_level(self):
            _commit_hooks_run(self)

    def atomic_exit_at_test_level(self, exc_type, exc_value, traceback):
        atomic_exit(self, exc_type, exc_value, traceback)
        connection = get_connection(self.using)
        if exc_type is None and not getattr(self, "_from_testcase", False) and _at_test_level(connection):
            _commit_hooks_run(connection)

    def kept_at_test_level(self):
        if not _at_test_level(self):
            close_if_unusable_or_obsolete(self)

    BaseDatabaseWrapper.on_commit, Atomic.__exit__ = on_commit_at_test_level, atomic_exit_at_test_level
    BaseDatabaseWrapper.close_if_unusable_or_obsolete = kept_at_test_level
    try:
        yield
    finally:
        BaseDatabaseWrapper.on_commit, Atomic.__exit__ = on_commit, atomic_exit
        BaseDatabaseWrapper.close_if_unusable_or_obsolete = close_if_unusable_or_obsolete
