from django.apps import AppConfig
from django.db.models.signals import post_migrate


class MemoriesConfig(AppConfig):
    name = "memories"
    verbose_name = "Memories"

    def ready(self):
        from memories.schedules import ensure_schedules

        post_migrate.connect(ensure_schedules, sender=self)
        from memories import signals  # noqa: F401 - connects the KB schedule handlers
