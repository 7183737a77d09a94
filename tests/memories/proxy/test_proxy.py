"""The chat proxy with the official ``openai`` client, in front of the scripted fake upstream: the caller's memory
goes into the request as a system message, the answer comes back as the upstream gave it (streamed too, tool calls
untouched), errors come back as the client's own exception types, and the turns are recorded for the right user and
session."""

from __future__ import annotations

import time

import openai
import pytest

from kbsite.keys import key_issue
from kbsite.models import JobRun, KnowledgeBase
from memories.models import Memory, Message, Session
from tests.conftest import run_queued_tasks, wait_for

NO_FACTS = {"add": [], "supersede": [], "edges": []}


def recordings_run(count: int = 1) -> None:
    """Run the queued jobs once the proxy has queued ``count`` recordings in all: it queues one just after its
    answer has gone out, so the client may see the answer first."""
    wait_for(lambda: JobRun.objects.filter(kind="record_chat").count() >= count, 10, "the recordings to be queued")
    # A run's task is queued just after the run is stored (on its commit): run what is queued until each has run.
    queued = JobRun.objects.filter(kind="record_chat", status="queued")
    wait_for(lambda: run_queued_tasks() >= 0 and not queued.exists(), 10, "the recordings to run")


@pytest.fixture
def client(asgi_server, bot, fake_llm, settings) -> openai.OpenAI:
    """The official client, as a bot would configure it: base_url and its kbsite key."""
    settings.PROXY_MODELS = {"gpt-test": "fake-model"}
    _, key = key_issue(bot)
    return openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key=key, max_retries=0, timeout=20)


def test_the_memory_goes_in_and_the_turns_come_back_as_memories(client, two_users, fake_llm):
    fake_llm.reply_raw("Try a mushroom risotto: no shellfish in it.")
    response = client.chat.completions.create(
        model="gpt-test",
        messages=[
            {"role": "system", "content": "You are a cooking assistant."},
            {"role": "user", "content": "What shellfish dish should I cook tonight?"},
        ],
        user="alice",
        metadata={"session_id": "kitchen-1", "purpose": "demo"},
    )
    assert response.choices[0].message.content == "Try a mushroom risotto: no shellfish in it."
    sent = fake_llm.requests[-1]
    assert sent["model"] == "fake-model"  # PROXY_MODELS renamed it
    assert sent["metadata"] == {"purpose": "demo"} and sent["user"] == "alice"  # ours taken out, theirs kept
    roles = [m["role"] for m in sent["messages"]]
    assert roles == ["system", "system", "user"]
    assert sent["messages"][0]["content"] == "You are a cooking assistant."
    block = sent["messages"][1]["content"]
    assert "Alice is allergic to shellfish." in block and "canteen" in block and "Bob" not in block
    assert sent["messages"][2]["content"] == "What shellfish dish should I cook tonight?"

    fake_llm.reply_json(
        {
            "add": [{"text": "Alice wants to cook dinner tonight.", "kind": "event", "source_turns": ["@all"]}],
            "supersede": [],
        }
    )
    recordings_run(1)
    session = Session.objects.get(external_id="kitchen-1")
    assert session.end_user.external_id == "alice"
    turns = list(Message.objects.filter(session=session).order_by("id").values_list("role", "content"))
    assert turns == [
        ("user", "What shellfish dish should I cook tonight?"),
        ("assistant", "Try a mushroom risotto: no shellfish in it."),
    ]
    memory = Memory.objects.get(text="Alice wants to cook dinner tonight.")
    assert memory.end_user.external_id == "alice"
    assert set(memory.source_messages.values_list("session__external_id", flat=True)) == {"kitchen-1"}
    assert JobRun.objects.get(kind="record_chat").status == "succeeded"


