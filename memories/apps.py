"""The memory domain: conversations become facts, recalled for a bot's context."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self):
        from memories import signals, tasks  # noqa: F401 - KB schedule handlers; the tasks of memory jobs
        from memories.schedules import ensure_schedules

        post_migrate.connect(ensure_schedules, sender=self)
