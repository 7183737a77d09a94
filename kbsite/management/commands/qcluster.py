"""``manage.py qcluster``: django-q2's job worker cluster, with kbsite's sentinel, which stops within
WORKER_STOP_SECONDS of a SIGTERM to the cluster or to its process group (kbsite.cluster)."""

from __future__ import annotations

from django_q import cluster
from django_q.management.commands import qcluster

from kbsite.cluster import Sentinel


class Command(qcluster.Command):
    def handle(self, *args, **options):
        cluster.Sentinel = Sentinel  # the class django-q's Cluster.start runs as the sentinel process
        super().handle(*args, **options)
