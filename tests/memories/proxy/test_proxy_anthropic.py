"""The Anthropic relay with the official ``anthropic`` client, in front of the scripted fake upstream speaking
Anthropic's Messages API: the caller's memory goes after its system prompt, the answer comes back as the upstream gave
it (streamed too), errors come back as the client's own exception types, and the turns are recorded for the right
user and session."""

from __future__ import annotations

import time

import anthropic
import pytest
import requests

from kbsite.keys import key_issue
from kbsite.models import JobRun
from memories.models import Memory, Message
from tests.memories.proxy.test_proxy import NO_FACTS, recordings_run


@pytest.fixture
def claude(asgi_server, bot, fake_llm, settings) -> anthropic.Anthropic:
    """The official client, as a bot would configure it: base_url and its kbsite key (sent as x-api-key)."""
    settings.ANTHROPIC_BASE_URL = fake_llm.anthropic_url
    settings.ANTHROPIC_API_KEY = "upstream-key"
    settings.PROXY_MODELS = {"claude-test": "fake-model"}
    _, key = key_issue(bot)
    return anthropic.Anthropic(base_url=f"{asgi_server.url}/anthropic", api_key=key, max_retries=0, timeout=20)


def test_the_memory_goes_after_the_system_prompt_and_the_turns_are_recorded(claude, two_users, fake_llm):
    fake_llm.reply_raw("Try a mushroom risotto: no shellfish in it.")
    message = claude.messages.create(
        model="claude-test",
        max_tokens=300,
        system="You are a cooking assistant.",
        messages=[{"role": "user", "content": "What shellfish dish should I cook tonight?"}],
        metadata={"user_id": "alice"},
        extra_headers={"X-Session-Id": "kitchen-3"},
    )
    assert message.content[0].text == "Try a mushroom risotto: no shellfish in it."
    sent = fake_llm.requests[-1]
    assert sent["model"] == "fake-model" and sent["max_tokens"] == 300
    assert sent["metadata"] == {"user_id": "alice"}  # Anthropic's own field goes on
    assert sent["system"].startswith("You are a cooking assistant.\n\n")
    assert "Alice is allergic to shellfish." in sent["system"] and "Bob" not in sent["system"]
    assert sent["messages"] == [{"role": "user", "content": "What shellfish dish should I cook tonight?"}]

    fake_llm.reply_json(
        {
            "add": [{"text": "Alice wants to cook dinner tonight.", "kind": "event", "source_turns": ["@all"]}],
            "supersede": [],
        }
    )
    recordings_run(1)
    turns = list(Message.objects.filter(session__external_id="kitchen-3").order_by("id").values_list("role", "content"))
    assert turns == [
        ("user", "What shellfish dish should I cook tonight?"),
        ("assistant", "Try a mushroom risotto: no shellfish in it."),
    ]
    assert Memory.objects.get(text="Alice wants to cook dinner tonight.").end_user.external_id == "alice"


def test_a_system_prompt_of_blocks_gets_a_block_of_memory(claude, two_users, fake_llm):
    fake_llm.reply_raw("Noted.")
    claude.messages.create(
        model="fake-model",
        max_tokens=50,
        system=[{"type": "text", "text": "You are a cooking assistant."}],
        messages=[{"role": "user", "content": [{"type": "text", "text": "Any shellfish tonight?"}]}],
        metadata={"user_id": "alice"},
    )
    system = fake_llm.requests[-1]["system"]
    assert system[0] == {"type": "text", "text": "You are a cooking assistant."}
    assert system[1]["type"] == "text" and "Alice is allergic to shellfish." in system[1]["text"]


def test_a_streamed_message_comes_back_event_by_event_and_is_recorded(claude, two_users, fake_llm):
    pieces = ["Mushroom ", "risotto ", "is ", "safe."]
    fake_llm.reply_stream(pieces, delay=0.3)
    started, first_at, deltas = time.monotonic(), None, []
    with claude.messages.stream(
        model="fake-model",
        max_tokens=100,
        messages=[{"role": "user", "content": "Any shellfish recipe for me?"}],
        metadata={"user_id": "alice"},
    ) as stream:
        for text in stream.text_stream:
            first_at = first_at or time.monotonic() - started
            deltas.append(text)
        final = stream.get_final_message()
    assert deltas == pieces and final.content[0].text == "Mushroom risotto is safe."
    assert first_at < time.monotonic() - started - 0.5  # the first delta came long before the end
    assert "Alice is allergic" in fake_llm.requests[-1]["system"]
    fake_llm.reply_json(NO_FACTS)
    recordings_run(1)
    answer = Message.objects.get(session__external_id="chat:alice", role="assistant")
    assert answer.content == "Mushroom risotto is safe." and answer.session.end_user.external_id == "alice"


def test_errors_come_back_as_the_clients_own_exceptions(claude, asgi_server, recording_kb, fake_llm, settings):
    fake_llm.reply_status(429, "slow down")
    with pytest.raises(anthropic.RateLimitError) as raised:
        claude.messages.create(model="fake-model", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
    assert "slow down" in str(raised.value)
    bad = anthropic.Anthropic(base_url=f"{asgi_server.url}/anthropic", api_key="kb_wrong", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        bad.messages.create(model="fake-model", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
    with pytest.raises(anthropic.BadRequestError) as raised:
        claude.messages.create(
            model="fake-model", max_tokens=10, messages=[{"role": "user", "content": "Hi"}], metadata={"user_id": "a b"}
        )
    assert "user_id" in str(raised.value)
    no_tokens = requests.post(
        f"{asgi_server.url}/anthropic/v1/messages",
        json={"model": "fake-model", "messages": [{"role": "user", "content": "Hi"}]},
        headers={"x-api-key": claude.api_key},
        timeout=10,
    )
    assert no_tokens.status_code == 400 and no_tokens.json()["error"]["type"] == "invalid_request_error"
    assert "max_tokens" in no_tokens.json()["error"]["message"]
    settings.ANTHROPIC_BASE_URL = ""
    with pytest.raises(anthropic.InternalServerError) as raised:
        claude.messages.create(model="fake-model", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
    assert raised.value.status_code == 503 and "ANTHROPIC_BASE_URL" in str(raised.value)
    assert fake_llm.calls == 1  # only the rate-limited one reached the upstream
    assert not JobRun.objects.filter(kind="record_chat").exists()
