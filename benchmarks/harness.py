"""Runs the real product (gunicorn + qcluster on the embedded PostgreSQL) in a separate
benchmark database, and feeds it LoCoMo through the REST API like a bot would."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
LOCOMO = ROOT.parent / "shared" / "eval" / "locomo_dev.json"


def configure(db_name: str = "kbsite_bench", workers: int | None = None, llm_base_url: str = "") -> dict:
    """Environment of the benchmark: its own database and data folder, offline mode (or, with ``llm_base_url``,
    LLM mode against that endpoint, e.g. :mod:`benchmarks.replay_llm`'s)."""
    env = {
        "EMBEDDED_DB_NAME": db_name,
        "KBSITE_DATA_DIR": str(ROOT / "var" / f"{db_name}-data"),
        "LLM_BASE_URL": llm_base_url,
        "LLM_MODEL": "replay" if llm_base_url else "",
        "LLM_API_KEY": "replay" if llm_base_url else "",
        "WORKERS": str(workers or int(os.environ.get("WORKERS", "2"))),
        "DJANGO_SETTINGS_MODULE": "kbsite.settings",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    os.environ.update(env)
    os.environ.pop("DATABASE_URL", None)
    from kbsite import boot

    boot.prepare()
    import django

    django.setup()
    return env


def memory_row(**values) -> list:
    """One row of ``memories.ingest.bulk.MEMORY_COLUMNS`` (without the id) for a benchmark's COPY: the values given by
    column name, a synthetic live memory's defaults for the rest, so that a new column breaks no loader."""
    from django.utils import timezone
    from psycopg.types.json import Jsonb

    from memories.ingest import bulk

    now = timezone.now()
    defaults = {
        "end_user_id": None,
        "kind": "fact",
        "entities": [],
        "topics": [],
        "importance": 0.5,
        "in_vector_index": False,
        "valid_from": now,
        "valid_to": None,
        "retired_reason": "",
        "source": "synthetic",
        "metadata": Jsonb({}),
        "language": "",
        "reading": Jsonb({}),
        "source_file": "",
        "source_chunk_id": None,
        "mode": "heuristic",
        "job_run_id": None,
        "consolidated": False,
        "quarantined": False,
        "quarantine_reason": "",
        "created_at": now,
        "updated_at": now,
    }
    row = defaults | values
    return [row[name] for name, _ in bulk.MEMORY_COLUMNS if name != "id"]


@contextlib.contextmanager
def indexes_dropped(condition: str, params: list | None = None):
    """Drop the memory table's indexes that ``condition`` (SQL on ``indexname``) names while a bulk load runs, and
    build them again afterwards, also when the load fails (a failed load left a database without them once)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories_memory' AND ({condition})",
            params or [],
        )
        indexes = cursor.fetchall()
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '1GB'")
            cursor.execute("SET max_parallel_maintenance_workers = 1")
            for name, definition in indexes:
                built = time.perf_counter()
                cursor.execute(definition)
                print(f"  built {name} in {time.perf_counter() - built:.0f}s", flush=True)
            cursor.execute("ANALYZE memories_memory")


def reset_database() -> None:
    from django.core.management import call_command

    from knowledge.schedules import ensure_schedules as ensure_knowledge_schedules
    from memories.schedules import ensure_schedules

    call_command("migrate", interactive=False, verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    ensure_schedules()
    ensure_knowledge_schedules()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Product:
    """gunicorn + qcluster as child processes, stopped on exit."""

    def __init__(self, env: dict, web_workers: int = 2, with_workers: bool = True, wsgi: bool | None = None):
        """The web tier as ``manage.py serve`` runs it (ASGI under uvicorn workers), or with ``wsgi`` (by default
        BENCH_WSGI=1 in the environment) the WSGI entry point under gunicorn's sync workers, for comparison."""
        wsgi = os.environ.get("BENCH_WSGI") == "1" if wsgi is None else wsgi
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {**os.environ, **env}
        self.log = open(ROOT / "var" / "bench-product.log", "w")  # noqa: SIM115
        app = ["kbsite.wsgi:application"] if wsgi else ["kbsite.asgi:application", "-k", "kbsite.serving.Worker"]
        self.procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    *app,
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "--workers",
                    str(web_workers),
                    "--timeout",
                    "300",
                ],
                cwd=ROOT,
                env=full_env,
                stdout=self.log,
                stderr=subprocess.STDOUT,
            )
        ]
        if with_workers:
            self.procs.append(
                subprocess.Popen(
                    [sys.executable, "manage.py", "qcluster"],
                    cwd=ROOT,
                    env=full_env,
                    stdout=self.log,
                    stderr=subprocess.STDOUT,
                )
            )
        try:
            self._wait_until_warm(web_workers)
        except BaseException:
            self.stop()  # a web tier that failed to boot must not leave the worker cluster running
            raise

    def _wait_until_warm(self, web_workers: int) -> None:
        """Until every web process has its embedding model ready: measured before, a recall would share the CPU
        with a model being loaded and traced (p50 33-49 ms instead of 17 ms)."""
        deadline, warm_in_a_row = time.monotonic() + 180, 0
        while time.monotonic() < deadline:
            try:
                warm = requests.get(f"{self.url}/api/health/", timeout=5).json().get("warm")
            except (requests.RequestException, ValueError):  # still starting (slow on a busy machine)
                warm = False
            warm_in_a_row = warm_in_a_row + 1 if warm else 0
            if warm_in_a_row >= 4 * web_workers:  # requests land on any process: enough of them said so
                return
            time.sleep(0.2)
        raise RuntimeError("product did not start or warm up; see var/bench-product.log")

    def stop_workers(self) -> None:
        """Stop the worker cluster (the web tier goes on): what is measured next shares the CPU with no
        background job."""
        for proc in self.procs[1:]:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        self.procs = self.procs[:1]

    def stop(self) -> None:
        for proc in self.procs:
            proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.log.close()


