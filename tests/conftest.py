"""Shared fixtures: bots with real API keys, and an HTTP client against a live server."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import requests

from tests.factories import BotFactory, KnowledgeBaseFactory


@dataclass
class ApiClient:
    """A real HTTP client for the API of the live test server, authenticated as one bot."""

    base_url: str
    key: str | None
    bot: object = None

    def _headers(self, extra: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        headers.update(extra or {})
        return headers

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = self._headers(kwargs.pop("headers", None))
        return requests.request(method, f"{self.base_url}{path}", headers=headers, timeout=60, **kwargs)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


@pytest.fixture(scope="session")
def django_db_modify_db_settings():
    """No persistent connections in tests: the live server's thread must not hold the test DB open."""
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0


@pytest.fixture
def bot(transactional_db):
    return BotFactory(name="alpha")


@pytest.fixture
def other_bot(transactional_db):
    return BotFactory(name="beta")


@pytest.fixture
def api(live_server, bot) -> ApiClient:
    _, plain = bot.issue_key()
    return ApiClient(base_url=live_server.url, key=plain, bot=bot)


@pytest.fixture
def other_api(live_server, other_bot) -> ApiClient:
    _, plain = other_bot.issue_key()
    return ApiClient(base_url=live_server.url, key=plain, bot=other_bot)


@pytest.fixture
def anon(live_server) -> ApiClient:
    return ApiClient(base_url=live_server.url, key=None)


@pytest.fixture
def kb(bot):
    return KnowledgeBaseFactory(bot=bot, name="notes")


@pytest.fixture
def other_kb(other_bot):
    return KnowledgeBaseFactory(bot=other_bot, name="secret")
