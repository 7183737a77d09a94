"""What the base app tells the domain apps (receivers are in receivers.py)."""

from django.dispatch import Signal

# Sent in each worker process of the job cluster once it is prepared (not for tasks run inline).
worker_ready = Signal()

# Sent by jobs.jobs_heal once lost runs are failed and due retries queued, inside its transaction: each domain
# app hands back what only it knows was left behind, and returns {repair: count}.
jobs_healed = Signal()