def test_a_request_sent_again_records_nothing_twice(client, recording_kb, fake_llm):
    messages = [{"role": "user", "content": "Remember that my dog is called Rex."}]
    for _ in range(2):
        fake_llm.reply_raw("I will remember Rex.")
        client.chat.completions.create(model="fake-model", messages=messages, extra_headers={"X-Session-Id": "s9"})
    fake_llm.reply_json(NO_FACTS)
    recordings_run(2)
    assert Message.objects.filter(session__external_id="s9").count() == 2  # one user turn, one answer
    # The next request carries the history; only what is new is recorded.
    fake_llm.reply_raw("Rex is a good name.")
    history = [*messages, {"role": "assistant", "content": "I will remember Rex."}]
    client.chat.completions.create(
        model="fake-model",
        messages=[*history, {"role": "user", "content": "Is Rex a good name?"}],
        extra_headers={"X-Session-Id": "s9"},
    )
    recordings_run(3)
    assert Message.objects.filter(session__external_id="s9").count() == 4
    assert fake_llm.calls == 4  # three answers, and the facts of Rex's name (a question states none: no call)


def test_a_stream_comes_back_chunk_by_chunk_and_is_recorded(client, two_users, fake_llm):
    pieces = ["Mushroom ", "risotto ", "is ", "safe."]
    fake_llm.reply_stream(pieces, delay=0.3)
    started = time.monotonic()
    stream = client.chat.completions.create(
        model="fake-model",
        messages=[{"role": "user", "content": "Any shellfish recipe for me?"}],
        user="alice",
        stream=True,
    )
    received, first_at = [], None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            first_at = first_at or time.monotonic() - started
            received.append(chunk.choices[0].delta.content)
    total = time.monotonic() - started
    assert received == pieces
    assert first_at < total - 0.5, (first_at, total)  # the first chunk came long before the last
    assert "Alice is allergic" in fake_llm.requests[-1]["messages"][0]["content"]
    # The client stops reading at [DONE]; the recording is queued as the stream closes, just after.
    fake_llm.reply_json(NO_FACTS)
    recordings_run(1)
    answer = Message.objects.get(session__external_id="chat:alice", role="assistant")
    assert answer.content == "Mushroom risotto is safe." and answer.session.end_user.external_id == "alice"


def test_tool_calls_pass_through_untouched(client, recording_kb, fake_llm):
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
        }
    ]
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Porto"}'}}
    fake_llm.reply_message({"role": "assistant", "content": None, "tool_calls": [call]})
    response = client.chat.completions.create(
        model="fake-model", messages=[{"role": "user", "content": "Weather in Porto?"}], tools=tools, tool_choice="auto"
    )
    assert fake_llm.requests[-1]["tools"] == tools and fake_llm.requests[-1]["tool_choice"] == "auto"
    made = response.choices[0].message.tool_calls[0]
    assert (
        made.id == "call_1" and made.function.name == "get_weather" and made.function.arguments == '{"city": "Porto"}'
    )
    assert response.choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize(
    ("script", "error", "status", "says"),
    [
        (lambda f: f.reply_status(429, "slow down"), openai.RateLimitError, 429, "slow down"),
        (lambda f: f.reply_status(500, "model crashed"), openai.InternalServerError, 500, "model crashed"),
        (lambda f: f.reply_status(400, "bad temperature"), openai.BadRequestError, 400, "bad temperature"),
        (lambda f: f.reply_raw_status(502, "proxy of the provider broke"), openai.APIStatusError, 502, "broke"),
        (lambda f: f.reply_after(3), openai.InternalServerError, 504, "did not answer within"),
    ],
)
def test_upstream_errors_come_back_as_the_clients_own_exceptions(
    client, recording_kb, fake_llm, settings, script, error, status, says
):
    settings.PROXY_TIMEOUT_SECONDS = 1.0
    script(fake_llm)
    with pytest.raises(error) as raised:
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "Hello there"}])
    assert raised.value.status_code == status and says in raised.value.message
    assert not JobRun.objects.filter(kind="record_chat").exists()  # nothing answered: nothing recorded


