"""The webhook delivery task (django-q2): takes a delivery's id, calls the service."""

from __future__ import annotations

from kbsite.webhooks.services import delivery_run


def delivery_send(delivery_id: int) -> str | None:
    """Attempt one delivery (and its quick retries): see kbsite.webhooks.services.delivery_run."""
    return delivery_run(delivery_id=delivery_id)
