"""What a process does before Django reads its settings: the generated secret key, var/, the embedded database.

Called where a process starts (``manage.py``, ``kbsite.wsgi``, ``kbsite.asgi``, the test set-up), never by
importing settings. With DATABASE_URL empty, the embedded PostgreSQL under ``var/pgdata`` is started, or
reused when another process of the product already runs it, and its address is handed to the settings in
KBSITE_EMBEDDED_DATABASE_URL.
"""

from __future__ import annotations

import os
import secrets

from kbsite import embedded_db
from kbsite.env import env_str, var_dir


def prepare() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kbsite.settings")
    state = var_dir()
    (state / "static").mkdir(parents=True, exist_ok=True)
    if not env_str("SECRET_KEY"):
        # A stable per-installation key, so that admin sessions survive restarts.
        key_file = state / "secret_key"
        if not key_file.exists():
            key_file.write_text(secrets.token_urlsafe(50))
            key_file.chmod(0o600)
    if not env_str("DATABASE_URL"):
        os.environ["KBSITE_EMBEDDED_DATABASE_URL"] = embedded_db.database_url(
            state / "pgdata", database=env_str("EMBEDDED_DB_NAME", "kbsite")
        )
