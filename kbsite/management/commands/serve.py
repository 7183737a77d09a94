"""``manage.py serve``: the whole product on one machine — web and workers together.

Applies migrations, makes sure an admin login and a demo bot exist, then runs
gunicorn (web) and ``manage.py qcluster`` (workers) as child processes until
interrupted. Both share the embedded PostgreSQL server this process holds.
"""

from __future__ import annotations

import secrets
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from kbsite.ai import llm
from kbsite.models import Bot, KnowledgeBase


class Command(BaseCommand):
    help = "Run the web server and the background workers together."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default=settings.BIND)
        parser.add_argument("--web-workers", type=int, default=settings.WEB_WORKERS)
        parser.add_argument("--no-worker", action="store_true", help="Web only (run qcluster elsewhere).")

    def handle(self, *args, bind: str, web_workers: int, no_worker: bool, **options):
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=0)
        password = self._ensure_admin()
        demo_key = self._ensure_demo_bot()
        children = self._start(bind, web_workers, with_workers=not no_worker)
        self._banner(bind, time.monotonic() - started, password, demo_key)

        def stop(*_):
            for child in children:
                if child.poll() is None:
                    child.terminate()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            stop()
            for child in children:
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()

    def _start(self, bind: str, web_workers: int, *, with_workers: bool) -> list[subprocess.Popen]:
        """gunicorn (web) and, unless told otherwise, ``manage.py qcluster`` (workers), as child processes."""
        python, root = sys.executable, settings.BASE_DIR
        web = [python, "-m", "gunicorn", "kbsite.asgi:application", "--bind", bind, "--workers", str(web_workers)]
        children = [subprocess.Popen([*web, "--config", "python:kbsite.gunicorn_conf"], cwd=root)]
        if with_workers:
            children.append(subprocess.Popen([python, str(root / "manage.py"), "qcluster"], cwd=root))
        return children

    def _banner(self, bind: str, seconds: float, password: str, demo_key: str) -> None:
        host = bind if not bind.startswith("0.0.0.0") else bind.replace("0.0.0.0", "localhost")
        db = (
            "embedded PostgreSQL under var/pgdata"
            if settings.EMBEDDED_DATABASE
            else "external PostgreSQL (DATABASE_URL)"
        )
        lines = [
            "",
            f"kbsite is up ({seconds:.1f}s) on {db}",
            f"  {llm.mode_label()}",
            f"  Admin:    http://{host}/admin/   user 'admin', password {password}",
            f"  API docs: http://{host}/api/docs/",
            f"  Demo bot 'demo' (KB 'notes', always on) API key: {demo_key}",
            f"  Try: curl -H 'Authorization: Bearer {demo_key}' http://{host}/api/v1/kbs/",
            "Press Ctrl+C to stop.",
            "",
        ]
        self.stdout.write("\n".join(lines))
        self.stdout.flush()

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
        _, plain = bot.issue_key(name="demo")
        key_file.write_text(plain)
        key_file.chmod(0o600)
        return plain
