"""Refuse requests that cannot be served before anything reads them: oversized bodies (413) and URLs whose path or
query holds text that cannot be stored (400), each with a message in the caller's error shape (:mod:`kbsite.errors`):
JSON for the API, OpenAI's or Anthropic's for the chat proxy. Both middlewares here run in the request's own mode
(sync under WSGI, async under ASGI), so an async view (the proxy's) never waits in a thread for them."""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.http import HttpResponseBadRequest
from django.urls import Resolver404, resolve
from whitenoise.middleware import WhiteNoiseMiddleware

from kbsite.errors import JSON_PREFIXES, PROXY_PREFIXES, error_json
from kbsite.text import UnstorableText, text_check


def _slash_added(request) -> None:
    """An API URL without its trailing slash is served as with it ("POST /api/v1/kbs/notes/messages"): Django's
    APPEND_SLASH would answer a redirect, which a client follows without the body (a POST becomes a GET)."""
    path = request.path_info
    if not path.startswith(JSON_PREFIXES) or path.endswith("/"):
        return
    urlconf = getattr(request, "urlconf", None)
    try:
        resolve(path, urlconf)
        return
    except Resolver404:
        pass
    try:
        resolve(f"{path}/", urlconf)
    except Resolver404:
        return
    request.path_info, request.path = f"{path}/", f"{request.path}/"


class RequestGuardMiddleware:
    """DRF's JSON parser reads the request stream directly, which bypasses Django's DATA_UPLOAD_MAX_MEMORY_SIZE check,
    so the body limit is enforced here for every API and proxy call: 413 with a JSON message, never a half-read body
    or a 500. A NUL or a lone surrogate in the URL would reach a query and fail there: refused here, for every page."""

    sync_capable = async_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self._acall(request)
        _slash_added(request)
        return self._refused(request) or self.get_response(request)

    async def _acall(self, request):
        _slash_added(request)
        return self._refused(request) or await self.get_response(request)

    def _refused(self, request):
        json = request.path.startswith(JSON_PREFIXES)
        try:
            text_check({"path": request.path, "query": {key: request.GET.getlist(key) for key in request.GET}})
        except UnstorableText as exc:
            message = f"The URL's {exc}."
            return error_json(request, 400, message) if json else HttpResponseBadRequest(message)
        return self._body_size_checked(request) if json else None

    def _body_size_checked(self, request):
        content_type = request.META.get("CONTENT_TYPE", "")
        # Uploads, imports and chat requests (long conversations, images) may be larger than a JSON call.
        large = content_type.startswith(("multipart/", "application/x-ndjson")) or request.path.startswith(
            PROXY_PREFIXES
        )
        limit = settings.MAX_UPLOAD_BYTES if large else settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return error_json(request, 400, "Content-Length header is not a number.")
        if length > limit:
            return error_json(
                request, 413, f"Request body is {length} bytes; the limit for this kind of request is {limit} bytes."
            )
        return None


class StaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise's static files (the admin's, the API docs'), in the request's own mode: WhiteNoise itself is
    sync-only, which under ASGI would put every request, the proxy's streams included, through a thread."""

    sync_capable = async_capable = True

    def __init__(self, get_response=None):
        super().__init__(get_response)
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self._acall(request)
        return super().__call__(request)

    async def _acall(self, request):
        static_file = self.find_file(request.path_info) if self.autorefresh else self.files.get(request.path_info)
        if static_file is not None:  # served at once from a file: nothing else waits on it
            return self.serve(static_file, request)
        return await self.get_response(request)
