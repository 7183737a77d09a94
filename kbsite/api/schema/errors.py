"""The API's one error shape in the schema: the ``Error`` component, and every operation's error responses (the
statuses the API's handlers give) referring to it."""

from __future__ import annotations

ERROR = {
    "type": "object",
    "description": (
        "Every error of the API: a JSON object whose `detail` says what went wrong and what to fix. A 400 for "
        "invalid input instead names each invalid field with a list of its messages (`non_field_errors` for the "
        'request as a whole; a nested object\'s fields nested the same way), e.g. `{"k": ["Ensure this value is '
        'less than or equal to 100."]}`.'
    ),
    "properties": {"detail": {"type": "string", "description": "What went wrong and what to fix."}},
    "additionalProperties": {"description": "An invalid field: its messages (a nested object: its fields')."},
    "example": {"detail": "This bot has no knowledge base named 'notes'."},
}
ERRORS = {
    "400": "The request is malformed or a value is invalid: `detail`, or each invalid field with its messages.",
    "401": "No valid API key: send `Authorization: Bearer <api key>`.",
    "403": (
        "Not for this key: a read-only key asked to write, a key of one end user asked for another user or for "
        "what only the bot's keys may do, or the resource is withheld (a flagged document)."
    ),
    "404": "No such knowledge base, memory, document, tool or endpoint for this bot.",
    "405": "The endpoint does not take this method.",
    "409": "The resource is in a state that refuses this (an inactive knowledge base, an already retired memory).",
    "413": "The request body is over the size limit.",
    "415": "The request body's content type is not accepted here.",
    "429": "Past this key's rate limit (its bot's requests per minute and burst): retry after `Retry-After` s.",
    "503": "A backend the request needs (the embedding endpoint) is unavailable; nothing was changed.",
}
REFERENCE = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}

RETRY_AFTER = {"description": "Whole seconds until the key may make a request again.", "schema": {"type": "integer"}}


def errors_documented(result, generator, request, public):
    """drf-spectacular post-processing hook: add the error responses to every operation of the API, and their
    schema. Run before the chat proxies and MCP are added: they answer errors in their clients' shapes."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            for status, description in ERRORS.items():
                responses.setdefault(status, {"description": description, "content": REFERENCE})
            responses["429"].setdefault("headers", {"Retry-After": RETRY_AFTER})
    return result
