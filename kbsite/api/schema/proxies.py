"""The chat proxies and MCP in the schema: they are not DRF views (async Django views, an ASGI app), so their paths
are written here: what each takes, what kbsite adds, and their errors in the shape their clients expect."""

from __future__ import annotations

OPENAI_ERROR = {
    "type": "object",
    "description": "OpenAI's error shape: the `openai` client raises its own exception for the status.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": "string", "nullable": True},
                "code": {"type": "string", "nullable": True},
            },
            "required": ["message", "type"],
        }
    },
    "required": ["error"],
    "example": {
        "error": {
            "message": "Invalid or missing API key.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    },
}
ANTHROPIC_ERROR = {
    "type": "object",
    "description": "Anthropic's error shape: the `anthropic` client raises its own exception for the status.",
    "properties": {
        "type": {"type": "string", "enum": ["error"]},
        "error": {
            "type": "object",
            "properties": {"type": {"type": "string"}, "message": {"type": "string"}},
            "required": ["type", "message"],
        },
    },
    "required": ["type", "error"],
    "example": {"type": "error", "error": {"type": "rate_limit_error", "message": "Past this key's rate limit."}},
}
MCP_ERROR = {
    "type": "object",
    "description": "A request MCP's gate refused before it reached the server (key, rate limit, end user).",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
SCHEMAS = {"OpenAIError": OPENAI_ERROR, "AnthropicError": ANTHROPIC_ERROR, "McpError": MCP_ERROR}
SECURITY_SCHEMES = {
    "anthropicKey": {
        "type": "apiKey",
        "in": "header",
        "name": "x-api-key",
        "description": "The bot's key as Anthropic's clients send it (a bearer token works as well).",
    }
}

ANY_OBJECT = {"type": "object", "additionalProperties": True}
SESSION_HEADER = {
    "name": "X-Session-Id",
    "in": "header",
    "required": False,
    "description": "The conversation the turns are recorded in (or `metadata.session_id`); by default one running "
    "conversation per end user, `chat:<user_id>`.",
    "schema": {"type": "string", "maxLength": 200},
}
KBSITE_HEADERS = {
    "X-Kbsite-Memory": {
        "description": "What memory kbsite added to the request (`none`: nothing).",
        "schema": {"type": "string"},
    },
    **{
        f"Kbsite-Usage-{name}": {
            "description": f"What kbsite spent on the context block it added: {what}.",
            "schema": {"type": "integer"},
        }
        for name, what in (
            ("Llm-Calls", "LLM calls"),
            ("Tokens-In", "LLM tokens in"),
            ("Tokens-Out", "LLM tokens out"),
            ("Embeddings", "texts embedded"),
            ("Server-Ms", "milliseconds until the request went upstream"),
        )
    },
}
WHAT_KBSITE_ADDS = """

What kbsite adds, for the end user the request names (`user`, or `metadata.user_id`):
- the memory context block for the last user message, across the bot's always-on knowledge bases (that user's
  memory and the shared one, never another user's; the session's own conversation left out), {where};
- the request then goes to the upstream ({upstream}; the model renamed by `PROXY_MODELS` if it is listed there),
  every other parameter untouched, and its answer comes back as it was, streamed event by event when asked;
- once the answer is complete, the new user message(s) and the reply are recorded as turns of the session
  (`metadata.session_id` or `X-Session-Id`) in the knowledge base `metadata.kb`, or the bot's KB that records chat,
  and go through ingest like any posted turns.

The response carries `X-Kbsite-Memory` (what was added) and `Kbsite-Usage-*` (what kbsite spent on it). The key's
rate limit holds here as on the API (429 with `Retry-After`); a read-only key is a 403 (the proxy records the
conversation). Errors come in {shape} shape: the upstream's own status and message for its 4xx, 429 and 5xx, 502
when it cannot be reached, 504 when it does not answer within `PROXY_TIMEOUT_SECONDS`, 503 when no upstream is
configured, 401 for a bad key, 400 for a malformed request or no KB to record in."""


def _errors(component: str, statuses: dict[str, str]) -> dict:
    content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}}
    responses = {status: {"description": description, "content": content} for status, description in statuses.items()}
    if "429" in responses:
        retry = {"description": "Whole seconds until the key may make a request again.", "schema": {"type": "integer"}}
        responses["429"]["headers"] = {"Retry-After": retry}
    return responses


RELAY_ERRORS = {
    "400": "A malformed request, or no knowledge base records this bot's chat (or the upstream's 400).",
    "401": "No valid kbsite key.",
    "403": "A read-only key: the proxy records the conversation.",
    "404": "The knowledge base `metadata.kb` names is not this bot's.",
    "409": "The recording knowledge base is inactive.",
    "429": "Past the key's rate limit (or the upstream's 429, passed on).",
    "502": "The upstream cannot be reached.",
    "503": "No upstream is configured (offline mode).",
    "504": "The upstream did not answer in time.",
}


def _relay(operation_id: str, summary: str, description: str, *, example: dict, shape: str, security: list) -> dict:
    """The path item of one relayed POST: an upstream's request in, its answer out."""
    return {
        "post": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": ["chat proxy"],
            "security": security,
            "parameters": [SESSION_HEADER],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": ANY_OBJECT, "example": example}},
            },
            "responses": {
                "200": {
                    "description": "The upstream's answer as it gave it: JSON, or `text/event-stream` when streamed.",
                    "headers": KBSITE_HEADERS,
                    "content": {"application/json": {"schema": ANY_OBJECT}, "text/event-stream": {"schema": {}}},
                },
                **_errors(shape, RELAY_ERRORS),
            },
        }
    }


