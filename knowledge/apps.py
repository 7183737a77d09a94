"""Knowledge documents: files, uploads and their search."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge"

    def ready(self):
        from knowledge import receivers, tasks  # noqa: F401 - what knowledge does when signalled; its jobs' tasks
        from knowledge.schedules import ensure_schedules

        post_migrate.connect(ensure_schedules, sender=self)
