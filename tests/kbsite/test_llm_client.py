"""The LLM client asks for a strict JSON schema where the endpoint takes one, bounds every reply, and refuses what it
cannot trust."""

from __future__ import annotations

import pytest

from kbsite.ai import llm

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


@pytest.fixture(autouse=True)
def fresh_endpoints():
    """Each test's fake endpoint is new: what an earlier one refused is forgotten."""
    llm._NO_JSON_SCHEMA.clear()
    yield
    llm._NO_JSON_SCHEMA.clear()


def test_a_schema_is_asked_for_strictly_and_the_reply_bounded(fake_llm, settings):
    """A call with a schema sends it as a strict json_schema response format, with max_tokens."""
    settings.LLM_MAX_TOKENS = 777
    fake_llm.reply_json({"answer": "yes"})
    reply = llm.complete_json(system="s", user="u", schema=SCHEMA)
    assert reply.data == {"answer": "yes"}
    sent = fake_llm.requests[-1]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": SCHEMA, "strict": True},
    }
    assert sent["max_tokens"] == 777


def test_an_endpoint_that_refuses_a_schema_is_asked_for_a_json_object(fake_llm):
    """A 400 for the schema: the same request again with a JSON object, and from then on only that."""
    fake_llm.reply_status(400, "response_format json_schema is not supported").reply_json({"answer": "a"})
    fake_llm.reply_json({"answer": "b"})
    assert llm.complete_json(system="s", user="u", schema=SCHEMA).data == {"answer": "a"}
    assert [r["response_format"]["type"] for r in fake_llm.requests] == ["json_schema", "json_object"]
    assert llm.complete_json(system="s", user="u", schema=SCHEMA).data == {"answer": "b"}
    assert fake_llm.requests[-1]["response_format"] == {"type": "json_object"}


def test_a_call_without_a_schema_asks_for_a_json_object(fake_llm):
    """No schema: a JSON object, still bounded."""
    fake_llm.reply_json({"x": 1})
    llm.complete_json(system="s", user="u")
    assert fake_llm.requests[-1]["response_format"] == {"type": "json_object"}
    assert fake_llm.requests[-1]["max_tokens"] > 0


def test_a_400_without_a_schema_is_an_error_not_a_retry(fake_llm):
    """A 400 that is not about the schema fails at once (nothing to fall back to)."""
    fake_llm.reply_status(400, "bad request")
    with pytest.raises(llm.LLMError) as caught:
        llm.complete_json(system="s", user="u")
    assert not caught.value.retryable
    assert fake_llm.calls == 1