def make_bot(name: str = "bench") -> str:
    from kbsite.models import Bot

    bot, _ = Bot.objects.get_or_create(name=name)
    return bench_key(bot)


def bench_key(bot) -> str:
    """A new key of ``bot`` for a benchmark, its bot's rate limit raised to the most there is: a benchmark sends more
    than a new bot's 600 a minute, and its requests still take from their bucket, as in production."""
    from kbsite.keys import key_issue
    from kbsite.models import Bot
    from kbsite.models.bots import MAX_REQUESTS_PER_MINUTE

    Bot.objects.filter(pk=bot.pk).update(requests_per_minute=MAX_REQUESTS_PER_MINUTE)
    return key_issue(bot)[1]


def parse_locomo_date(text: str) -> str:
    """'1:56 pm on 8 May, 2023' -> ISO 8601 (UTC)."""
    moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def locomo() -> list[dict]:
    return json.loads(LOCOMO.read_text())


def conversation_sessions(sample: dict) -> list[tuple[str, str, list[dict]]]:
    """(session key, ISO date, turns) in order."""
    conv = sample["conversation"]
    keys = sorted(
        (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
        key=lambda k: int(k.split("_")[1]),
    )
    return [(k, parse_locomo_date(conv[f"{k}_date_time"]), conv[k]) for k in keys if conv[k]]


def kb_name(sample: dict, copy: int = 0) -> str:
    """The KB a conversation is posted to; ``copy`` > 0 names a further KB for the same conversation."""
    return "locomo-" + sample["sample_id"].lower().replace("_", "-") + (f"-{copy}" if copy else "")


def post_conversation(api_url: str, key: str, sample: dict, copy: int = 0) -> int:
    """Create the conversation's KB and post its sessions as the API's messages (a turn is the user's unless it
    says ``role``; a sample with ``user_id`` is that end user's). Returns turns posted."""
    headers = {"Authorization": f"Bearer {key}"}
    kb = kb_name(sample, copy)
    response = requests.post(f"{api_url}/api/v1/kbs/", json={"name": kb}, headers=headers, timeout=60)
    assert response.status_code in (201, 400), response.text
    posted = 0
    for session, date, turns in conversation_sessions(sample):
        messages = [
            {
                "external_id": t["dia_id"],
                "role": t.get("role", "user"),
                **({"speaker": t["speaker"]} if t.get("speaker") else {}),
                "content": t["text"],
                "created_at": date,
            }
            for t in turns
        ]
        body = {"session_id": f"{sample['sample_id']}-{session}", "messages": messages}
        if sample.get("user_id"):  # one end user's conversation (LoCoMo's are shared by both speakers)
            body["user_id"] = sample["user_id"]
        response = requests.post(
            f"{api_url}/api/v1/kbs/{kb}/messages/",
            json=body,
            headers=headers,
            timeout=120,
        )
        assert response.status_code == 202, response.text
        posted += len(messages)
    return posted


def wait_until_processed(timeout: float = 3600) -> None:
    """Until no turn is past its cursor and no job is queued or running."""
    from django.db import connection

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                """SELECT
                     (SELECT count(*) FROM memories_message m JOIN memories_session s ON s.id = m.session_id
                       WHERE m.id > s.extracted_through),
                     (SELECT count(*) FROM memories_jobrun WHERE status IN ('queued', 'running'))"""
            )
            pending, jobs = cursor.fetchone()
        if pending == 0 and jobs == 0:
            return
        # The end of ingestion is timed to within 50 ms; far from it, look less often (each look costs
        # the machine being measured a query).
        time.sleep(0.05 if pending < 200 else 0.5)
    raise TimeoutError("ingestion did not finish")