def test_errors_of_the_proxy_itself(client, asgi_server, recording_kb, kb, fake_llm, settings):
    bad = openai.OpenAI(base_url=f"{asgi_server.url}/openai/v1", api_key="kb_wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        bad.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "Hi"}])
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "Hi"}], user="a b")
    assert "user_id" in raised.value.message
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "Hi"}], metadata={"kb": "nope"}
        )
    KnowledgeBase.objects.filter(pk=kb.pk).update(records_chat=False)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "Hi"}])
    assert "records_chat" in raised.value.message
    settings.LLM_BASE_URL = ""
    with pytest.raises(openai.InternalServerError) as raised:
        client.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "Hi"}], metadata={"kb": "notes"}
        )
    assert raised.value.status_code == 503 and "offline" in raised.value.message
    assert fake_llm.calls == 0


def test_models_are_the_upstreams(client):
    assert [m.id for m in client.models.list().data] == ["fake-model"]


def test_a_session_of_another_user_fails_its_recording_visibly(client, asgi_api, recording_kb, fake_llm):
    body = {"session_id": "shared-s", "user_id": "bob", "messages": [{"external_id": "b1", "content": "Hi, Bob here."}]}
    assert asgi_api.post("/api/v1/kbs/notes/messages/", json=body).status_code == 202
    fake_llm.reply_raw("Hello Alice.")
    answered = client.chat.completions.create(
        model="fake-model",
        messages=[{"role": "user", "content": "Hi, Alice here."}],
        user="alice",
        metadata={"session_id": "shared-s"},
    )
    assert answered.choices[0].message.content == "Hello Alice."  # the chat goes on
    recordings_run(1)
    failed = JobRun.objects.get(kind="record_chat")
    assert failed.status == "failed" and "belongs to end user 'bob'" in failed.error
    assert failed.detail["turns"]  # kept for a retry once the session is sorted out


def test_erasing_a_user_removes_their_recordings_waiting_in_jobs(client, asgi_api, recording_kb, fake_llm):
    body = {"session_id": "s-taken", "user_id": "bob", "messages": [{"external_id": "b1", "content": "Bob here."}]}
    asgi_api.post("/api/v1/kbs/notes/messages/", json=body)
    fake_llm.reply_raw("Noted.")
    client.chat.completions.create(
        model="fake-model",
        messages=[{"role": "user", "content": "My PIN hint is zebrafinch."}],
        user="alice",
        metadata={"session_id": "s-taken"},
    )
    recordings_run(1)
    assert JobRun.objects.get(kind="record_chat", status="failed").detail["turns"]
    assert asgi_api.delete("/api/v1/users/alice/").status_code == 200
    assert not JobRun.objects.filter(kind="record_chat").exists()


# --- The Responses API (POST /openai/v1/responses) ---


def test_a_response_gets_the_memory_after_its_instructions_and_is_recorded(client, two_users, fake_llm):
    fake_llm.reply_raw("Try a mushroom risotto: no shellfish in it.")
    response = client.responses.create(
        model="gpt-test",
        instructions="You are a cooking assistant.",
        input="What shellfish dish should I cook tonight?",
        user="alice",
        metadata={"session_id": "kitchen-2", "purpose": "demo"},
    )
    assert response.output_text == "Try a mushroom risotto: no shellfish in it."
    sent = fake_llm.requests[-1]
    assert sent["model"] == "fake-model" and sent["input"] == "What shellfish dish should I cook tonight?"
    assert sent["metadata"] == {"purpose": "demo"}  # ours taken out, theirs kept
    instructions = sent["instructions"]
    assert instructions.startswith("You are a cooking assistant.\n\n")
    assert "Alice is allergic to shellfish." in instructions and "Bob" not in instructions

    fake_llm.reply_json(
        {
            "add": [{"text": "Alice wants to cook dinner tonight.", "kind": "event", "source_turns": ["@all"]}],
            "supersede": [],
        }
    )
    recordings_run(1)
    turns = list(Message.objects.filter(session__external_id="kitchen-2").order_by("id").values_list("role", "content"))
    assert turns == [
        ("user", "What shellfish dish should I cook tonight?"),
        ("assistant", "Try a mushroom risotto: no shellfish in it."),
    ]
    assert Memory.objects.get(text="Alice wants to cook dinner tonight.").end_user.external_id == "alice"


