"""Settings come from the environment, refuse bad values, and start nothing when imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _import_settings(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """Import kbsite.settings in a fresh interpreter and print the database name (empty values set here win
    over a developer's .env)."""
    clean = {**os.environ, "DATABASE_URL": "", "KBSITE_EMBEDDED_DATABASE_URL": ""}
    clean.update({"KBSITE_VAR_DIR": str(tmp_path / "var"), **env})
    code = "from kbsite import settings; print(settings.DATABASES['default']['NAME'], settings.EMBEDDED_DATABASE)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True)


def test_importing_settings_has_no_side_effects(tmp_path):
    """Importing settings neither starts the embedded database nor writes under var/: without DATABASE_URL
    and no process start-up before it, it says how to fix that."""
    result = _import_settings(tmp_path, SECRET_KEY="s" * 50)
    assert result.returncode != 0
    assert "DATABASE_URL is empty and no embedded database was started" in result.stderr
    assert not (tmp_path / "var").exists()


def test_settings_use_the_external_database_url(tmp_path):
    """With DATABASE_URL set, the settings point at that server and nothing under var/ is created."""
    result = _import_settings(tmp_path, SECRET_KEY="s" * 50, DATABASE_URL="postgresql://kb@db.example:5432/prod")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["prod", "False"]
    assert not (tmp_path / "var").exists()


def test_bad_values_stop_the_start_with_a_message(tmp_path):
    """A value of the wrong type names the variable and what it must be."""
    result = _import_settings(tmp_path, SECRET_KEY="s" * 50, DATABASE_URL="postgresql://kb@db/x", WORKERS="two")
    assert result.returncode != 0 and "WORKERS must be an integer, got 'two'" in result.stderr


def test_a_secret_key_is_required_once_var_has_none(tmp_path):
    """Without SECRET_KEY and without the key a process start generates, the settings say so."""
    result = _import_settings(tmp_path, SECRET_KEY="", DATABASE_URL="postgresql://kb@db/x")
    assert result.returncode != 0 and "SECRET_KEY is empty" in result.stderr


def test_the_random_page_cost_is_set_on_every_connection(db):
    """Recall's plans depend on it: an end user's scope was read by a full table scan at PostgreSQL's default."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert cursor.fetchone()[0] == "1.1"


def test_a_bad_random_page_cost_stops_the_start(tmp_path):
    result = _import_settings(
        tmp_path, SECRET_KEY="s" * 50, DATABASE_URL="postgresql://kb@db/x", DB_RANDOM_PAGE_COST="fast"
    )
    assert result.returncode != 0 and "DB_RANDOM_PAGE_COST must be a number, not 'fast'" in result.stderr
