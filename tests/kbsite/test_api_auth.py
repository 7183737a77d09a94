"""Authentication and isolation on every route of the API, generated from the URLconf: no key, another bot's key, a
read-only key and a key of one end user, each against every route and method of /api/v1/ (its path filled with the
first bot's real objects), and the first bot's own key as the control that each request reaches what it names. A
route added to the URLconf is in the matrix by itself; one the matrix cannot fill or send fails
test_every_route_is_in_the_matrix until it is added to the tables below."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.urls import URLResolver, get_resolver, reverse
from rest_framework.permissions import SAFE_METHODS

from kbsite.keys import key_issue
from kbsite.models import ApiKey, Bot, EndUser, Erasure, JobRun, KnowledgeBase, WebhookDelivery, WebhookEndpoint
from knowledge.models import Document
from memories import consolidation
from memories.models import IngestItem, Insight, Memory, Message, ReviewItem, Session
from memories.reviews.records import conflict_open
from memories.services import memories_embed_missing
from tests.conftest import ApiClient
from tests.factories import InsightFactory, KnowledgeBaseFactory, MemoryFactory, MessageFactory, SessionFactory

# Every row of the first bot's that a route can show holds this word, and no request of the matrix sends it: a
# response of another caller that holds it has leaked the first bot's data.
SECRET = "zanzibar"
# Routes and methods of /api/v1/ today; fewer means the URLconf walk lost some.
ROUTE_FLOOR = 64


@dataclass(frozen=True)
class Route:
    """One route and method of the API, as the URLconf and its view declare it."""

    name: str
    method: str
    view: type
    action: str  # the viewset's action, or the method of a plain view
    kwargs: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.method.upper()} {self.name}"

    @property
    def safe(self) -> bool:
        return self.method.upper() in SAFE_METHODS

    @property
    def reads(self) -> bool:
        """Whether a read-only key may make this request: a safe method, or a POST the view declares a read."""
        return self.safe or self.action in getattr(self.view, "read_actions", ())

    @property
    def end_users(self) -> bool:
        """Whether a key of one end user may make this request (the view's ``end_user_actions``)."""
        return self.action in getattr(self.view, "end_user_actions", ())


def _walk(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def url_patterns(prefix: str):
    """The URL patterns of the URLconf under ``prefix``, with their full route."""
    return [(route, pattern) for route, pattern in _walk(get_resolver().url_patterns) if route.startswith(prefix)]


# Requests whose effect has to come after the others' (they remove what other routes name), in this order.
LAST = [
    "DELETE memory-detail",
    "POST kb-clear",
    "DELETE document-detail",
    "DELETE key-detail",
    "DELETE end-user-key-detail",
    "DELETE kb-detail",
    "DELETE webhook-detail",
    "DELETE end-user-detail",  # alice's key goes with her
]


# Requests that have to come before the other writes, in this order: the job waiting for the LLM budget is taken up
# by any save of the bot's settings (PATCH bot; here no LLM is configured, so nothing waits).
FIRST = ["POST job-run-offline"]


def _order(route: Route) -> tuple:
    if route.id in LAST:
        return (3, LAST.index(route.id))
    if route.id in FIRST:
        return (1, FIRST.index(route.id))
    return (0 if route.safe else 2, route.name, route.method)


def api_routes() -> list[Route]:
    """Every route and method of /api/v1/ (not the format-suffix copies of the router, HEAD or OPTIONS), the
    requests that remove something last."""
    routes: dict[tuple[str, str], Route] = {}
    for route, pattern in url_patterns("api/v1/"):
        kwargs = tuple(pattern.pattern.regex.groupindex)
        if "format" in kwargs:
            continue
        view = getattr(pattern.callback, "cls", None)
        assert view is not None and pattern.name, f"{route}: not a named DRF view, the matrix cannot read it"
        actions = getattr(pattern.callback, "actions", None) or {
            method: method for method in view.http_method_names if hasattr(view, method)
        }
        for method, action in actions.items():
            if method in ("head", "options") or method not in view.http_method_names:
                continue
            routes[(pattern.name, method)] = Route(pattern.name, method, view, action, kwargs)
    return sorted(routes.values(), key=_order)


ROUTES = api_routes()

# What fills each path parameter (a value, or a function of the world giving it): the first bot's objects (see
# ``world``). ``pk`` depends on the route.
PATH_VALUES: dict[str, str | Callable] = {
    "kb_name": "notes",
    "user_id": "alice",
    "slug": "plans",
    "delivery_id": lambda world: world.webhook.deliveries.earliest("pk").pk,
}
NAME_VALUES = {"tool-call": "memory_search"}  # ``name`` is a KB's, except on these routes
PKS = {
    "job-detail": "job",
    "job-retry": "job",
    "job-run-offline": "waiting_job",
    "key-detail": "spare_key",
    "end-user-key-detail": "alice_spare_key",
    "memory-detail": "memory",
    "memory-history": "memory",
    "memory-restore": "retired",
    "memory-retire": "to_retire",
    "insight-detail": "insight",
    "review-detail": "review",
    "review-accept": "review_to_accept",
    "review-revert": "review_to_revert",
    "review-keep-both": "review_to_keep",
    "webhook-detail": "webhook",
    "webhook-rotate-secret": "webhook",
    "webhook-deliveries": "webhook",
    "webhook-redeliver": "webhook",
}

# What each request sends (requests' keyword arguments, or a function of the world giving them): every write is
# listed; a read only if it needs parameters. None of them holds SECRET.
REQUESTS: dict[str, dict | Callable] = {
    "GET context": {"params": {"query": "Where is the launch code?"}},
    "POST archive": {"json": {"session_id": "s1"}},
    "POST document-list": {"json": {"content": "# More\n\nMore notes.\n", "slug": "more"}},
    "POST document-reindex": {},
    "POST document-search": {"json": {"query": "plans"}},
    "PUT document-detail": {"json": {"content": "# Plans\n\nEdited plans.\n"}},
    "DELETE document-detail": {},
    "POST end-user-key-list": {"json": {"name": "tablet"}},
    "DELETE end-user-key-detail": {},
    "DELETE end-user-detail": {},
    "POST job-retry": {},
    "POST job-run-offline": {},
    "POST kb-list": {"json": {"name": "fresh"}},
    "PATCH bot": {"json": {"description": "edited"}},
    "PATCH kb-detail": {"json": {"description": "edited"}},
    "DELETE kb-detail": {},
    "POST kb-ask": {"json": {"question": "Where is the launch code?"}},
    "POST kb-clear": {},
    "POST kb-consolidate": {},
    "POST kb-import-": lambda world: {"data": world.export(), "headers": {"Content-Type": "application/x-ndjson"}},
    "POST kb-ingest": {"json": {"text": "Alice plays chess on Sundays."}},
    "POST kb-messages": {"json": {"session_id": "s9", "messages": [{"external_id": "m9", "content": "I moved."}]}},
    "POST kb-recall": {"json": {"query": "launch code"}},
    "POST key-list": {"json": {"name": "rotated"}},
    "DELETE key-detail": {},
    "PATCH memory-detail": {"json": {"text": "The launch code is in the red folder."}},
    "DELETE memory-detail": {},
    "POST memory-restore": {},
    "POST memory-retire": {"json": {"reason": "wrong"}},
    "POST tool-call": {"json": {"arguments": {"query": "launch code"}}},
    "POST review-accept": {},
    "POST review-revert": {},
    "POST review-keep-both": {},
    "POST webhook-list": {"json": {"url": "https://93.184.216.34/hook", "events": ["document.indexed"]}},
    "PATCH webhook-detail": {"json": {"description": "edited"}},
    "DELETE webhook-detail": {},
    "POST webhook-rotate-secret": {},
    "POST webhook-redeliver": {},
}

# Routes whose answer holds none of the bot's rows even for the bot itself (so SECRET is not looked for).
NOTHING_TO_SHOW = {"GET api-root", "GET tools", "GET end-user-list", "GET end-user-detail", "GET usage"}
# Routes that name an end user by the id the calling bot gives them: another bot's request is about its own user
# of that name, never the first bot's. Listing and issuing that user's keys answers whether or not the bot has
# heard of them (issuing one names them into existence); the others are a 404 until it has.
OWN_NAMESPACE = {"GET end-user-key-list", "POST end-user-key-list"}

# What the views declare, pinned here so that widening a key's reach is a reviewed change of this test.
READS_BY_POST = {"POST kb-recall", "POST kb-ask", "POST document-search", "POST tool-call"}
END_USERS_MAY = {
    "POST kb-messages",
    "POST kb-ingest",
    "POST kb-recall",
    "POST kb-ask",
    "GET context",
    "GET tools",
    "POST tool-call",
    "GET end-user-detail",
    "GET end-user-export",
    "DELETE end-user-detail",
    "GET review-list",
    "GET review-detail",
    "GET usage",
}


@dataclass
class World:
    """The first bot's objects that the routes name, and keys of every kind."""

    api: ApiClient
    memory: Memory
    to_retire: Memory
    retired: Memory
    insight: Insight
    job: JobRun
    waiting_job: JobRun
    spare_key: ApiKey
    alice_spare_key: ApiKey
    read_only_key: str
    alice_key: str
    review: ReviewItem
    review_to_accept: ReviewItem
    review_to_revert: ReviewItem
    review_to_keep: ReviewItem
    webhook: WebhookEndpoint

    def export(self) -> bytes:
        """The KB's export as it is now (importing it adds nothing)."""
        response = self.api.get("/api/v1/kbs/notes/export/")
        assert response.status_code == 200, response.text
        return response.content

    def path(self, route: Route) -> str:
        values = {}
        for kwarg in route.kwargs:
            if kwarg == "pk":
                assert route.name in PKS, f"{route.id}: say which object its pk is in PKS"
                values[kwarg] = getattr(self, PKS[route.name]).pk
            elif kwarg == "name":
                values[kwarg] = NAME_VALUES.get(route.name, "notes")
            else:
                assert kwarg in PATH_VALUES, f"{route.id}: say what fills {kwarg!r} in PATH_VALUES"
                value = PATH_VALUES[kwarg]
                values[kwarg] = value(self) if callable(value) else value
        return reverse(route.name, kwargs=values)

    def send(self, client: ApiClient, route: Route):
        sent = REQUESTS.get(route.id, {})
        sent = sent(self) if callable(sent) else sent
        return client.request(route.method.upper(), self.path(route), **sent)


@pytest.fixture
def world(api, kb, other_kb) -> World:
    """Bot alpha's KB 'notes' with a memory, its history, an insight, a session, a document, a failed job, a job
    waiting for the LLM budget, end user
    alice with a memory of hers, and spare keys to revoke; bot beta holds its own KB 'secret'."""
    bot = api.bot
    Bot.objects.filter(pk=bot.pk).update(description=f"The {SECRET} bot.")
    KnowledgeBase.objects.filter(pk=kb.pk).update(description=f"The {SECRET} notes.")
    alice = EndUser.objects.seen(bot, "alice")
    memory = MemoryFactory(kb=kb, text=f"The {SECRET} launch code is in the blue folder.")
    to_retire = MemoryFactory(kb=kb, text=f"The {SECRET} door code is 1234.")
    retired = MemoryFactory(kb=kb, text=f"The {SECRET} safe is in the attic.")
    retired.retire(reason="moved")
    MemoryFactory(kb=kb, end_user=alice, text=f"Alice keeps the {SECRET} spare key.")
    reviews = [
        conflict_review(
            MemoryFactory(kb=kb, end_user=alice, text=f"I work at {SECRET} Acme {n}."),
            MemoryFactory(kb=kb, end_user=alice, text=f"I work at {SECRET} Globex {n}."),
        )
        for n in range(4)
    ]
    insight = InsightFactory(kb=kb, memories=[memory], text=f"The {SECRET} codes are kept in folders.")
    MessageFactory(session=SessionFactory(kb=kb, external_id="s1"), content=f"The {SECRET} code is in the folder.")
    memories_embed_missing()
    document = {"content": f"# The {SECRET} plans\n\nThe {SECRET} plans.\n"}
    assert api.request("PUT", "/api/v1/kbs/notes/documents/plans/", json=document).status_code == 201
    job = consolidation.enqueue_consolidation(kb=kb)
    job.finish(status=JobRun.Status.FAILED, error=f"{SECRET}: the provider was down")
    return World(
        api=api,
        memory=memory,
        to_retire=to_retire,
        retired=retired,
        insight=insight,
        job=job,
        waiting_job=JobRun.objects.create(
            kb=kb, kind=JobRun.Kind.INGEST_MESSAGES, status=JobRun.Status.WAITING, error=f"{SECRET}: budget spent"
        ),
        spare_key=key_issue(bot, name=f"{SECRET} spare")[0],
        alice_spare_key=key_issue(bot, name=f"{SECRET} phone", end_user=alice)[0],
        read_only_key=key_issue(bot, name=f"{SECRET} reader", read_only=True)[1],
        alice_key=key_issue(bot, name=f"{SECRET} alice's app", end_user=alice)[1],
        review=reviews[0],
        review_to_accept=reviews[1],
        review_to_revert=reviews[2],
        review_to_keep=reviews[3],
        webhook=webhook_with_a_delivery(bot),
    )


def webhook_with_a_delivery(bot) -> WebhookEndpoint:
    """A webhook endpoint of the bot's (for an event the matrix causes none of), with one delivery in its log."""
    endpoint = WebhookEndpoint.objects.create(
        bot=bot, url="https://93.184.216.34/hook", events=["job.failed"], description=f"The {SECRET} hook."
    )
    WebhookDelivery.objects.create(bot=bot, endpoint=endpoint, event_id=f"evt_{SECRET}", event_type="job.failed")
    return endpoint


def conflict_review(older: Memory, newer: Memory) -> ReviewItem:
    """An open conflict between two of alice's facts."""
    conflict_open(older=older, newer=newer, attribute="employer")
    return ReviewItem.objects.get(older=older, newer=newer)


def state(bot) -> dict:
    """What bot ``bot`` holds, to tell that a refused request changed nothing."""
    rows = {
        "bot": Bot.objects.filter(pk=bot.pk).values_list(
            "name", "description", "requests_per_minute", "llm_tokens_per_day", "when_budget_spent"
        ),
        "kbs": KnowledgeBase.objects.filter(bot=bot).values_list("name", "description", "is_active"),
        "memories": Memory.objects.filter(kb__bot=bot).values_list("id", "text", "retired_at"),
        "insights": Insight.objects.filter(kb__bot=bot).values_list("id", "retired_at"),
        "documents": Document.objects.filter(kb__bot=bot).values_list("slug", "content", "status"),
        "keys": ApiKey.objects.filter(bot=bot).values_list("id", "name", "revoked_at"),
        "users": EndUser.objects.filter(bot=bot).values_list("external_id", flat=True),
        "jobs": JobRun.objects.filter(kb__bot=bot).values_list("id", "status"),
        "sessions": Session.objects.filter(kb__bot=bot).values_list("external_id", flat=True),
        "messages": Message.objects.filter(kb__bot=bot).values_list("id", flat=True),
        "items": IngestItem.objects.filter(kb__bot=bot).values_list("id", flat=True),
        "erasures": Erasure.objects.filter(bot=bot).values_list("id", flat=True),
        "webhooks": WebhookEndpoint.objects.filter(bot=bot).values_list("id", "url", "description", "secret"),
        "deliveries": WebhookDelivery.objects.filter(bot=bot).values_list("id", "event_id", "status"),
    }
    return {name: sorted(values, key=repr) for name, values in rows.items()}


def check_every_route(
    world: World, client: ApiClient, expect: Callable[..., str | None], *, may_change: bool = True
) -> None:
    """Send every route's request with ``client``; ``expect(route, response, users)`` says what is wrong with an
    answer (None: nothing), ``users`` being the end users the client's bot had before the request. A request that
    changed what the first bot holds is wrong if it was refused (4xx), or whatever it answered unless
    ``may_change``. Every wrong answer is listed, not only the first."""
    wrong = []
    for route in ROUTES:
        before = state(world.api.bot)
        users = set(EndUser.objects.filter(bot=client.bot).values_list("external_id", flat=True))
        response = world.send(client, route)
        problem = expect(route, response, users)
        if not problem and (response.status_code >= 400 or not may_change) and state(world.api.bot) != before:
            problem = "CHANGED the first bot's data"
        if problem:
            wrong.append(f"{route.id} {world.path(route)} -> {response.status_code}: {problem}: {response.text[:200]}")
    assert not wrong, "\n".join(wrong)


def test_every_route_is_in_the_matrix():
    """The matrix is the URLconf's: every route and method of /api/v1/ is in it (no fewer than today), each path
    parameter and each write has what the matrix sends, nothing in the tables is stale, and what the views let a
    read-only key and an end user's key do is the reviewed list."""
    ids = {route.id for route in ROUTES}
    assert len(ROUTES) >= ROUTE_FLOOR, sorted(ids)
    assert not [route.id for route in ROUTES if not route.safe and route.id not in REQUESTS], "add to REQUESTS"
    listed = NOTHING_TO_SHOW | OWN_NAMESPACE | set(LAST) | set(FIRST)
    assert not set(REQUESTS) - ids and not listed - ids, "stale entries"
    for route in ROUTES:
        unknown = set(route.kwargs) - {"pk", "name", *PATH_VALUES}
        assert not unknown, f"{route.id}: say what fills {unknown} in PATH_VALUES"
        assert "pk" not in route.kwargs or route.name in PKS, f"{route.id}: say which object its pk is in PKS"
    assert {route.id for route in ROUTES if route.reads and not route.safe} == READS_BY_POST
    assert {route.id for route in ROUTES if route.end_users} == END_USERS_MAY


def test_the_bots_own_key_reaches_every_route(world):
    """The control: with its own key the bot gets what each request names (so a 404 below is the scope's, not a
    wrong path), and each route that shows its rows shows them."""

    def expect(route, response, users):
        if response.status_code >= 400:
            return "the bot's own request failed"
        if route.safe and route.id not in NOTHING_TO_SHOW and SECRET not in response.text:
            return "shows none of the bot's rows"
        return None

    check_every_route(world, world.api, expect)


def test_no_key_is_a_401_on_every_route(world, anon):
    """Without a key every route answers 401, asks for a bearer key and changes nothing."""

    def expect(route, response, users):
        if response.status_code != 401 or response.headers.get("WWW-Authenticate") != "Bearer":
            return "not a 401 asking for a bearer key"
        return None

    check_every_route(world, anon, expect)


def test_another_bots_key_never_reaches_the_first_bots_data(world, other_api):
    """Another bot's key: a 404 wherever the path names the first bot's KB, memory, insight, job, key or document;
    its own data on the routes of the bot as a whole, and its own end user of a user_id (a 404 while it has none);
    never a row of the first bot's, and nothing of the first bot's changed."""

    def expect(route, response, users):
        names_an_object = set(route.kwargs) - ({"name"} if route.name in NAME_VALUES else set())
        its_own_alice = names_an_object == {"user_id"} and PATH_VALUES["user_id"] in users
        if names_an_object and route.id not in OWN_NAMESPACE and not its_own_alice:
            if response.status_code != 404:
                return "not a 404"
        elif response.status_code >= 400:
            return "the other bot's request on its own data failed"
        if SECRET in response.text:
            return "LEAKS the first bot's data"
        return None

    check_every_route(world, other_api, expect, may_change=False)


def test_a_read_only_key_reads_and_writes_nothing(world):
    """A read-only key of the bot: every read (a safe method or a POST the view declares a read) answers, with the
    bot's rows; every other request is a 403 that says the key reads only, and changes nothing."""
    client = ApiClient(base_url=world.api.base_url, key=world.read_only_key)

    def expect(route, response, users):
        if route.reads:
            if response.status_code >= 400:
                return "a read refused"
            if route.safe and route.id not in NOTHING_TO_SHOW and SECRET not in response.text:
                return "shows none of the bot's rows"
            return None
        if response.status_code != 403 or "reads only" not in response.json().get("detail", ""):
            return "a write not refused with 403"
        return None

    check_every_route(world, client, expect)


def test_a_key_of_one_end_user_reaches_only_what_the_view_allows_them(world):
    """A key of end user alice: the routes an end user may use answer (as alice); every other route is a 403 that
    says whose key it is, and changes nothing."""
    client = ApiClient(base_url=world.api.base_url, key=world.alice_key)

    def expect(route, response, users):
        if route.end_users:
            return "refused to the end user" if response.status_code >= 400 else None
        if response.status_code != 403 or "This key is end user 'alice'" not in response.json().get("detail", ""):
            return "not refused with 403"
        return None

    check_every_route(world, client, expect)


# --- The chat proxy: routes of their own, outside DRF ------------------------------------------------------------

PROXY_ROUTES = [pattern.name for _, pattern in url_patterns("openai/v1/") + url_patterns("anthropic/v1/")]
PROXY_GETS = {"proxy-models"}


def test_the_proxy_routes_are_all_here():
    """The proxy's routes, from the URLconf: a new one is added to the test below by itself."""
    assert sorted(PROXY_ROUTES) == [
        "proxy-anthropic-messages",
        "proxy-chat-completions",
        "proxy-models",
        "proxy-responses",
    ]


@pytest.mark.parametrize("name", PROXY_ROUTES)
def test_the_chat_proxy_without_a_key_or_with_a_wrong_one_is_a_401(anon, name, kb):
    """Every route of the chat proxies (OpenAI's and Anthropic's) refuses a request without a valid key."""
    method = "GET" if name in PROXY_GETS else "POST"
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}
    for headers in ({}, {"Authorization": "Bearer kb_wrong"}, {"x-api-key": "kb_wrong"}):
        response = anon.request(method, reverse(name), json=body, headers=headers)
        assert response.status_code == 401, (headers, response.text)
        assert "API key" in response.text


# --- Keys themselves -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["Bearer wrong-key", "Token abc", "Bearer ", "Basic dXNlcjpwYXNz"])
def test_bad_keys_are_401(anon, header):
    """Wrong keys and wrong schemes are refused with a message."""
    response = anon.get("/api/v1/kbs/", headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json()["detail"]


def test_revoked_key_is_a_401(api):
    """A revoked key stops working at once."""
    assert api.get("/api/v1/kbs/").status_code == 200
    api.bot.api_keys.get().revoke()
    assert api.get("/api/v1/kbs/").status_code == 401


def test_keys_are_stored_hashed(api):
    """The plain key is nowhere in the database, only its SHA-256."""
    stored = api.bot.api_keys.get()
    assert stored.hashed_key != api.key and api.key not in stored.hashed_key
    assert stored.prefix == api.key[:10]


def test_list_shows_only_own_kbs(api, kb, other_kb):
    """The KB list of a bot holds its own KBs only."""
    names = [k["name"] for k in api.get("/api/v1/kbs/").json()["results"]]
    assert names == ["notes"]


def test_memory_ids_of_another_kb_of_same_bot_are_404(api, kb):
    """A memory id is only reachable under the KB it belongs to."""
    elsewhere = MemoryFactory(kb=KnowledgeBaseFactory(bot=api.bot, name="other"))
    assert api.get(f"/api/v1/kbs/notes/memories/{elsewhere.pk}/").status_code == 404
    assert api.get(f"/api/v1/kbs/other/memories/{elsewhere.pk}/").status_code == 200
