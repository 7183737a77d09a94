"""What the base app tells the domain apps and its webhooks (receivers are in the receivers.py of each)."""

from django.dispatch import Signal

# Sent in each worker process of the job cluster once it is prepared (not for tasks run inline).
worker_ready = Signal()

# Sent by jobs.jobs_heal once lost runs are failed and due retries queued, inside its transaction: each domain
# app hands back what only it knows was left behind, and returns {repair: count}.
jobs_healed = Signal()

# Sent by jobs when a job run has failed (``job``; ``error`` and ``retry_at``: what was written to its row without
# updating ``job``, if so), in the transaction of the change: its bot's webhooks are told (webhooks/receivers.py).
job_failed = Signal()

# Sent by budgets the first time in a day a bot's LLM budget is found spent (``bot_id``; ``data``: the day, the
# budget, what was spent, what its work does now): its webhooks are told (webhooks/receivers.py).
budget_spent = Signal()
