"""The database: an external PostgreSQL with pgvector (DATABASE_URL), or the embedded server under var/."""

from __future__ import annotations

import os

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from kbsite.env import env_int, env_list, env_str

# kbsite.boot starts (or reuses) the embedded server when DATABASE_URL is empty, and says where it is in
# KBSITE_EMBEDDED_DATABASE_URL.
EMBEDDED_DATABASE = not env_str("DATABASE_URL")
DATABASE_URL = env_str("DATABASE_URL") or env_str("KBSITE_EMBEDDED_DATABASE_URL")
if not DATABASE_URL:
    raise ImproperlyConfigured(
        "DATABASE_URL is empty and no embedded database was started: set DATABASE_URL, or start kbsite through "
        "manage.py, kbsite.wsgi or kbsite.asgi, which start the embedded server under var/pgdata."
    )

# The web process pools its connections (psycopg's pool): under ASGI each request's sync view runs in a thread of
# its own, and without a pool every request would open a connection (a PostgreSQL backend started: 15 ms of a
# recall). kbsite.asgi says it is the web process (KBSITE_WEB_PROCESS) before the settings load. Other processes do
# not pool: the worker cluster forks its processes, and a pool's open connections must not cross a fork; they keep
# a connection per thread for DB_CONN_MAX_AGE seconds.
WEB_DB_POOL_SIZE = env_int("WEB_DB_POOL_SIZE", 20, minimum=0)
DB_POOL_SIZE = WEB_DB_POOL_SIZE if os.environ.get("KBSITE_WEB_PROCESS") == "asgi" else 0
# The memories live in RAM or on SSD. Priced as a spinning disk (PostgreSQL's default, 4), a few hundred index
# reads look dearer than a scan of the whole table, and recall for an end user ("theirs or shared", a condition
# the planner cannot estimate) read the table from end to end. 1.1 is PostgreSQL's own advice for SSD; empty: the
# server's setting.
DB_RANDOM_PAGE_COST = env_str("DB_RANDOM_PAGE_COST", "1.1")
if DB_RANDOM_PAGE_COST:
    try:
        float(DB_RANDOM_PAGE_COST)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DB_RANDOM_PAGE_COST must be a number, not {DB_RANDOM_PAGE_COST!r}") from exc


def _database(url: str, *, wait_seconds: int = 30) -> dict:
    """Django's settings of one server at ``url``: pooled in the web process, else a connection per thread;
    ``wait_seconds``: how long a request waits for a connection before it fails."""
    database = dj_database_url.parse(url, conn_max_age=0 if DB_POOL_SIZE else env_int("DB_CONN_MAX_AGE", 60, minimum=0))
    options = database.setdefault("OPTIONS", {})
    if DB_POOL_SIZE:
        options["pool"] = {"min_size": 1, "max_size": DB_POOL_SIZE, "timeout": wait_seconds}
    else:
        database["CONN_HEALTH_CHECKS"] = True
    # A unix-socket URL (?host=/path) arrives as an option; Django expects it as HOST.
    if "host" in options:
        database["HOST"] = options.pop("host")
    if DB_RANDOM_PAGE_COST:
        options["options"] = f"{options.get('options', '')} -c random_page_cost={DB_RANDOM_PAGE_COST}".strip()
    return database


DATABASES = {"default": _database(DATABASE_URL)}

# Streaming replicas of the primary (comma-separated URLs), for the API's reads: recall, context, ask, lists and
# exports (kbsite.replicas). A read goes to a replica that has replayed its bot's last write, else to the primary;
# a replica that fails is left alone for REPLICA_DOWN_SECONDS while the primary serves its reads. Their aliases:
# replica1, replica2, …; in tests each mirrors the primary.
DATABASE_REPLICA_URLS = env_list("DATABASE_REPLICA_URLS")
# A replica that does not answer costs a read at most this long before the primary serves it.
REPLICA_CONNECT_SECONDS = env_int("REPLICA_CONNECT_SECONDS", 2, minimum=1)
REPLICA_DOWN_SECONDS = env_int("REPLICA_DOWN_SECONDS", 30, minimum=1)
# A replica whose replay is further behind than this (seconds) serves nobody until it catches up.
REPLICA_MAX_LAG_SECONDS = env_int("REPLICA_MAX_LAG_SECONDS", 30, minimum=0)
DATABASE_REPLICAS = []
for number, replica_url in enumerate(DATABASE_REPLICA_URLS, 1):
    DATABASE_REPLICAS.append(f"replica{number}")
    DATABASES[f"replica{number}"] = _database(replica_url, wait_seconds=REPLICA_CONNECT_SECONDS)
    DATABASES[f"replica{number}"]["OPTIONS"].setdefault("connect_timeout", REPLICA_CONNECT_SECONDS)
    # A pooled connection is checked before a read takes it (psycopg's pool: an empty statement). The connections
    # a web process had pooled to a replica that was then restarted failed one by one on their first use, and
    # each failure left the replica alone for REPLICA_DOWN_SECONDS more, though it was up again (make scale-out:
    # no read reached the restarted replica in 100 rounds).
    DATABASES[f"replica{number}"]["CONN_HEALTH_CHECKS"] = True
    DATABASES[f"replica{number}"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["kbsite.replicas.ReplicaRouter"] if DATABASE_REPLICAS else []
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