def test_a_streamed_response_comes_back_event_by_event_and_is_recorded(client, two_users, fake_llm):
    pieces = ["Mushroom ", "risotto ", "is ", "safe."]
    fake_llm.reply_stream(pieces, delay=0.3)
    started = time.monotonic()
    stream = client.responses.create(
        model="fake-model",
        input=[{"role": "user", "content": [{"type": "input_text", "text": "Any shellfish recipe for me?"}]}],
        user="alice",
        stream=True,
    )
    deltas, first_at, completed = [], None, None
    for event in stream:
        if event.type == "response.output_text.delta":
            first_at = first_at or time.monotonic() - started
            deltas.append(event.delta)
        elif event.type == "response.completed":
            completed = event.response
    assert deltas == pieces and completed.output_text == "Mushroom risotto is safe."
    assert first_at < time.monotonic() - started - 0.5  # the first delta came long before the end
    assert "Alice is allergic" in fake_llm.requests[-1]["instructions"]
    fake_llm.reply_json(NO_FACTS)
    recordings_run(1)
    answer = Message.objects.get(session__external_id="chat:alice", role="assistant")
    assert answer.content == "Mushroom risotto is safe." and answer.session.end_user.external_id == "alice"


def test_a_conversation_held_by_the_upstream_records_every_turn(client, recording_kb, fake_llm):
    """With previous_response_id the input carries only what is new: the same words said in two requests are two
    turns, and a request sent again is still recorded once."""
    for previous in (None, "resp_1", "resp_2", "resp_2"):
        fake_llm.reply_raw("Noted.")
        extra = {"previous_response_id": previous} if previous else {}
        client.responses.create(model="fake-model", input="ok", user="carol", **extra)
    recordings_run(4)
    turns = Message.objects.filter(session__external_id="chat:carol")
    assert turns.filter(role="user").count() == 3 and turns.filter(role="assistant").count() == 3


def test_responses_errors_come_back_as_the_clients_own_exceptions(client, recording_kb, fake_llm):
    fake_llm.reply_status(429, "slow down")
    with pytest.raises(openai.RateLimitError) as raised:
        client.responses.create(model="fake-model", input="Hello there")
    assert "slow down" in raised.value.message
    with pytest.raises(openai.BadRequestError) as raised:
        client.responses.create(model="fake-model", input=[])
    assert "'input'" in raised.value.message
    with pytest.raises(openai.BadRequestError) as raised:
        client.responses.create(model="fake-model", input="Hi", user="a b")
    assert "user_id" in raised.value.message
    assert not JobRun.objects.filter(kind="record_chat").exists()


def test_the_context_block_of_a_proxied_chat_reads_from_a_replica(two_users, dead_replica, monkeypatch):
    """The proxy's context block only reads: it comes from the replica chosen for the bot, as the API's block does,
    and from the primary with no error when that replica fails mid-read (the turns are recorded afterwards, on the
    primary)."""
    import json

    from kbsite import replicas
    from kbsite.caller import Caller
    from memories.proxy import views
    from memories.proxy.requests import chat_request

    alice, _ = two_users
    chosen = []
    monkeypatch.setattr(replicas, "_chosen", lambda bot_id: chosen.append(bot_id) or dead_replica)
    raw = json.dumps({"model": "gpt-test", "messages": [{"role": "user", "content": "Any shellfish tonight?"}]})
    caller = Caller(bot=alice.bot).acting_for("alice")
    body, note = views._with_memory(caller, chat_request(raw.encode(), session_header=None, caller=caller))
    assert chosen == [alice.bot.pk]
    assert "Alice is allergic to shellfish." in body["messages"][0]["content"]
    assert replicas.reading_from() == "default" and replicas._down_until[dead_replica] > 0
