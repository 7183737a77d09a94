"""The base app: bots, API keys, knowledge bases and job runs, and the plumbing both domain apps use."""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.db.models.signals import post_migrate


class KbsiteConfig(AppConfig):
    name = "kbsite"
    verbose_name = "Bots and jobs"

    def ready(self):
        from kbsite import receivers  # noqa: F401 - prepares each job worker as it starts
        from kbsite.operators import ensure_operators_group
        from kbsite.schedules import ensure_schedules

        post_migrate.connect(ensure_schedules, sender=self)
        post_migrate.connect(ensure_operators_group)


class KbsiteAdminConfig(admin_apps.AdminConfig):
    """``django.contrib.admin`` (in INSTALLED_APPS in its place) with kbsite's site, whose index page is the
    dashboard."""

    default = False  # kbsite's own app is KbsiteConfig

    default_site = "kbsite.admin_site.KbsiteAdminSite"
