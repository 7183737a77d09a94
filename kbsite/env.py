"""Reading the environment: small typed helpers that refuse bad values with ImproperlyConfigured.

Real environment variables win over ``.env`` (KEY=VALUE lines at the top of the checkout), which is
read here without changing ``os.environ``: importing settings has no side effects.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=1)
def dotenv() -> dict[str, str]:
    """The ``.env`` file's KEY=VALUE lines (comments and blank lines skipped; quotes around values removed)."""
    path = BASE_DIR / ".env"
    if not path.is_file():
        return {}
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip("'\"")
    return values


def env_str(name: str, default: str = "") -> str:
    value = os.environ.get(name)
    if value is None:
        value = dotenv().get(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    raw = env_str(name)
    if raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = env_str(name)
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = env_str(name)
    if raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from exc


def env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated list, blanks dropped."""
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def var_dir() -> Path:
    """Where the product keeps its state: the embedded database, the secret key, static files, KB folders."""
    return Path(env_str("KBSITE_VAR_DIR", str(BASE_DIR / "var")))
