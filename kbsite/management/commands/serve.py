"""``manage.py serve``: the whole product on one machine — web and workers together.

Applies migrations, makes sure an admin login and a demo bot exist, then runs gunicorn (web) and
``manage.py qcluster`` (workers) as child processes until interrupted. Both share the embedded PostgreSQL server
this process holds.

The console shows only what an operator needs: each step as it happens, the banner once the web answers (admin
URL, password, demo key, a curl that posts a turn and one that reads the context), and when the workers are warm.
The children's logs, warnings and progress bars go to ``var/log/kbsite.log``. Ctrl+C (or SIGTERM) stops
everything within STOP_SECONDS: what has not stopped by then is killed, and a job cut off is failed and retried
by the next start's healing.

Killed itself (``kill -9``, the OOM killer, a closed terminal), it takes its processes with it (kbsite.supervision:
the children's parent-death signal, a watchdog on a lifeline pipe). A start refuses while another serve runs from
the same var/, stops what a dead one left (``var/serve.pid``), and says so plainly when the port is taken.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from kbsite import embedded_db, supervision
from kbsite.ai import llm
from kbsite.keys import key_issue
from kbsite.models import Bot, KnowledgeBase

STOP_SECONDS = 8
WARM_MARKER = "kbsite worker warm"  # logged by each job worker once its model is loaded (kbsite.receivers)


class Command(BaseCommand):
    help = "Run the web server and the background workers together."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.BIND)
        parser.add_argument("--web-workers", type=int, default=settings.WEB_WORKERS)
        parser.add_argument("--no-worker", action="store_true", help="Web only (run qcluster elsewhere).")

    def handle(self, *args, bind: str, web_workers: int, no_worker: bool, **options):
        started = time.monotonic()
        pid_file = supervision.PidFile(settings.VAR_DIR / "serve.pid")
        self._clear_the_way(pid_file, bind)
        db = "embedded PostgreSQL under var/pgdata" if settings.EMBEDDED_DATABASE else "PostgreSQL at DATABASE_URL"
        self._say(f"kbsite: database ready ({db})")
        call_command("migrate", interactive=False, verbosity=0)
        password = self._ensure_admin()
        demo_key = self._ensure_demo_bot()
        self._say("kbsite: migrations applied; starting the web server and the workers")
        log_path = settings.VAR_DIR / "log" / "kbsite.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "ab")  # noqa: SIM115 - the children write to it until they stop
        log_start = log_path.stat().st_size
        children = self._start(bind, web_workers, log, with_workers=not no_worker)
        names = ["gunicorn", "qcluster"][: len(children)]
        recorded = [supervision.Recorded.of(n, c.pid) for n, c in zip(names, children, strict=True)]
        pgdata = settings.VAR_DIR / "pgdata" if settings.EMBEDDED_DATABASE else None
        watchdog = supervision.start_watchdog(recorded, STOP_SECONDS, pgdata, log)
        pid_file.write(bind, [*recorded, supervision.Recorded.of("watchdog", watchdog.pid)])
        stopping: list[str] = []

        def stop(signum, _frame):
            stopping.append(signal.Signals(signum).name)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            host = bind.replace("0.0.0.0", "localhost")
            if self._wait_for_web(host, children, stopping):
                self._banner(host, time.monotonic() - started, password, demo_key, log_path, not no_worker)
                self._watch(children, stopping, log_path, log_start, 0 if no_worker else settings.WORKERS)
        finally:
            self._stop(children, recorded, watchdog)
            pid_file.remove()
            log.close()

    def _clear_the_way(self, pid_file: supervision.PidFile, bind: str) -> None:
        """Before anything starts: refuse while another serve runs from this var/, stop what a serve that died left
        running (recorded in var/serve.pid), refuse a port that another program holds."""
        running = supervision.running_serve(pid_file)
        if running:
            address, pid = running
            raise CommandError(
                f"kbsite is already running from {settings.VAR_DIR} (manage.py serve, pid {pid}, web on {address}): "
                f"stop it first (Ctrl+C in its terminal, or kill {pid})."
            )
        stopped = supervision.stop_leftovers(pid_file, grace=STOP_SECONDS)
        if stopped:
            self._say(f"kbsite: stopped what an earlier run left running: {', '.join(stopped)}")
        busy = supervision.port_in_use(bind)
        if busy:
            raise CommandError(f"kbsite cannot start: {busy}. Stop it, or choose another address with --bind or BIND.")

    def _say(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def _start(self, bind: str, web_workers: int, log, *, with_workers: bool) -> list[subprocess.Popen]:
        """gunicorn (web) and, unless told otherwise, ``manage.py qcluster`` (workers), as child processes, each in
        a session of its own: a terminal's Ctrl+C reaches this process only, which stops them in order. Each gets
        SIGTERM from the kernel if this process dies without stopping them (kill -9, the OOM killer)."""
        python, root = sys.executable, settings.BASE_DIR
        web = [python, "-m", "gunicorn", "kbsite.asgi:application", "--bind", bind, "--workers", str(web_workers)]
        commands = [[*web, "--config", "python:kbsite.gunicorn_conf"]]
        if with_workers:
            commands.append([python, str(root / "manage.py"), "qcluster"])
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        return [
            subprocess.Popen(
                command,
                cwd=root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=supervision.die_with_parent(),
            )
            for command in commands
        ]

    def _wait_for_web(self, host: str, children: list[subprocess.Popen], stopping: list) -> bool:
        """Until the web server answers its health check (False if it died or a stop was asked first)."""
        while not stopping:
            if children[0].poll() is not None:
                self.stderr.write("kbsite: the web server stopped; see var/log/kbsite.log")
                return False
            try:
                if requests.get(f"http://{host}/api/health/", timeout=2).ok:
                    return True
            except requests.RequestException:
                pass
            time.sleep(0.3)
        return False

    def _watch(self, children, stopping: list, log_path: Path, log_start: int, workers: int) -> None:
        """Until a stop is asked or a child dies; says once when every job worker is warm."""
        warm, offset = 0, log_start
        while not stopping:
            names = ("web server", "workers")[: len(children)]
            dead = [name for name, child in zip(names, children, strict=True) if child.poll() is not None]
            if dead:
                self.stderr.write(f"kbsite: the {' and the '.join(dead)} stopped unexpectedly; see {log_path}")
                return
            if warm < workers:
                with open(log_path, "rb") as tail:
                    tail.seek(offset)
                    chunk = tail.read()
                # Only whole lines: a marker cut in two by a write in progress is counted on the next pass.
                offset += chunk.rfind(b"\n") + 1
                warm += chunk[: chunk.rfind(b"\n") + 1].count(WARM_MARKER.encode())
                if warm >= workers:
                    self._say(f"kbsite: the {workers} job workers are warm: what is posted now is processed at once.")
            time.sleep(0.5)
        self._say(f"kbsite: stopping ({stopping[0]})...")

    def _stop(self, children: list[subprocess.Popen], recorded: list, watchdog: subprocess.Popen) -> None:
        """SIGTERM to every child (gunicorn and django-q stop their own processes), SIGKILL to what is left of
        their process groups after STOP_SECONDS; then the watchdog and the embedded database. "Stopped" is said
        once every process is gone (the children's groups, the watchdog, PostgreSQL if this was its last holder)."""
        started = time.monotonic()
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = started + STOP_SECONDS
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        killed = [child for child in children if child.poll() is None]
        for child in children:
            _signal_group(child, signal.SIGKILL)  # the group's stragglers too (a worker stuck in a job)
        for child in killed:
            child.wait(timeout=10)
        left = supervision.groups_wait(recorded, timeout=10)  # a group's stragglers, after their leader
        watchdog.stdin.close()  # its lifeline: with nothing left to stop, it exits
        try:
            watchdog.wait(timeout=10)
        except subprocess.TimeoutExpired:
            left.append(watchdog)
        gone, note = ["web server", "workers"][: len(children)] + ["watchdog"], ""
        if settings.EMBEDDED_DATABASE:
            connections.close_all()
            if embedded_db.release():
                gone.append("embedded database")
            else:
                note = "; the embedded database runs on: another process holds it"
        note += f"; {len(killed)} killed (a job cut off is retried at the next start)" if killed else ""
        if left:
            note += f"; {len(left)} processes still running: {', '.join(str(p.pid) for p in left)}"
        self._say(f"kbsite: stopped in {time.monotonic() - started:.1f}s ({', '.join(gone)}){note}.")

    def _banner(self, host: str, seconds: float, password: str, key: str, log: Path, workers: bool) -> None:
        base = f"http://{host}"
        turn = {
            "session_id": "first-chat",
            "user_id": "alice",
            "messages": [
                {"external_id": "t1", "role": "user", "content": "I moved to Lisbon in May."},
                {"external_id": "t2", "role": "user", "content": "I am allergic to peanuts."},
            ],
        }
        auth = f"-H 'Authorization: Bearer {key}' -H 'Content-Type: application/json'"
        post_turn = f"curl -s {auth} {base}/api/v1/kbs/notes/messages/ -d {shlex.quote(json.dumps(turn))}"
        question = shlex.quote("query=Where does the user live and what can they not eat?")
        read_context = (
            f"curl -s -G -H 'Authorization: Bearer {key}' {base}/api/v1/context/ --data-urlencode {question} "
            "--data-urlencode user_id=alice | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"context\"])'"
        )
        rule = "=" * 78
        lines = [
            "",
            rule,
            f" kbsite is up ({seconds:.0f}s)   {llm.mode_label()}",
            rule,
            f" Admin:     {base}/admin/    user: admin    password: {password}",
            f" API docs:  {base}/api/docs/",
            f" Demo bot 'demo', KB 'notes' (always on), API key: {key}",
            "",
            " Post two turns:",
            f"   {post_turn}",
            " Read the context block a bot would get (once the turn is processed):",
            f"   {read_context}",
            "",
            f" Logs: {log}    Stop: Ctrl+C",
            (
                # Not "warming up": a reader (or a script) looking for the line that says the workers are warm
                # found this one, and posted half a minute before they were.
                " The job workers are loading the embedding model (about a minute on a small machine): what is"
                " posted meanwhile waits for them. The console says when they are ready."
                if workers
                else " No job workers here (--no-worker): run manage.py qcluster elsewhere."
            ),
            rule,
            "",
        ]
        self._say("\n".join(lines))

    def _ensure_admin(self) -> str:
        """The operator login; its password lives in var/admin-password unless ADMIN_PASSWORD is set."""
        password_file = settings.VAR_DIR / "admin-password"
        password = settings.ADMIN_PASSWORD or (
            password_file.read_text().strip() if password_file.exists() else secrets.token_urlsafe(12)
        )
        User = get_user_model()
        user = User.objects.filter(username="admin").first()
        if user is None:
            User.objects.create_superuser("admin", "admin@localhost", password)
            if not settings.ADMIN_PASSWORD:
                password_file.write_text(password)
                password_file.chmod(0o600)
        elif not user.check_password(password):
            return f"(unchanged; see {password_file} or set ADMIN_PASSWORD)"
        return password

    def _ensure_demo_bot(self) -> str:
        """A demo bot with an always-on KB. Its key is kept in var/demo-bot.key for this machine's operator."""
        key_file = settings.VAR_DIR / "demo-bot.key"
        bot, _ = Bot.objects.get_or_create(name="demo", defaults={"description": "Demo bot created by manage.py serve"})
        KnowledgeBase.objects.get_or_create(bot=bot, name="notes", defaults={"always_on": True, "records_chat": True})
        if key_file.exists():
            return key_file.read_text().strip()
        _, plain = key_issue(bot, name="demo")
        key_file.write_text(plain)
        key_file.chmod(0o600)
        return plain


def _signal_group(child: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(child.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone
