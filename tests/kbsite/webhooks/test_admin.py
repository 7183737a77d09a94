"""Webhooks in the admin: an endpoint registered (its secret shown once, a private address refused), a disabled one
shown so and enabled again, the delivery log with each attempt, and redeliver."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from kbsite.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from tests.conftest import run_queued_tasks


@pytest.fixture
def admin_client(db) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="x"))
    return client


def add(admin_client, bot, url: str):
    data = {"bot": bot.pk, "url": url, "events": ["memory.created", "job.failed"], "description": "", "is_active": "on"}
    return admin_client.post(reverse("admin:kbsite_webhookendpoint_add"), data, follow=True)


def test_an_endpoint_added_in_the_admin_shows_its_secret_once(admin_client, bot, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS = []
    refused = add(admin_client, bot, "http://169.254.169.254/latest/")
    assert "link-local" in refused.content.decode() and not WebhookEndpoint.objects.exists()

    page = add(admin_client, bot, "https://93.184.216.34/hook")
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.events == ["memory.created", "job.failed"]
    assert f"(shown once, copy it now): {endpoint.secret}" in page.content.decode()
    change = admin_client.get(reverse("admin:kbsite_webhookendpoint_change", args=[endpoint.pk])).content.decode()
    assert endpoint.secret not in change


def test_a_disabled_endpoint_is_shown_so_and_enabled_again(admin_client, bot):
    endpoint = WebhookEndpoint.objects.create(
        bot=bot,
        url="https://93.184.216.34/hook",
        events=["job.failed"],
        is_active=False,
        disabled_reason="disabled after 5 deliveries failed in a row",
        consecutive_failures=5,
    )
    listed = admin_client.get(reverse("admin:kbsite_webhookendpoint_changelist")).content.decode()
    assert "disabled</strong>: disabled after 5 deliveries failed in a row" in listed
    admin_client.post(
        reverse("admin:kbsite_webhookendpoint_changelist"), {"action": "enable", "_selected_action": [endpoint.pk]}
    )
    endpoint.refresh_from_db()
    assert endpoint.is_active and endpoint.consecutive_failures == 0 and endpoint.disabled_reason == ""


def test_the_delivery_log_shows_each_attempt_and_redelivers(admin_client, bot, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_HOSTS, settings.WEBHOOK_ATTEMPTS = ["127.0.0.1"], 1
    endpoint = WebhookEndpoint.objects.create(bot=bot, url="http://127.0.0.1:9/closed", events=["job.failed"])
    delivery = WebhookDelivery.objects.create(
        bot=bot, endpoint=endpoint, event_id="evt_1", event_type="job.failed", body='{"id": "evt_1"}'
    )
    WebhookAttempt.objects.create(
        delivery=delivery, number=1, started_at=delivery.created_at, response_code=500, response_body="oops"
    )
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status="failed", attempts=1, response_code=500)
    listed = admin_client.get(reverse("admin:kbsite_webhookdelivery_changelist")).content.decode()
    assert "job.failed" in listed and "127.0.0.1:9/closed" in listed and ">500<" in listed
    page = admin_client.get(reverse("admin:kbsite_webhookdelivery_change", args=[delivery.pk])).content.decode()
    assert "oops" in page and "500" in page

    answer = admin_client.post(
        reverse("admin:kbsite_webhookdelivery_changelist"),
        {"action": "redeliver", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert "1 deliveries queued again" in answer.content.decode()
    again = WebhookDelivery.objects.exclude(pk=delivery.pk).get()
    assert again.event_id == "evt_1" and again.redelivery_of == delivery and again.status == "pending"
    run_queued_tasks()  # nothing listens on port 9: refused, logged
    again.refresh_from_db()
    assert again.status == "failed" and again.attempt_log.get().error
    assert not admin_client.get(reverse("admin:kbsite_webhookdelivery_add")).status_code == 200