def failed_jobs() -> int:
    from kbsite.models import JobRun

    return JobRun.objects.filter(status="failed").count()


def cpu_seconds_by_role() -> dict[str, float]:
    """CPU seconds used so far by the processes on this machine, grouped by role."""
    import psutil

    totals: dict[str, float] = {}
    for proc in psutil.process_iter(["name", "cmdline", "cpu_times"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if "postgres" in (proc.info["name"] or ""):
            role = "postgres"
        elif "gunicorn" in cmd:
            role = "web"
        elif "qcluster" in cmd:
            role = "workers"
        elif "benchmarks" in cmd:
            role = "benchmark"
        else:
            continue
        times = proc.info["cpu_times"]
        if times:
            totals[role] = totals.get(role, 0.0) + times.user + times.system
            if os.environ.get("BENCH_DEBUG"):
                totals[f"{role}:{proc.pid}"] = times.user + times.system
    return totals


def warm_up_workers(workers: int, multilingual: bool = False) -> None:
    """Every worker process loads the embedding model before the clock starts (and the second, multilingual one)."""
    from django_q.tasks import async_task, result

    ids = [async_task("kbsite.tasks.warm_up", 3.0, multilingual) for _ in range(workers)]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not all(result(i) for i in ids):
        time.sleep(0.2)


# --- Modes: offline extraction, or the LLM path replaying LoCoMo's observations (benchmarks/replay_llm.py) ---

MODES = ("offline", "llm")
MODE_LABELS = {"offline": "offline", "llm": "LLM replay"}


def bench_modes(argv: list[str] | None = None) -> list[str]:
    """The modes to run: ``--mode offline|llm|offline,llm`` in ``argv``, else BENCH_MODES, else both."""
    argv = sys.argv[1:] if argv is None else argv
    wanted = os.environ.get("BENCH_MODES", ",".join(MODES))
    for n, arg in enumerate(argv):
        if arg.startswith("--mode="):
            wanted = arg.split("=", 1)[1]
        elif arg == "--mode" and n + 1 < len(argv):
            wanted = argv[n + 1]
    modes = [m.strip() for m in wanted.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SystemExit(f"unknown mode(s) {unknown or wanted!r}; choose from {', '.join(MODES)}")
    return modes


def result_path(argv: list[str] | None = None) -> Path | None:
    """Where a run of one mode writes its figures as JSON (``--result <path>``), for the run that started it."""
    argv = sys.argv[1:] if argv is None else argv
    if "--result" in argv and argv.index("--result") + 1 < len(argv):
        return Path(argv[argv.index("--result") + 1])
    return None


def modes_apart(module: str, modes: list[str], extra: list[str] = ()) -> dict[str, dict]:
    """Run ``python -m <module> --mode <mode>`` for each mode in turn, one after the other (each in a process of
    its own: a process's settings, its database among them, are read once), their output passed through; returns
    each mode's figures."""
    results: dict[str, dict] = {}
    for mode in modes:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
            path = Path(handle.name)
        try:
            print(f"-- {MODE_LABELS[mode]} --", flush=True)
            env = {k: v for k, v in os.environ.items() if k != "BENCH_MODES"}
            completed = subprocess.run(
                [sys.executable, "-m", module, "--mode", mode, "--result", str(path), *extra], cwd=ROOT, env=env
            )
            if completed.returncode != 0:
                raise SystemExit(f"{module} --mode {mode} failed (exit {completed.returncode})")
            results[mode] = json.loads(path.read_text())
        finally:
            path.unlink(missing_ok=True)
    return results


def wait_until_processed_reporting(timeout: float = 3600) -> None:
    """:func:`wait_until_processed`, printing each failed job's error as it comes (a failure that may pass is
    retried by the product itself, so the wait goes on)."""
    from kbsite.models import JobRun

    reported: set[int] = set()
    deadline = time.monotonic() + timeout
    while True:
        for pk, kind, error in (
            JobRun.objects.filter(status="failed").exclude(pk__in=reported).values_list("pk", "kind", "error")
        ):
            reported.add(pk)
            print(f"  job {pk} ({kind}) failed: {error[:500]}", flush=True)
        try:
            return wait_until_processed(timeout=min(30.0, max(1.0, deadline - time.monotonic())))
        except TimeoutError:
            if time.monotonic() >= deadline:
                raise


def ingest_totals(kb_names: list[str]) -> dict:
    """What the ingest of these KBs did: its job runs' counts, and the memories left live and retired."""
    from django.db.models import Count, Q, Sum

    from kbsite.models import JobRun
    from memories.models import Memory

    runs = JobRun.objects.filter(kb__name__in=kb_names)
    totals = runs.aggregate(
        llm_tokens_in=Sum("tokens_in"),
        llm_tokens_out=Sum("tokens_out"),
        facts_added=Sum("facts_added"),
        facts_skipped=Sum("facts_skipped"),
        facts_superseded=Sum("facts_superseded"),
        facts_quarantined=Sum("facts_quarantined"),
    )
    totals = {k: v or 0 for k, v in totals.items()}
    totals["job_runs"] = dict(runs.values_list("status").annotate(n=Count("id")).order_by())
    totals["failed_errors"] = sorted({e[:300] for e in runs.filter(status="failed").values_list("error", flat=True)})
    memories = Memory.objects.filter(kb__name__in=kb_names).aggregate(
        live=Count("id", filter=Q(retired_at__isnull=True)),
        retired=Count("id", filter=Q(retired_at__isnull=False)),
        quarantined=Count("id", filter=Q(quarantined=True)),
    )
    return {**totals, "memories": memories}


def print_ingest_totals(totals: dict) -> None:
    print(
        f"ingest: job runs {totals['job_runs']}; facts added {totals['facts_added']}, skipped "
        f"{totals['facts_skipped']} (repeats, near-duplicates, refused), superseded {totals['facts_superseded']}, "
        f"quarantined {totals['facts_quarantined']}; memories live {totals['memories']['live']}, retired "
        f"{totals['memories']['retired']}; LLM tokens in/out {totals['llm_tokens_in']:,}/{totals['llm_tokens_out']:,}",
        flush=True,
    )
    for error in totals["failed_errors"]:
        print(f"  failed job: {error}", flush=True)
