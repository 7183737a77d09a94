"""An end user's erasure: everything held about them in every KB of their bot, with an audit record that keeps no
content."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from django.db import transaction

from kbsite import locks
from kbsite.locks import Lock
from kbsite.models import EndUser, Erasure, KnowledgeBase
from memories import webhooks
from memories.rights.holdings import Holdings

logger = logging.getLogger(__name__)


def user_erase(*, end_user: EndUser, erased_by: str) -> dict[str, int]:
    """Erase everything held about ``end_user`` in every KB of their bot (:class:`Holdings`): turns and sessions,
    memories (retired history too), insights drawn from them, their entities and edges, their documents (archived
    conversations included) with their files on disk, pending ingest items, their inbox folders (waiting, claimed,
    processed and failed files); then the user. Keeps an :class:`Erasure` record with who asked, when and the
    counts, and no content. Returns the counts.

    Applies of the bot's KBs are held off meanwhile (their write locks), so a running extraction cannot write a
    fact of this user after it: its apply fails on the missing user and nothing is stored.
    """
    bot = end_user.bot
    kbs = list(KnowledgeBase.objects.filter(bot=bot).order_by("pk"))
    with transaction.atomic():
        for kb in kbs:
            locks.hold(Lock.KB_WRITE, kb.pk)
        holdings = Holdings.of(end_user)
        counts = holdings.counts()
        for kind in ("insights", "job_runs"):  # rows that do not name the user themselves
            holdings.rows[kind].model.objects.filter(
                pk__in=list(holdings.rows[kind].values_list("pk", flat=True))
            ).delete()
        end_user.delete()  # the rest goes with it (every row of theirs names them)
        digest = Erasure.digest(end_user.external_id)
        Erasure.objects.create(bot=bot, user_id_sha256=digest, erased_by=erased_by, counts=counts)
        webhooks.user_erased(bot_id=bot.pk, user_id_sha256=digest, counts=counts)
        transaction.on_commit(lambda: _files_remove(holdings.files, holdings.folders))
    logger.info("erased an end user of %s: %s", bot, counts)
    return counts


def _files_remove(paths: list[Path], folders: list[Path]) -> None:
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            logger.exception("could not remove %s of an erased end user", path)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
