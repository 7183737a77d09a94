"""The webhook tasks (django-q2): a delivery's (takes its id), and the hourly prune of the delivery log; each calls
its service."""

from __future__ import annotations

from kbsite.webhooks.services import deliveries_prune, delivery_run


def delivery_send(delivery_id: int) -> str | None:
    """Attempt one delivery (and its quick retries): see kbsite.webhooks.services.delivery_run."""
    return delivery_run(delivery_id=delivery_id)


def deliveries_old_prune() -> int:
    """The scheduled prune (hourly): see kbsite.webhooks.services.deliveries_prune."""
    return deliveries_prune()
