"""The schema's overview (its ``info.description``, markdown: authentication, end users, read-only keys, rate limits,
the one error shape, the surfaces beside the REST API) and its tags in the docs' order, each with what it groups."""

from __future__ import annotations

from kbsite.api.schema.operations import TAGS

OVERVIEW = """\
Always-on memory and knowledge bases for chat bots. A bot posts its conversations and documents; background workers
turn them into atomic, bi-temporal memories (a contradicted fact is retired, never deleted) with provenance back to
the turn each came from; the bot recalls them, or asks for one context block to put in its next LLM call.

## Authentication

Send a key of the bot with every request: `Authorization: Bearer <key>`. A key sees only its own bot: another bot's
knowledge base, memory or job is a 404. Keys come from `manage.py create_bot NAME`, the admin (Bots), or
`POST /api/v1/keys/` with a key of the bot (to rotate them); a key is shown once, only its SHA-256 is kept.

- **End users.** Name the person a request is for with `user_id` (in the query or the body; `X-User-Id` on MCP;
  `user` or `metadata.user_id` on the chat proxies). Recall, the context block and ask then read that user's memory
  and the shared one, never another user's; what is posted for them is theirs. Without one they read the shared
  memory only, and what is posted is the KB's shared knowledge.
- **Keys of one end user** (`POST /api/v1/users/{user_id}/keys/`), for a client on that user's own machine, act as
  that user only: a request that names no user is theirs, one that names another user is a 403, and what only the
  bot may do (KB settings, memory lists, documents, jobs, exports of a KB, other keys) is a 403 that says so.
- **Read-only keys** (of the bot, or `"read_only": true` for an end user's) list, read, recall, build the context,
  ask and search; everything that writes (and the chat proxies, which record the conversation) is a 403.

## Rate limits

Each key may make its bot's `requests_per_minute` (600 for a new bot; `GET/PATCH /api/v1/bot/`) steadily, plus a
burst of `RATE_LIMIT_BURST_SECONDS` (10 s) worth at once, on the API, the chat proxies and MCP alike. Past it the
answer is a **429** with `Retry-After` (whole seconds) and a message naming the limit.

## Errors

Every error a client can cause is a 4xx (and a backend the request needs being down, the embedding endpoint, a
503), in one JSON shape, the `Error` schema: `{"detail": "what went wrong and what to fix"}`. A 400 for invalid
input names each invalid field with a list of its messages instead:
`{"k": ["Ensure this value is less than or equal to 100."]}` (`non_field_errors` for the request as a whole).
Unknown paths under `/api/` (404), wrong methods (405), bodies
over the limit (413) and the server's own errors answer in the same shape. Each operation lists the statuses it
may give. The chat proxies answer errors in OpenAI's or Anthropic's shape, so their clients raise their own
exceptions; MCP's gate answers `{"error": {"code", "message"}}`.

## Lists and usage

Lists are paginated: `page` and `page_size` (at most 500) in, `{"count", "next", "previous", "results"}` out.
Recall, the context block, ask and tool calls answer with their `usage` (the LLM calls, tokens and embeddings
kbsite spent on them, and the server's milliseconds); `GET /api/v1/usage/` adds them up per day.

## Beyond the REST API

- **Chat proxy** (`/openai/v1/chat/completions`, `/openai/v1/responses`, `/openai/v1/models`,
  `/anthropic/v1/messages`): give an OpenAI or Anthropic client kbsite's URL and the bot's key; each request gets
  the end user's memory as a system block, goes on to the upstream model, and its turns are recorded for ingest.
- **MCP** (`/mcp/`): the bot tools for any MCP client, over streamable HTTP.
"""


def overview_written(result, generator, request, public):
    """drf-spectacular post-processing hook: the overview as the schema's description, and its tags in order."""
    result.setdefault("info", {})["description"] = OVERVIEW
    result["tags"] = [{"name": name, "description": description} for name, description in TAGS]
    return result
