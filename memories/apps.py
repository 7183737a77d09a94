"""The memory domain: conversations become facts, recalled for a bot's context."""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.db.models.signals import post_migrate


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self):
        from memories import receivers, tasks  # noqa: F401 - what memories does when signalled; its jobs' tasks
        from memories.schedules import ensure_schedules

        post_migrate.connect(ensure_schedules, sender=self)


class OperatorsAdminConfig(admin_apps.AdminConfig):
    """``django.contrib.admin`` (in INSTALLED_APPS in its place) whose site's index page is the operators'
    dashboard (:mod:`memories.admin.site`, :mod:`memories.admin.dashboard`)."""

    default = False  # the memories app's own config is MemoriesConfig
    default_site = "memories.admin.site.operators_site"
