"""The base app's own page: the health of a web process, for load balancers, scripts and benchmarks."""

from __future__ import annotations

from dataclasses import asdict

from django.db import connection
from django.http import JsonResponse

from kbsite import replicas
from kbsite.ai import llm
from kbsite.serving import warm


def health(request):
    """``{"status": "ok", "warm": …, "mode": …}``; 503 when the database does not answer. ``warm``: this process
    has its embedding model ready (until then its first recalls wait for it). With read replicas, ``replicas``:
    each one's status and lag (a replica that is down does not make the process unhealthy: the primary serves its
    reads)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # the database is down or unreachable
        return JsonResponse({"status": "down", "detail": f"database: {exc}"}, status=503)
    answer = {"status": "ok", "warm": warm.is_set(), "mode": "llm" if llm.is_configured() else "offline"}
    if replicas.configured():
        answer["replicas"] = [asdict(state) for state in replicas.replica_states()]
    return JsonResponse(answer)
