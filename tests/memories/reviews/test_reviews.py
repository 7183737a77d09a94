"""The review queue: every supersession and every open conflict is an item an operator (or the bot) accepts, reverts
or keeps both; another bot's items are out of reach."""

from __future__ import annotations

import pytest
from django.urls import reverse

from kbsite.models import EndUser
from memories.models import Memory, ReviewItem
from memories.reviews.records import conflict_open
from tests.conftest import operator_of, run_queued_tasks
from tests.factories import MemoryFactory


def post_turns(api, session: str, *texts: str, user: str = "alice") -> None:
    messages = [{"external_id": f"{session}-{n}", "role": "user", "content": t} for n, t in enumerate(texts)]
    response = api.post(
        "/api/v1/kbs/notes/messages/", json={"session_id": session, "user_id": user, "messages": messages}
    )
    assert response.status_code == 202, response.text
    run_queued_tasks()


def live_texts(kb) -> set[str]:
    return set(Memory.objects.filter(kb=kb).live().values_list("text", flat=True))


@pytest.fixture
def moved(api, kb):
    """Alice lived in Porto, then says she lives in Berlin: a restatement retires Porto."""
    post_turns(api, "s1", "I live in Porto.")
    post_turns(api, "s2", "I live in Berlin now.")
    assert live_texts(kb) == {"I live in Berlin now."}
    return ReviewItem.objects.get()


def test_a_restated_fact_is_an_open_supersession_item_with_both_texts_and_turns(api, kb, moved):
    """GET /reviews/ lists the supersession: both facts, their dates, their source turns, the reason."""
    response = api.get("/api/v1/reviews/", params={"status": "open"})
    assert response.status_code == 200
    (item,) = response.json()["results"]
    assert item["kind"] == "supersession" and item["status"] == "open" and item["user_id"] == "alice"
    assert item["older"]["text"] == "I live in Porto." and item["older"]["live"] is False
    assert item["newer"]["text"] == "I live in Berlin now." and item["newer"]["live"] is True
    assert item["older"]["source_turns"][0]["external_id"] == "s1-0"
    assert "restated: residence" in item["reason"]
    assert item["attribute"] == "residence"  # issue 42: it was "" (the admin showed "Attribute: -")


def test_revert_restores_the_older_fact_and_retires_the_newer(api, kb, moved):
    """Revert: Porto is live again, Berlin retired; the item says who settled it, and cannot be settled twice."""
    response = api.post(f"/api/v1/reviews/{moved.pk}/revert/")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "reverted" and response.json()["resolved_by"].startswith("API key")
    assert live_texts(kb) == {"I live in Porto."}
    again = api.post(f"/api/v1/reviews/{moved.pk}/accept/")
    assert again.status_code == 409 and "reverted" in again.json()["detail"]


def test_keep_both_makes_both_live(api, kb, moved):
    """Keep both: both facts are live."""
    assert api.post(f"/api/v1/reviews/{moved.pk}/keep-both/").status_code == 200
    assert live_texts(kb) == {"I live in Porto.", "I live in Berlin now."}


def test_accept_keeps_the_supersession(api, kb, moved):
    """Accept: nothing changes but the item's status."""
    assert api.post(f"/api/v1/reviews/{moved.pk}/accept/").json()["status"] == "accepted"
    assert live_texts(kb) == {"I live in Berlin now."}
    assert api.get("/api/v1/reviews/", params={"status": "open"}).json()["results"] == []


def test_accepting_a_conflict_retires_the_older_fact(api, kb):
    """Of an open conflict, accept lets the newer stand and retires the older by it."""
    alice = EndUser.objects.seen(kb.bot, "alice")
    older = MemoryFactory(kb=kb, end_user=alice, text="I work at Acme.")
    newer = MemoryFactory(kb=kb, end_user=alice, text="I work at Globex.")
    assert conflict_open(older=older, newer=newer, attribute="employer")
    item = api.get("/api/v1/reviews/", params={"kind": "conflict", "user_id": "alice"}).json()["results"][0]
    assert item["attribute"] == "employer"
    assert api.post(f"/api/v1/reviews/{item['id']}/accept/").status_code == 200
    older.refresh_from_db()
    assert not older.is_live and older.superseded_by_id == newer.pk


