"""The API views' side of read replicas: a request that only reads is served by a replica, a write leaves its mark."""

from __future__ import annotations

from rest_framework import permissions

from kbsite import replicas
from kbsite.models import Bot


class ReplicaReadsMixin:
    """Serves the requests that only read (:meth:`reads_only`) from a replica that has replayed the bot's last
    write (:mod:`kbsite.replicas`); if that replica fails mid-request, the request runs again on the primary.
    After any other request that succeeded, keeps where the bot's write left the primary's WAL. Every API view
    has it (a test walks the URLs); without replicas it does nothing."""

    _replica_token = None

    def reads_only(self, request) -> bool:
        """Safe methods, and the POSTs the view declares as reads (``read_actions``: recall, ask, a tool call that
        changes nothing)."""
        if request.method in permissions.SAFE_METHODS:
            return True
        return (getattr(self, "action", None) or request.method.lower()) in getattr(self, "read_actions", ())

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authenticated, allowed, not throttled
        if replicas.configured() and self.reads_only(request):
            self._replica_token = replicas.reading_start(request.user.pk)

    def handle_exception(self, exc):
        if self._replica_token is not None and replicas.lost(exc):
            handler = getattr(self, self.request.method.lower(), self.http_method_not_allowed)
            try:
                return handler(self.request, *self.args, **self.kwargs)  # again, on the primary
            except Exception as again:  # noqa: BLE001 - answered as any error of the view is
                exc = again
        return super().handle_exception(exc)

    def dispatch(self, request, *args, **kwargs):
        try:
            return super().dispatch(request, *args, **kwargs)
        finally:
            # Whatever the view raised: a thread that serves one request after another (WSGI) must not carry
            # this one's replica into the next.
            if self._replica_token is not None:
                replicas.reading_end(self._replica_token)
                self._replica_token = None

    def finalize_response(self, request, response, *args, **kwargs):
        if (
            self._replica_token is None
            and replicas.configured()
            and response.status_code < 400
            and isinstance(getattr(request, "user", None), Bot)
            and not self.reads_only(request)
        ):
            replicas.written(request.user.pk)
        return super().finalize_response(request, response, *args, **kwargs)
