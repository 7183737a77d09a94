"""Each API operation's place in the docs: its tag (the resource it acts on, read from its path) and a short
imperative summary (the table below, else the first clause of its description); the tags in the order the docs show
them, each with what it groups."""

from __future__ import annotations

import re

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema

ERASURE = "export and erasure"

# The docs' sections, in the order a developer meets them: what a bot posts, what it reads back, what it curates,
# then the bot's own administration; the surfaces that are not REST last.
TAGS = [
    ("knowledge bases", "A bot's knowledge bases: create, configure, count what each holds, clear, consolidate."),
    ("messages", "Conversations in: chat turns by session (idempotent by `external_id`), texts, archives."),
    ("memories", "The atomic, bi-temporal facts drawn from turns and texts: list, read, edit, retire, restore."),
    ("insights", "What consolidation links across memories."),
    ("recall", "Ranked memories and insights for a query (full text + vector + graph, fused)."),
    ("context", "One system-prompt block across the bot's always-on knowledge bases, for its next LLM call."),
    ("ask", "An answer to a question from a knowledge base's memories, citing them."),
    ("documents", "Markdown written through to files, uploads indexed in the background, hybrid chunk search."),
    ("reviews", "The review queue: supersessions and conflicts to accept, revert or keep both."),
    ("tools", "The bot tools as OpenAI function definitions, and calling one (the same tools MCP serves)."),
    ("end users", "The people a bot talks to, named by `user_id`: counts and what is held about each."),
    (ERASURE, "Data rights: an end user's or a whole knowledge base's data as JSON Lines; import; erasure."),
    ("keys", "The bot's own API keys, and keys of one end user."),
    ("jobs", "Background work (extraction, indexing, consolidation…): what each run did, retry a failed one."),
    ("usage", "What the bot used per day, knowledge base and end user: requests, LLM calls, tokens, embeddings."),
    ("bot", "The calling bot's own settings: its name, rate limit and LLM budget."),
    ("webhooks", "Signed event subscriptions (`Kbsite-Signature`), with each endpoint's delivery log."),
    ("chat proxy", "OpenAI's and Anthropic's chat APIs with the bot's memory added: point their clients here."),
    ("mcp", "The bot tools over the Model Context Protocol (streamable HTTP), for any MCP client."),
]
TAG_NAMES = [name for name, _ in TAGS]

# The tag of a path: that of its last literal segment found here (/kbs/{name}/memories/{id}/retire/: memories).
SEGMENT_TAGS = {
    "kbs": "knowledge bases",
    "clear": "knowledge bases",
    "consolidate": "knowledge bases",
    "messages": "messages",
    "ingest": "messages",
    "archive": "messages",
    "memories": "memories",
    "insights": "insights",
    "recall": "recall",
    "context": "context",
    "ask": "ask",
    "documents": "documents",
    "reviews": "reviews",
    "tools": "tools",
    "users": "end users",
    "export": ERASURE,
    "import": ERASURE,
    "keys": "keys",
    "jobs": "jobs",
    "usage": "usage",
    "bot": "bot",
    "webhooks": "webhooks",
}

