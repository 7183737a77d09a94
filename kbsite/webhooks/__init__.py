"""Webhooks: a bot's signed event subscriptions and the log of each delivery.

A bot registers endpoints (a URL and the event types it wants; ``api/``, ``admin.py``). Where something happens,
one call (:func:`kbsite.webhooks.services.event_emit`) records a delivery for each endpoint subscribed, in the
transaction of the change, and queues its task when that commits: no request ever waits for a receiver. The task
(``tasks.py``, ``delivery.py``) posts the event signed as Stripe signs its own (``signing.py``), to an address
checked as it is connected to (``addresses.py``), retries with backoff, and disables an endpoint that keeps failing.
The rows are in ``models.py``; the event types in ``events.py``.
"""
