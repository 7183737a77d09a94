"""The OpenAPI schema says what the API answers, errors included: every operation lists the error statuses the
API's handlers give (a JSON object with a ``detail`` message, or the fields and what is wrong with each)."""

from __future__ import annotations

ERROR = {
    "type": "object",
    "description": "What went wrong and what to fix: a `detail` message, or each invalid field with its messages.",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
ERRORS = {
    "400": "The request is malformed or a value is invalid (the body says which and why).",
    "401": "No valid API key: send `Authorization: Bearer <api key>`.",
    "403": "The resource is withheld (a flagged document).",
    "404": "No such knowledge base, memory, document, tool or endpoint for this bot.",
    "405": "The endpoint does not take this method.",
    "409": "The resource is in a state that refuses this (an inactive knowledge base, an already retired memory).",
    "413": "The request body is over the size limit.",
    "415": "The request body's content type is not accepted here.",
    "429": "Past this key's rate limit (its bot's requests per minute and burst): retry after `Retry-After` s.",
    "503": "A backend the request needs (the embedding endpoint) is unavailable; nothing was changed.",
}

RETRY_AFTER = {"description": "Whole seconds until the key may make a request again.", "schema": {"type": "integer"}}


def errors_documented(result, generator, request, public):
    """drf-spectacular post-processing hook: add the error responses to every operation, and their schema."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    reference = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            for status, description in ERRORS.items():
                responses.setdefault(status, {"description": description, "content": reference})
            responses["429"].setdefault("headers", {"Retry-After": RETRY_AFTER})
    return result
