"""Background jobs: django-q2 on the ORM broker, and how long and how often a job may run."""

from __future__ import annotations

from kbsite.env import env_int

WORKERS = env_int("WORKERS", 2, minimum=1)
JOB_TIMEOUT_SECONDS = env_int("JOB_TIMEOUT_SECONDS", 600, minimum=10)
# After a SIGTERM, how long a task running may take to finish before its worker is killed (its job retried); the
# cluster is gone a few seconds later (kbsite.cluster), inside manage.py serve's 8 s.
WORKER_STOP_SECONDS = env_int("WORKER_STOP_SECONDS", 5, minimum=1)

# A failed job whose failure may pass (a provider down, a time limit, a lost worker) is queued again by itself,
# JOB_RETRY_SECONDS later, doubling each time up to JOB_RETRY_MAX_SECONDS, for at most JOB_RETRIES tries of one
# input; then it stays failed, where an operator sees it and can retry it.
JOB_RETRIES = env_int("JOB_RETRIES", 6, minimum=1)
JOB_RETRY_SECONDS = env_int("JOB_RETRY_SECONDS", 30, minimum=1)
JOB_RETRY_MAX_SECONDS = env_int("JOB_RETRY_MAX_SECONDS", 480, minimum=1)

# timeout < retry so a task is never picked up twice while still running;
# max_attempts is finite so a poisoned task ends up as a visible failure.
Q_CLUSTER = {
    "name": "kbsite",
    "orm": "default",
    "workers": WORKERS,
    "timeout": JOB_TIMEOUT_SECONDS,
    "retry": JOB_TIMEOUT_SECONDS + 60,
    "max_attempts": env_int("JOB_MAX_ATTEMPTS", 3, minimum=1),
    "poll": 0.25,  # seconds an idle worker cluster waits between looks at the queue
    "catch_up": False,
    "ack_failures": True,
    "save_limit": 1000,
    "label": "Background jobs",
}
