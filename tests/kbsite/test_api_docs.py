"""The API docs a developer can use (issue 32): every operation of the schema with a summary, a description and a
tag of the declared list, every error response in the one documented shape, the chat proxies and MCP described, the
overview saying how to authenticate and what errors look like; the admin links to /api/docs/, which renders."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from django.urls import reverse
from rest_framework.exceptions import ValidationError

from kbsite.api.exceptions import exception_handler

METHODS = {"get", "put", "post", "patch", "delete"}
PROXY_PATHS = {
    "/openai/v1/chat/completions": ("post", "OpenAIError"),
    "/openai/v1/responses": ("post", "OpenAIError"),
    "/openai/v1/models": ("get", "OpenAIError"),
    "/anthropic/v1/messages": ("post", "AnthropicError"),
    "/mcp/": ("post", "McpError"),
}


@pytest.fixture
def schema(anon) -> dict:
    response = anon.get("/api/schema/", headers={"Accept": "application/json"})
    assert response.status_code == 200, response.text
    return response.json()


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield f"{method.upper()} {path}", operation


def test_every_operation_has_a_summary_a_description_and_a_declared_tag(schema):
    """Each operation has a short summary, a description and one tag of the declared list; no declared tag is empty."""
    declared = [tag["name"] for tag in schema["tags"]]
    assert all(tag.get("description") for tag in schema["tags"])
    used = set()
    for name, operation in operations(schema):
        summary = operation.get("summary", "")
        assert summary.strip() and len(summary) <= 60 and not summary.endswith("."), name
        assert operation.get("description", "").strip(), name
        assert operation.get("tags") and set(operation["tags"]) <= set(declared), (name, operation.get("tags"))
        used.update(operation["tags"])
    assert used == set(declared)


def test_operations_are_tagged_by_resource(schema):
    """The tag is the resource acted on: a KB's memories are memories, erasing an end user is data rights."""
    tags = {name: operation["tags"] for name, operation in operations(schema)}
    assert tags["POST /api/v1/kbs/{name}/recall/"] == ["recall"]
    assert tags["POST /api/v1/kbs/{kb_name}/memories/{id}/retire/"] == ["memories"]
    assert tags["POST /api/v1/kbs/{kb_name}/documents/search/"] == ["documents"]
    assert tags["POST /api/v1/kbs/{name}/messages/"] == ["messages"]
    assert tags["GET /api/v1/users/{user_id}/"] == ["end users"]
    assert tags["DELETE /api/v1/users/{user_id}/"] == ["export and erasure"]
    assert tags["POST /api/v1/users/{user_id}/keys/"] == ["keys"]
    assert tags["GET /api/v1/kbs/"] == ["knowledge bases"]


def test_every_api_error_response_is_the_error_shape(schema):
    """Every 4xx and 5xx of an /api/ operation refers to the Error component, a ``detail`` or fields' messages; the
    429s say Retry-After."""
    error = schema["components"]["schemas"]["Error"]
    assert error["type"] == "object" and error["properties"]["detail"]["type"] == "string"
    for name, operation in operations(schema):
        if not name.split(" ")[1].startswith("/api/"):
            continue
        errors = {status: r for status, r in operation["responses"].items() if status[0] in "45"}
        assert {"400", "401", "404", "429"} <= set(errors), name
        for status, response in errors.items():
            assert response["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, (
                name,
                status,
            )
        assert "Retry-After" in errors["429"]["headers"], name


def test_the_chat_proxies_and_mcp_are_described(schema):
    """The proxies' and MCP's paths are in the schema with a description of how to use them and their errors in the
    shape their clients expect."""
    for path, (method, error) in PROXY_PATHS.items():
        operation = schema["paths"][path][method]
        assert len(operation["description"]) > 80, path
        for status, response in operation["responses"].items():
            if status[0] in "45":
                assert response["content"]["application/json"]["schema"]["$ref"].endswith(f"/{error}"), (path, status)
        assert error in schema["components"]["schemas"]
    chat = schema["paths"]["/openai/v1/chat/completions"]["post"]
    assert "base_url" in chat["description"] and "Kbsite-Usage-Tokens-In" in chat["responses"]["200"]["headers"]
    assert "Anthropic(base_url" in schema["paths"]["/anthropic/v1/messages"]["post"]["description"]
    assert "X-User-Id" in schema["paths"]["/mcp/"]["post"]["description"]
    assert "anthropicKey" in schema["components"]["securitySchemes"]


def test_the_overview_says_how_to_authenticate_and_what_errors_look_like(schema):
    """The schema's description covers keys, end users, read-only keys, rate limits and the one error shape."""
    overview = schema["info"]["description"]
    for said in ("Authorization: Bearer", "user_id", "Read-only keys", "429", "Retry-After", '{"detail"', "MCP"):
        assert said in overview, said


def test_an_error_raised_with_a_message_is_a_detail():
    """A validation error raised with messages rather than fields answers ``{"detail"}``, as the schema says."""
    assert exception_handler(ValidationError("Content is empty."), {}).data == {"detail": "Content is empty."}
    django_error = DjangoValidationError(["Too long.", "Not a slug."])
    assert exception_handler(django_error, {}).data == {"detail": "Too long. Not a slug."}
    assert exception_handler(ValidationError({"k": ["Too big."]}), {}).data == {"k": ["Too big."]}


def test_the_admin_links_to_the_api_docs(admin_client):
    """The dashboard and every admin page's user links lead to /api/docs/, which renders."""
    docs = reverse("api-docs")
    assert docs == "/api/docs/"
    dashboard = admin_client.get(reverse("admin:index")).content.decode()
    assert dashboard.count(f'href="{docs}"') == 2  # the user links and the dashboard's bar
    page = admin_client.get(reverse("admin:kbsite_bot_changelist")).content.decode()
    assert f'<a href="{docs}">API docs</a>' in page
    rendered = admin_client.get(docs)
    assert rendered.status_code == 200 and b"swagger-ui" in rendered.content and b"/api/schema/" in rendered.content


def test_the_messages_example_reads_like_a_real_request(schema):
    """Issue 42: the example body of POST messages has a readable user id and turn ids and a metadata object, not a
    random string and "metadata": "string"."""
    body = schema["paths"]["/api/v1/kbs/{name}/messages/"]["post"]["requestBody"]["content"]["application/json"]
    (example,) = body["examples"].values()
    assert example["value"]["user_id"] == "alice" and example["value"]["messages"][0]["external_id"] == "t1"
    components = schema["components"]["schemas"]
    turn = components["MessageIn"]["properties"]
    assert turn["metadata"]["type"] == "object" and turn["metadata"]["example"] == {"channel": "web"}
    assert turn["metadata"]["description"]
    user_id = components["MessagesIn"]["properties"]["user_id"]
    assert user_id["example"] == "alice"
