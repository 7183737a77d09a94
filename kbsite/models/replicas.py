"""Where each bot's last write left the primary's write-ahead log, so that its next reads see it on a replica."""

from __future__ import annotations

from django.db import models

from kbsite.models.bots import Bot


class WriteMark(models.Model):
    """The primary's WAL insert position (``pg_lsn`` as text) just after the bot's last successful write.

    Written only by :func:`kbsite.replicas.written` while replicas are configured, one statement per write. A read
    goes to a replica only once that replica has replayed past its bot's mark (read-your-writes); else to the
    primary. UNLOGGED (migration 0021): a mark is worth no WAL of its own, and after a crash none is needed.
    """

    bot = models.OneToOneField(Bot, primary_key=True, on_delete=models.CASCADE, related_name="+")
    lsn = models.CharField(max_length=32)

    class Meta:
        db_table = "kbsite_writemark"

    def __str__(self) -> str:
        return f"{self.bot_id}: {self.lsn}"
