"""What the base app tells the domain apps (receivers are in receivers.py)."""

from django.dispatch import Signal

# Sent in each worker process of the job cluster once it is prepared (not for tasks run inline).
worker_ready = Signal()