SUMMARIES = {
    "GET /api/v1/kbs/": "List knowledge bases",
    "POST /api/v1/kbs/": "Create a knowledge base",
    "GET /api/v1/kbs/{name}/": "Read a knowledge base with its counts",
    "PATCH /api/v1/kbs/{name}/": "Change a knowledge base's settings",
    "DELETE /api/v1/kbs/{name}/": "Delete a knowledge base",
    "POST /api/v1/kbs/{name}/clear/": "Clear a knowledge base's memories",
    "POST /api/v1/kbs/{name}/consolidate/": "Consolidate a knowledge base now",
    "POST /api/v1/kbs/{name}/messages/": "Post chat turns",
    "POST /api/v1/kbs/{name}/ingest/": "Post a text to remember",
    "POST /api/v1/kbs/{kb_name}/archive/": "Archive a session's turns",
    "GET /api/v1/kbs/{kb_name}/memories/": "List memories",
    "GET /api/v1/kbs/{kb_name}/memories/{id}/": "Read a memory with its sources",
    "PATCH /api/v1/kbs/{kb_name}/memories/{id}/": "Edit a memory",
    "DELETE /api/v1/kbs/{kb_name}/memories/{id}/": "Delete a memory",
    "GET /api/v1/kbs/{kb_name}/memories/{id}/history/": "List a memory's versions",
    "POST /api/v1/kbs/{kb_name}/memories/{id}/retire/": "Retire a memory",
    "POST /api/v1/kbs/{kb_name}/memories/{id}/restore/": "Restore a retired memory",
    "GET /api/v1/kbs/{kb_name}/insights/": "List insights",
    "GET /api/v1/kbs/{kb_name}/insights/{id}/": "Read an insight",
    "POST /api/v1/kbs/{name}/recall/": "Recall memories",
    "GET /api/v1/context/": "Build the memory context block",
    "POST /api/v1/kbs/{name}/ask/": "Ask a question",
    "GET /api/v1/kbs/{kb_name}/documents/": "List documents",
    "POST /api/v1/kbs/{kb_name}/documents/": "Upload files or post a document's text",
    "GET /api/v1/kbs/{kb_name}/documents/{slug}/": "Read a document with its content",
    "PUT /api/v1/kbs/{kb_name}/documents/{slug}/": "Write a markdown document",
    "DELETE /api/v1/kbs/{kb_name}/documents/{slug}/": "Delete a document",
    "POST /api/v1/kbs/{kb_name}/documents/{slug}/reindex/": "Index a document again",
    "POST /api/v1/kbs/{kb_name}/documents/search/": "Search documents",
    "GET /api/v1/reviews/": "List review items",
    "GET /api/v1/reviews/{id}/": "Read a review item",
    "POST /api/v1/reviews/{id}/accept/": "Accept a review item",
    "POST /api/v1/reviews/{id}/revert/": "Revert a review item",
    "POST /api/v1/reviews/{id}/keep-both/": "Keep both facts of a review item",
    "GET /api/v1/tools/": "List the bot tools",
    "POST /api/v1/tools/{name}/": "Call a bot tool",
    "GET /api/v1/users/": "List end users",
    "GET /api/v1/users/{user_id}/": "Read an end user",
    "GET /api/v1/users/{user_id}/export/": "Export an end user's data",
    "DELETE /api/v1/users/{user_id}/": "Erase an end user",
    "GET /api/v1/kbs/{name}/export/": "Export a knowledge base",
    "POST /api/v1/kbs/{name}/import/": "Import an export into a knowledge base",
    "GET /api/v1/keys/": "List the bot's keys",
    "POST /api/v1/keys/": "Issue a key of the bot",
    "DELETE /api/v1/keys/{id}/": "Revoke a key of the bot",
    "GET /api/v1/users/{user_id}/keys/": "List an end user's keys",
    "POST /api/v1/users/{user_id}/keys/": "Issue a key of an end user",
    "DELETE /api/v1/users/{user_id}/keys/{id}/": "Revoke a key of an end user",
    "GET /api/v1/jobs/": "List background jobs",
    "GET /api/v1/jobs/{id}/": "Read a job",
    "POST /api/v1/jobs/{id}/retry/": "Retry a failed job",
    "POST /api/v1/jobs/{id}/run-offline/": "Run a waiting job now offline",
    "GET /api/v1/usage/": "Read daily usage",
    "GET /api/v1/bot/": "Read the bot's settings",
    "PATCH /api/v1/bot/": "Change the bot's settings",
    "GET /api/v1/webhooks/": "List webhook endpoints",
    "POST /api/v1/webhooks/": "Register a webhook endpoint",
    "GET /api/v1/webhooks/{id}/": "Read a webhook endpoint",
    "PATCH /api/v1/webhooks/{id}/": "Change a webhook endpoint",
    "DELETE /api/v1/webhooks/{id}/": "Delete a webhook endpoint",
    "GET /api/v1/webhooks/{id}/deliveries/": "List a webhook endpoint's deliveries",
    "POST /api/v1/webhooks/{id}/rotate-secret/": "Rotate a webhook endpoint's secret",
    "POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver/": "Redeliver a webhook delivery",
}

SUMMARY_CHARS = 60


def path_tag(method: str, path: str) -> str:
    """The resource ``method`` on ``path`` acts on: the tag of its last literal segment that has one (erasing an end
    user is data rights), else its first segment after the version."""
    literal = [part for part in path.strip("/").split("/") if part and not part.startswith("{")]
    if method == "DELETE" and literal[-1:] == ["users"]:
        return ERASURE
    known = [SEGMENT_TAGS[part] for part in literal if part in SEGMENT_TAGS]
    if known:
        return known[-1]
    return literal[2] if len(literal) > 2 else literal[-1]


def first_clause(text: str) -> str:
    """The first clause of a description, for an operation with no summary of its own: up to its first full stop,
    colon, semicolon or parenthesis, at most :data:`SUMMARY_CHARS` characters."""
    clause = re.split(r"[.:;(]\s|\n\n|\s\(", text.strip(), maxsplit=1)[0].strip()
    return clause if len(clause) <= SUMMARY_CHARS else clause[: SUMMARY_CHARS - 1].rsplit(" ", 1)[0] + "…"


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's schema of an operation, with its tag by resource and its summary (an ``extend_schema`` on
    the view overrides either)."""

    def get_tags(self) -> list[str]:
        return [path_tag(self.method, self.path)]

    def get_summary(self) -> str | None:
        return SUMMARIES.get(f"{self.method} {self.path}") or first_clause(self.get_description() or "") or None
