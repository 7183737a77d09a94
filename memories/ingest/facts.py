"""Facts from turns, by the LLM or offline by the heuristic extractor.

The LLM is shown the live facts it may supersede. Also how a failed extraction is recorded on its job.
"""

from __future__ import annotations

import logging
import re

from django.conf import settings
from django.contrib.postgres.search import SearchRank
from django.db.models import F
from django.utils import timezone

from kbsite.ai import llm
from kbsite.languages.fulltext import held, query_in
from kbsite.models import JobRun, KnowledgeBase, Mode
from memories.ingest.extraction import Extraction, Turn, extract_heuristic, extract_llm
from memories.models import Memory
from memories.text import content_words

logger = logging.getLogger(__name__)


def _live_facts_for_prompt(kb: KnowledgeBase, turns: list[Turn], end_user_id: int | None) -> list[tuple[int, str, str]]:
    """The live facts of the turns' owner the model should see (it may supersede them): those sharing words with
    the turns, then the most recent. An end user's turns are shown only their own facts."""
    limit = settings.EXTRACT_LIVE_FACTS
    if limit == 0:
        return []
    live = Memory.objects.injectable().owned_by(end_user_id).filter(kb=kb)
    words = sorted({w for t in turns for w in content_words(t.text) if re.fullmatch(r"[a-z0-9]+", w)})[:64]
    picked: list[tuple[int, str, str]] = []
    if words:
        query = query_in(" | ".join(words), held([kb]), search_type="raw")
        picked = list(
            live.filter(search_vector=query)
            .annotate(rank=SearchRank(F("search_vector"), query))
            .order_by("-rank")
            .values_list("id", "kind", "text")[:limit]
        )
    seen = {pk for pk, _, _ in picked}
    for row in live.order_by("-created_at").values_list("id", "kind", "text")[: limit * 2]:
        if len(picked) >= limit:
            break
        if row[0] not in seen:
            picked.append(row)
    return picked


def extract(
    kb: KnowledgeBase, turns: list[Turn], end_user_id: int | None = None, *, offline: bool = False
) -> Extraction:
    """The facts of ``turns``: by the LLM when one is configured, else (or ``offline``: the bot's LLM budget is
    spent and it chose to go on offline) by the heuristics."""
    if llm.is_configured() and not offline:
        live_facts = _live_facts_for_prompt(kb, turns, end_user_id)
        return extract_llm(turns=turns, live_facts=live_facts, now=timezone.now())
    return extract_heuristic(turns)


def mode(*, offline: bool = False) -> str:
    """The mode :func:`extract` works in."""
    return Mode.LLM if llm.is_configured() and not offline else Mode.HEURISTIC


def job_fail(job: JobRun, exc: Exception) -> JobRun:
    """Record a failed extraction on its job: the tokens spent, the LLM's attempts, and the error. A failure that
    may pass (the LLM or the embedding endpoint down, rate-limited, answering nonsense) is retried by itself; one
    that cannot (a file that is not text) is not."""
    tokens = getattr(exc, "tokens", (0, 0))
    job.tokens_in += tokens[0]
    job.tokens_out += tokens[1]
    attempts = getattr(exc, "attempts", None)
    if attempts:
        job.detail = {**job.detail, "llm_attempts": attempts}
    job.fail(f"{type(exc).__name__}: {exc}", retryable=getattr(exc, "retryable", True))
    logger.warning("job %s failed: %s", job.pk, exc)
    return job
