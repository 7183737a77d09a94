from django.apps import AppConfig


class KnowledgeConfig(AppConfig):
    name = "knowledge"
    verbose_name = "Knowledge"

    def ready(self):
        from knowledge import signals  # noqa: F401 - queues a folder sync when a job worker starts
