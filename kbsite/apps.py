"""The base app: bots, API keys, knowledge bases and job runs, and the plumbing both domain apps use."""

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class KbsiteConfig(AppConfig):
    name = "kbsite"
    verbose_name = "Bots and jobs"

    def ready(self):
        from kbsite import receivers  # noqa: F401 - prepares each job worker as it starts
        from kbsite.operators import ensure_operators_group
        from kbsite.schedules import ensure_schedules
        from kbsite.webhooks import receivers as _webhooks  # noqa: F401 - failed jobs, spent budgets, due retries

        post_migrate.connect(ensure_schedules, sender=self)
        post_migrate.connect(ensure_operators_group)