def test_an_edit_is_a_supersession_item(api, kb):
    """Editing a memory's text makes a new version: the edit is up for review too."""
    memory = MemoryFactory(kb=kb, text="The office opens at 9.")
    response = api.patch(f"/api/v1/kbs/notes/memories/{memory.pk}/", json={"text": "The office opens at 8."})
    assert response.status_code == 200, response.text
    item = ReviewItem.objects.get()
    assert (item.older_id, item.newer_id, item.reason) == (memory.pk, response.json()["id"], "edited")


def test_another_bot_cannot_see_or_settle_the_items(api, other_api, kb, moved):
    """Another bot's key: an empty list, and a 404 for the item and its actions; nothing changes."""
    listed = other_api.get("/api/v1/reviews/")
    assert listed.status_code == 200 and listed.json()["results"] == []
    assert api.get("/api/v1/reviews/").json()["count"] == 1  # the rightful caller sees it
    assert other_api.get(f"/api/v1/reviews/{moved.pk}/").status_code == 404
    assert other_api.post(f"/api/v1/reviews/{moved.pk}/revert/").status_code == 404
    assert live_texts(kb) == {"I live in Berlin now."}


def test_filters_refuse_a_bad_status(api, kb, moved):
    """An unknown status is a 400 naming the filter, not an empty or a full list."""
    response = api.get("/api/v1/reviews/", params={"status": "maybe"})
    assert response.status_code == 400 and "status" in response.json()


def test_status_all_lists_every_item_as_the_admin_offers_it(api, kb, moved):
    """?status=all (the admin's "All", and what the memories API accepts) lists settled and open items alike (it was
    a 400)."""
    assert api.post(f"/api/v1/reviews/{moved.pk}/accept/").status_code == 200
    everything = api.get("/api/v1/reviews/", params={"status": "all"})
    assert everything.status_code == 200, everything.text
    assert [item["id"] for item in everything.json()["results"]] == [moved.pk]
    assert api.get("/api/v1/reviews/", params={"status": "open"}).json()["results"] == []


def test_the_admin_queue_shows_both_facts_and_settles_in_one_click(admin_client, kb, moved):
    """The queue (open items by default) shows both texts, their dates and source turns; one button reverts; the
    dashboard counts what is open."""
    page = admin_client.get(reverse("admin:memories_reviewitem_changelist")).content.decode()
    assert "I live in Porto." in page and "I live in Berlin now." in page and "s1/s1-0" in page
    assert reverse("admin:memories_reviewitem_revert", args=[moved.pk]) in page
    assert '<span class="n">1</span>to review' in admin_client.get(reverse("admin:index")).content.decode()
    response = admin_client.post(reverse("admin:memories_reviewitem_revert", args=[moved.pk]))
    assert response.status_code == 302
    assert live_texts(kb) == {"I live in Porto."}
    moved.refresh_from_db()
    assert moved.status == "reverted" and moved.resolved_by == "operator admin"
    assert "I live in Porto." not in admin_client.get(reverse("admin:memories_reviewitem_changelist")).content.decode()


@pytest.mark.parametrize(
    "referer, back",
    [
        ("https://evil.example/phish", "/admin/memories/reviewitem/"),
        ("//evil.example/phish", "/admin/memories/reviewitem/"),
        (
            "http://testserver/admin/memories/reviewitem/?status__exact=open",
            "http://testserver/admin/memories/reviewitem/?status__exact=open",
        ),
    ],
)
def test_a_settled_item_returns_to_the_admin_page_it_came_from_never_another_site(admin_client, moved, referer, back):
    """The Referer is the client's to say: a settle returns to it only on this site, else to the queue."""
    response = admin_client.post(reverse("admin:memories_reviewitem_keep-both", args=[moved.pk]), HTTP_REFERER=referer)
    assert response.status_code == 302 and response["Location"] == back


def test_an_operator_of_another_bot_cannot_see_or_settle_an_item(client, kb, moved, other_bot):
    """As operator of another bot: the queue is empty of this bot's facts, the item's page and its buttons are a
    404, and nothing changes."""
    client.force_login(operator_of(other_bot))
    listed = client.get(reverse("admin:memories_reviewitem_changelist"))
    assert listed.status_code == 200 and "Porto" not in listed.content.decode()
    assert client.get(reverse("admin:memories_reviewitem_change", args=[moved.pk])).status_code in (302, 404)
    assert client.post(reverse("admin:memories_reviewitem_revert", args=[moved.pk])).status_code == 404
    moved.refresh_from_db()
    assert moved.status == "open" and live_texts(kb) == {"I live in Berlin now."}
