"""Webhooks: where they may be posted, how long a receiver is waited for, retries and their backoff, disabling, how
long the delivery log is kept."""

from __future__ import annotations

from kbsite.env import env_float, env_int, env_list

# Hosts (names or addresses) whose loopback, private or link-local addresses a webhook may still be posted to:
# local receivers, tests. Every other URL must resolve to public addresses only.
WEBHOOK_ALLOW_PRIVATE_HOSTS = env_list("WEBHOOK_ALLOW_PRIVATE_HOSTS")
# Seconds to connect, and to wait for the answer, per attempt.
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 5.0)
# Attempts of one delivery; after a failed one the next waits WEBHOOK_RETRY_SECONDS, times 4 each time after, up
# to WEBHOOK_RETRY_MAX_SECONDS (1 s, 4 s, 16 s, 64 s, 256 s). A wait up to WEBHOOK_RETRY_INLINE_SECONDS is
# waited by the worker; a longer one ends the task, and the jobs' sweep (every minute) queues it again when due.
WEBHOOK_ATTEMPTS = env_int("WEBHOOK_ATTEMPTS", 6, minimum=1)
WEBHOOK_RETRY_SECONDS = env_float("WEBHOOK_RETRY_SECONDS", 1.0)
WEBHOOK_RETRY_MAX_SECONDS = env_float("WEBHOOK_RETRY_MAX_SECONDS", 3600.0)
WEBHOOK_RETRY_INLINE_SECONDS = env_float("WEBHOOK_RETRY_INLINE_SECONDS", 5.0)
# An endpoint whose deliveries failed this many times in a row (each with every attempt spent) is disabled.
WEBHOOK_DISABLE_AFTER_FAILURES = env_int("WEBHOOK_DISABLE_AFTER_FAILURES", 5, minimum=1)
# Days a finished delivery (succeeded, or failed with every attempt spent) is kept in the log, its attempts with it;
# the hourly prune deletes older ones. Pending deliveries are never deleted.
WEBHOOK_DELIVERY_RETENTION_DAYS = env_int("WEBHOOK_DELIVERY_RETENTION_DAYS", 30, minimum=1)
