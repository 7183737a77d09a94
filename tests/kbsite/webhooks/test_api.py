"""The webhooks API: registering an endpoint (its secret answered once), listing, updating, deleting it, and the
addresses refused: loopback, private and link-local ones, unless WEBHOOK_ALLOW_PRIVATE_HOSTS lists the host."""

from __future__ import annotations

import pytest

from kbsite.webhooks.models import WebhookEndpoint

PUBLIC = "https://93.184.216.34/hooks/kbsite"  # an address literal: no name to resolve


def test_an_endpoint_is_registered_listed_updated_and_deleted_its_secret_shown_once(api, other_api):
    """POST answers the secret; list and detail never show it again; PATCH changes the events; DELETE removes it;
    another bot sees none of it."""
    made = api.post("/api/v1/webhooks/", json={"url": PUBLIC, "events": ["memory.created", "job.failed"]})
    assert made.status_code == 201, made.text
    endpoint = made.json()
    assert endpoint["secret"].startswith("whsec_") and endpoint["is_active"] is True
    assert endpoint["events"] == ["memory.created", "job.failed"]
    assert WebhookEndpoint.objects.get().secret == endpoint["secret"]

    (listed,) = api.get("/api/v1/webhooks/").json()["results"]
    assert listed["id"] == endpoint["id"] and listed["secret"] is None
    assert api.get(f"/api/v1/webhooks/{endpoint['id']}/").json()["secret"] is None
    assert other_api.get("/api/v1/webhooks/").json()["results"] == []
    assert other_api.get(f"/api/v1/webhooks/{endpoint['id']}/").status_code == 404

    patched = api.patch(f"/api/v1/webhooks/{endpoint['id']}/", json={"events": ["user.erased"]})
    assert patched.status_code == 200 and patched.json()["events"] == ["user.erased"]
    assert patched.json()["secret"] is None
    disabled = api.patch(f"/api/v1/webhooks/{endpoint['id']}/", json={"is_active": False}).json()
    assert disabled["is_active"] is False and disabled["disabled_reason"] == "disabled by the bot"

    assert other_api.delete(f"/api/v1/webhooks/{endpoint['id']}/").status_code == 404
    assert api.delete(f"/api/v1/webhooks/{endpoint['id']}/").status_code == 204
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://localhost/hook",
        "http://[::1]/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://172.16.5.4/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        "http://100.64.0.1/hook",
    ],
)
def test_a_webhook_to_a_private_address_is_refused(api, settings, url):
    """Loopback, private, link-local, unspecified and shared addresses: a 400 that says why and how to allow it."""
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS = []
    response = api.post("/api/v1/webhooks/", json={"url": url, "events": ["memory.created"]})
    assert response.status_code == 400, response.text
    message = response.json()["url"][0]
    assert "loopback, private, link-local" in message and "WEBHOOK_ALLOW_PRIVATE_HOSTS" in message
    assert not WebhookEndpoint.objects.exists()


def test_a_private_host_listed_in_the_setting_is_allowed(api, settings):
    """WEBHOOK_ALLOW_PRIVATE_HOSTS lets a named host (or address) through, and only it."""
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS = ["localhost"]
    assert api.post("/api/v1/webhooks/", json={"url": "http://localhost:9/h", "events": ["job.failed"]}).ok
    refused = api.post("/api/v1/webhooks/", json={"url": "http://127.0.0.2:9/h", "events": ["job.failed"]})
    assert refused.status_code == 400


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"url": "ftp://93.184.216.34/x", "events": ["job.failed"]}, "url", "http"),
        ({"url": "https://user:pw@93.184.216.34/x", "events": ["job.failed"]}, "url", "password"),
        ({"url": "https://no-such-host.invalid/x", "events": ["job.failed"]}, "url", "does not resolve"),
        ({"url": PUBLIC, "events": []}, "events", "empty"),
        ({"url": PUBLIC, "events": ["memory.exploded"]}, "events", "not a valid choice"),
        ({"url": PUBLIC}, "events", "required"),
    ],
)
def test_what_cannot_be_registered_is_a_400_saying_what_to_fix(api, body, field, says):
    response = api.post("/api/v1/webhooks/", json=body)
    assert response.status_code == 400, response.text
    assert says in str(response.json()[field])


def test_the_schema_describes_the_webhooks_under_their_tag(anon):
    """The OpenAPI schema lists the routes under the tag 'webhooks', the secret documented as shown once."""
    schema = anon.get("/api/schema/", headers={"Accept": "application/json"}).json()
    paths = {path: ops for path, ops in schema["paths"].items() if path.startswith("/api/v1/webhooks/")}
    assert set(paths) == {
        "/api/v1/webhooks/",
        "/api/v1/webhooks/{id}/",
        "/api/v1/webhooks/{id}/deliveries/",
        "/api/v1/webhooks/{id}/rotate-secret/",
        "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver/",
    }
    assert all(op["tags"] == ["webhooks"] for ops in paths.values() for op in ops.values() if isinstance(op, dict))
    secret = schema["components"]["schemas"]["WebhookEndpoint"]["properties"]["secret"]
    assert "never again" in secret["description"]
