"""The bot's own keys through the API, to rotate them without the admin: list, issue (shown once), revoke; another
bot's keys are out of reach, and a read-only key or a key of one end user cannot issue any."""

from __future__ import annotations

from kbsite.models import ApiKey
from tests.conftest import ApiClient


def test_rotate_the_bots_key(api, other_api, bot, kb):
    listed = api.get("/api/v1/keys/").json()["results"]
    assert [k["prefix"] for k in listed] == [api.key[:10]] and listed[0]["key"] is None
    issued = api.post("/api/v1/keys/", json={"name": "rotated"})
    assert issued.status_code == 201, issued.text
    new = ApiClient(base_url=api.base_url, key=issued.json()["key"])
    assert new.get("/api/v1/kbs/").status_code == 200
    old_id = next(k["id"] for k in listed)
    assert new.delete(f"/api/v1/keys/{old_id}/").status_code == 204
    assert api.get("/api/v1/kbs/").status_code == 401
    assert new.get("/api/v1/keys/").json()["results"][1]["revoked_at"] is not None
    # Another bot's keys are neither listed nor revocable.
    assert other_api.get("/api/v1/keys/").json()["results"][0]["prefix"] == other_api.key[:10]
    assert other_api.delete(f"/api/v1/keys/{issued.json()['id']}/").status_code == 404
    assert new.get("/api/v1/kbs/").status_code == 200


def test_who_cannot_issue_keys(api, bot, kb):
    reader = ApiClient(base_url=api.base_url, key=api.post("/api/v1/keys/", json={"read_only": True}).json()["key"])
    assert reader.get("/api/v1/keys/").status_code == 200
    assert reader.post("/api/v1/keys/", json={}).status_code == 403
    user_key = api.post("/api/v1/users/ann/keys/", json={}).json()["key"]
    ann = ApiClient(base_url=api.base_url, key=user_key)
    assert ann.get("/api/v1/keys/").status_code == 403 and ann.post("/api/v1/keys/", json={}).status_code == 403
    # The bot's list holds its own keys, not its end users'.
    assert len(api.get("/api/v1/keys/").json()["results"]) == 2
    assert ApiKey.objects.filter(bot=bot).count() == 3