BEARER = [{"botKey": []}]
CHAT = _relay(
    "openai_chat_completions_create",
    "Create a chat completion with memory",
    "OpenAI's chat completions API with the bot's memory. Point an OpenAI client at it: "
    '`OpenAI(base_url="<kbsite>/openai/v1", api_key="<the bot\'s kbsite key>")`, and name the end user '
    '(`user="alice"`).'
    + WHAT_KBSITE_ADDS.format(
        where="added as a system message after the caller's own system messages",
        upstream="`LLM_BASE_URL` with `LLM_API_KEY`",
        shape="OpenAI's",
    ),
    example={
        "model": "llama3.1:8b",
        "messages": [{"role": "user", "content": "What should I cook tonight?"}],
        "user": "alice",
        "metadata": {"session_id": "alice-2026-11-25"},
    },
    shape="OpenAIError",
    security=BEARER,
)
RESPONSES = _relay(
    "openai_responses_create",
    "Create a response with memory",
    "OpenAI's Responses API with the bot's memory (`client.responses.create(...)` on the same client as chat "
    "completions). With `previous_response_id` the upstream holds the conversation; each request's turns are "
    "recorded once."
    + WHAT_KBSITE_ADDS.format(
        where="added after the request's `instructions`",
        upstream="`LLM_BASE_URL`'s `/responses`",
        shape="OpenAI's",
    ),
    example={"model": "llama3.1:8b", "input": "What should I cook tonight?", "user": "alice"},
    shape="OpenAIError",
    security=BEARER,
)
MESSAGES = _relay(
    "anthropic_messages_create",
    "Create an Anthropic message with memory",
    "Anthropic's Messages API with the bot's memory. Point an Anthropic client at it: "
    '`Anthropic(base_url="<kbsite>/anthropic", api_key="<the bot\'s kbsite key>")`, and name the end user in '
    "Anthropic's own `metadata.user_id`. The caller's `anthropic-version` and `anthropic-beta` headers go along."
    + WHAT_KBSITE_ADDS.format(
        where="added after the request's `system` (a text, or one more text block)",
        upstream="`ANTHROPIC_BASE_URL` with `ANTHROPIC_API_KEY`",
        shape="Anthropic's",
    ).replace("(`user`, or `metadata.user_id`)", "(`metadata.user_id`)"),
    example={
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "What should I cook tonight?"}],
        "metadata": {"user_id": "alice"},
    },
    shape="AnthropicError",
    security=[{"anthropicKey": []}, {"botKey": []}],
)
MODELS = {
    "get": {
        "operationId": "openai_models_list",
        "summary": "List the upstream's models",
        "description": "The upstream's models (`LLM_BASE_URL`'s `/models`), as it lists them: what "
        "`client.models.list()` shows.",
        "tags": ["chat proxy"],
        "security": BEARER,
        "responses": {
            "200": {"description": "The upstream's answer.", "content": {"application/json": {"schema": ANY_OBJECT}}},
            **_errors(
                "OpenAIError",
                {k: RELAY_ERRORS[k] for k in ("401", "429", "502", "503", "504")},
            ),
        },
    }
}
MCP = {
    "post": {
        "operationId": "mcp",
        "summary": "Call the bot tools over MCP",
        "description": (
            "An MCP server (streamable HTTP, stateless, JSON answers; the official `mcp` SDK) with the bot tools of "
            "`/api/v1/tools/`: `memory_search`, `memory_add`, `memory_update`, `memory_forget`, `knowledge_search`, "
            "`knowledge_read`, `knowledge_write`, `knowledge_list`, `search_knowledge_base`. Give an MCP client the "
            'URL and the headers, e.g. `{"type": "http", "url": "<kbsite>/mcp/", "headers": {"Authorization": '
            '"Bearer <key>", "X-User-Id": "alice"}}`. The body is a JSON-RPC 2.0 message (`initialize`, '
            "`tools/list`, `tools/call`…), as the client sends it.\n\n"
            "`X-User-Id` scopes every call to one end user (a key of one end user needs none and may name no other: "
            "403). A read-only key is offered, and may call, only the tools that read. A refused call (bad arguments, "
            "another bot's KB, a missing document) is a tool error whose text says why; the gate refuses a bad key "
            "(401), a request past the key's rate limit (429 with `Retry-After`) and a bad `X-User-Id` (400). Served "
            "by `manage.py serve` (ASGI) only, not under a WSGI server."
        ),
        "tags": ["mcp"],
        "security": BEARER,
        "parameters": [
            {
                "name": "X-User-Id",
                "in": "header",
                "required": False,
                "description": "The end user every call is for (`user_id`'s pattern).",
                "schema": {"type": "string"},
            }
        ],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": ANY_OBJECT,
                    "example": {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                }
            },
        },
        "responses": {
            "200": {"description": "The JSON-RPC answer.", "content": {"application/json": {"schema": ANY_OBJECT}}},
            **_errors(
                "McpError",
                {
                    "400": "`X-User-Id` is not a user_id.",
                    "401": "No valid key: send `Authorization: Bearer <key>`.",
                    "403": "A key of one end user naming another user.",
                    "429": "Past the key's rate limit.",
                },
            ),
        },
    }
}
PATHS = {
    "/openai/v1/chat/completions": CHAT,
    "/openai/v1/responses": RESPONSES,
    "/openai/v1/models": MODELS,
    "/anthropic/v1/messages": MESSAGES,
    "/mcp/": MCP,
}


def proxies_described(result, generator, request, public):
    """drf-spectacular post-processing hook: the chat proxies' and MCP's paths, their error shapes and Anthropic's
    way of sending the key."""
    components = result.setdefault("components", {})
    components.setdefault("schemas", {}).update(SCHEMAS)
    components.setdefault("securitySchemes", {}).update(SECURITY_SCHEMES)
    result.setdefault("paths", {}).update(PATHS)
    return result
