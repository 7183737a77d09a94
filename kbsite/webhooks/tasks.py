"""The webhook tasks (django-q2): one endpoint's deliveries in order (an emission's, the sweep's, a redelivery's:
takes their ids), one delivery's (kept for the tasks queued before the sweep and redelivery queued batches: takes its
id), and the hourly prune of the delivery log; each calls its service."""

from __future__ import annotations

from kbsite.webhooks.services import deliveries_prune, deliveries_run, delivery_run


def delivery_send(delivery_id: int) -> str | None:
    """Attempt one delivery (and its quick retries): see kbsite.webhooks.services.delivery_run. Nothing queues it
    now; it runs the tasks queued before an upgrade."""
    return delivery_run(delivery_id=delivery_id)


def deliveries_send(delivery_ids: list[int]) -> dict[int, str | None]:
    """Attempt one endpoint's deliveries in order (and their quick retries): see
    kbsite.webhooks.services.deliveries_run."""
    return deliveries_run(delivery_ids=delivery_ids)


def deliveries_old_prune() -> int:
    """The scheduled prune (hourly): see kbsite.webhooks.services.deliveries_prune."""
    return deliveries_prune()
