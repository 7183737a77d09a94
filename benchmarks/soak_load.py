"""The soak's clients: bots (a bot's key, acting for several end users, uploading documents) and end users' own
apps (a key of one end user), each a thread posting turns (and re-sending some), recalling, reading the context
block and streaming chats through the proxy, with what every request answered and how long it took."""

from __future__ import annotations

import io
import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import requests

CITIES = ["Lyon", "Porto", "Gdansk", "Bergen", "Ghent", "Turin", "Leeds", "Graz", "Malmo", "Tartu", "Lisbon", "Riga"]
HOBBIES = ["hiking", "chess", "pottery", "salsa", "sailing", "baking", "cycling", "painting", "judo", "rowing"]
QUESTIONS = ["Where does the user live?", "What does the user do on weekends?", "Who did the user meet?"]
TURNS_PER_SESSION = 24
RESEND_SHARE = 0.2  # of the batches acknowledged, sent again as a client whose answer was lost would


@dataclass
class Tally:
    """What every request answered (status, or the client's error) and took, per endpoint; and the turns and
    documents the product acknowledged."""

    statuses: dict = field(default_factory=lambda: defaultdict(Counter))
    seconds: dict = field(default_factory=lambda: defaultdict(list))
    turns: set = field(default_factory=set)  # (bot, session, external id) acknowledged with a 202
    resends: Counter = field(default_factory=Counter)  # "sent", "answered as duplicates", "stored again"
    documents: set = field(default_factory=set)  # (bot, slug) acknowledged
    errors: list = field(default_factory=list)  # the product's first 5xx and unanswered requests, for the report
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, endpoint: str, status: int | str, seconds: float, body: str = "") -> None:
        with self.lock:
            self.statuses[endpoint][status] += 1
            self.seconds[endpoint].append(seconds)
            product = "upstream failing" not in endpoint  # the failing LLM's own errors, passed on as they came
            if product and (not isinstance(status, int) or status >= 500) and len(self.errors) < 20:
                self.errors.append(f"{endpoint} {status}: {body[:300]}")


class Client(threading.Thread):
    """One caller of the API until ``stop`` is set: a bot (``users`` several) or one end user's app (one)."""

    def __init__(self, name: str, url: str, key: str, bot: str, users: list[str], tally: Tally, stop: threading.Event):
        super().__init__(name=name, daemon=True)
        self.url, self.bot, self.users, self.tally, self.stop = url, bot, users, tally, stop
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {key}"
        self.random = random.Random(name)
        self.sent = Counter()  # turns sent per user: the next external id and session
        self.is_bot = len(users) > 1

    def run(self) -> None:
        actions = [self.post_turns] * 4 + [self.recall] * 2 + [self.context] * 2 + [self.stream] * 2
        actions += [self.upload] if self.is_bot else []
        while not self.stop.is_set():
            self.random.choice(actions)()
            self.stop.wait(self.random.uniform(0.1, 0.4))

    def call(self, endpoint: str, method: str, path: str, **kwargs) -> requests.Response | None:
        started = time.perf_counter()
        try:
            response = self.http.request(method, f"{self.url}{path}", timeout=60, **kwargs)
        except requests.RequestException as exc:
            self.tally.record(endpoint, type(exc).__name__, time.perf_counter() - started, str(exc))
            return None
        self.tally.record(endpoint, response.status_code, time.perf_counter() - started, response.text)
        return response

    def post_turns(self) -> None:
        """A batch of new turns; a batch whose answer did not say 202 is sent again until it does, and some that
        did are sent again anyway: a re-sent turn must come back as a duplicate, never be stored twice."""
        user = self.random.choice(self.users)
        first, count = self.sent[user], self.random.randint(1, 4)
        self.sent[user] += count
        session = f"{user}-s{first // TURNS_PER_SESSION}"
        messages = [self.turn(user, n) for n in range(first, first + count)]
        body = {"session_id": session, "user_id": user, "messages": messages}
        for _ in range(20):
            response = self.call("POST messages", "POST", "/api/v1/kbs/notes/messages/", json=body)
            if response is not None and response.status_code == 202:
                break
            self.stop.wait(1.0)
        else:
            return  # never acknowledged: not counted as posted
        with self.tally.lock:
            self.tally.turns.update((self.bot, session, m["external_id"]) for m in messages)
        if self.random.random() < RESEND_SHARE:
            self.resend(body)

    def resend(self, body: dict) -> None:
        response = self.call("POST messages (re-send)", "POST", "/api/v1/kbs/notes/messages/", json=body)
        if response is None or response.status_code != 202:
            return
        answer = response.json()
        with self.tally.lock:
            self.tally.resends["sent"] += len(body["messages"])
            self.tally.resends["answered as duplicates"] += answer.get("duplicates", 0)
            self.tally.resends["accepted again"] += answer.get("accepted", 0)

    def turn(self, user: str, n: int) -> dict:
        city, hobby = self.random.choice(CITIES), self.random.choice(HOBBIES)
        text = f"I went {hobby} in {city} with my friend {user.title().replace('-', '')}Pal{n} on day {n} of the trip."
        return {"external_id": f"{user}-t{n}", "role": "user", "speaker": user, "content": text}

    def recall(self) -> None:
        body = {"query": self.random.choice(QUESTIONS), "k": 10, "user_id": self.random.choice(self.users)}
        self.call("POST recall", "POST", "/api/v1/kbs/notes/recall/", json=body)

    def context(self) -> None:
        params = {"query": self.random.choice(QUESTIONS), "user_id": self.random.choice(self.users)}
        self.call("GET context", "GET", "/api/v1/context/", params=params)

    def stream(self) -> None:
        """A streamed chat through the proxy, read to its end; the failing upstream's own errors (passed on as they
        came, or a 504 for one that did not answer) are counted apart from the product's answers."""
        user = self.random.choice(self.users)
        body = {"model": "fake-model", "stream": True, "user": user}
        body["messages"] = [{"role": "user", "content": f"{self.random.choice(QUESTIONS)} I love {user} stories."}]
        started = time.perf_counter()
        try:
            with self.http.post(f"{self.url}/openai/v1/chat/completions", json=body, stream=True, timeout=60) as r:
                text = b"".join(r.iter_content(None)).decode("utf-8", "replace")
        except requests.RequestException as exc:
            self.tally.record("POST proxy stream", type(exc).__name__, time.perf_counter() - started, str(exc))
            return
        upstream = r.status_code >= 400 and ('"fake"' in text or "upstream" in text)
        endpoint = "POST proxy stream (upstream failing)" if upstream else "POST proxy stream"
        complete = r.status_code != 200 or "[DONE]" in text
        self.tally.record(endpoint, r.status_code if complete else "cut short", time.perf_counter() - started, text)

    def upload(self) -> None:
        n = self.sent["documents"]
        self.sent["documents"] += 1
        slug = f"{self.name}-doc-{n}"
        content = f"# Trip notes {n}\n\nThe {self.random.choice(HOBBIES)} club meets in {self.random.choice(CITIES)}."
        files = {"file": (f"{slug}.md", io.BytesIO(content.encode()), "text/markdown")}
        response = self.call("POST documents (upload)", "POST", "/api/v1/kbs/notes/documents/", files=files)
        if response is not None and response.status_code == 202:
            with self.tally.lock:
                self.tally.documents.update((self.bot, d.get("slug")) for d in _documents(response.json()))


def _documents(answer) -> list[dict]:
    """The documents an upload's answer names (a list of them, or one under ``documents``)."""
    if isinstance(answer, list):
        return answer
    return answer.get("documents") or ([answer] if "slug" in answer else [])
