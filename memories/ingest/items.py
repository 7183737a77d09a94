"""The ingest job of a text or document item, resumable group by group.

Its segments extracted in LLM-sized groups and applied one group at a time, so a retry resumes after the groups
already applied; the bot's LLM budget is read before each group (spent: the rest offline, or the item waits).
"""

from __future__ import annotations

from django.utils import timezone

from kbsite import budgets
from kbsite.ai import embeddings, llm, splitting
from kbsite.jobs import job_wait
from kbsite.models import JobRun
from memories import services
from memories.ingest.apply import facts_apply
from memories.ingest.extraction import Turn
from memories.ingest.facts import extract, job_fail, mode
from memories.ingest.receive import enqueue_item_ingest
from memories.models import IngestItem

SEGMENT_CHARS = 2500
LANGUAGE_CHARS = 2000  # what of a text tells its language
LLM_CALL_CHARS = 8000


def _segments(item: IngestItem) -> tuple[list[int], list[str], list[str], str]:
    """The item's segments (a document's chunks, so that each fact cites the chunk it came from; else pieces of its
    text), their chunk ids, their languages, and the facts' source."""
    if item.kind == IngestItem.Kind.DOCUMENT:
        rows = (
            list(item.document.chunks.order_by("ordinal").values_list("id", "text", "language"))
            if item.document
            else []
        )
        return [pk for pk, _, _ in rows], [text for _, text, _ in rows], [code for _, _, code in rows], item.source
    segments = splitting.pieces(item.text, SEGMENT_CHARS)
    told = item.kb.languages_of([item.text[:LANGUAGE_CHARS]]) * len(segments)
    item.kb.languages_note(told[:1])
    source = f"inbox:{item.file_name}" if item.kind == IngestItem.Kind.FILE else f"api:{item.source or 'text'}"
    return [], segments, told, source


def item_ingest(*, job: JobRun) -> JobRun:
    """Ingest a text or file item, resuming after the segments already applied."""
    item = job.object
    kb = item.kb
    if job.status != JobRun.Status.RUNNING:  # an inbox file's job started before reading the file
        job.start()
    chunk_ids, segments, told, source = _segments(item)
    try:
        position = item.progress
        while position < len(segments):
            # Group segments into one LLM call of at most LLM_CALL_CHARS.
            group, size = [], 0
            while position + len(group) < len(segments):
                segment = segments[position + len(group)]
                if group and size + len(segment) > LLM_CALL_CHARS:
                    break
                group.append(segment)
                size += len(segment)
            state = budgets.llm_state(kb.bot_id, job=job)
            if state == budgets.WAIT:  # the item keeps its progress and resumes there once tokens are left
                return job_wait(job, f"{budgets.SPENT}: the item waits at segment {position} of {len(segments)}")
            if budgets.held(state):
                key, why = budgets.offline_why(job)  # the spent budget, or an operator's "run now offline"
                job.detail = {**job.detail, key: f"{why}: the rest extracted offline"}
            turns = [
                Turn(ref=f"s{position + i}", text=seg, role="document", language=told[position + i])
                for i, seg in enumerate(group)
            ]
            job.items_read += len(turns)
            extraction = extract(kb, turns, item.end_user_id, offline=state != budgets.LLM)
            facts_apply(
                end_user_id=item.end_user_id,
                kb=kb,
                extraction=extraction,
                turn_message_ids={},
                turn_metadata={t.ref: item.metadata for t in turns} if item.metadata else None,
                turn_languages={t.ref: t.language for t in turns},
                job=job,
                source=source,
                source_file=item.file_name,
                turn_chunks={t.ref: chunk_ids[position + i] for i, t in enumerate(turns)} if chunk_ids else None,
            )
            position += len(group)
            IngestItem.objects.filter(pk=item.pk).update(progress=position)
    except (llm.LLMError, embeddings.EmbeddingError) as exc:
        IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.FAILED, error=str(exc))
        return job_fail(job, exc)
    IngestItem.objects.filter(pk=item.pk).update(
        status=IngestItem.Status.DONE, error="", processed_at=timezone.now(), progress=len(segments)
    )
    job.mode = job.mode or mode()
    job.finish(status=JobRun.Status.SUCCEEDED)
    services.kb_term_stats_refresh_if_due(kb=kb)
    services.kb_vector_index_if_due(kb=kb)
    return job


def item_release(job: JobRun, reason: str) -> None:
    """Show the item of a job that ended unexpectedly as failed with the reason (it resumes where it stopped)."""
    IngestItem.objects.filter(pk=job.object_id, status=IngestItem.Status.PENDING).update(
        status=IngestItem.Status.FAILED, error=reason
    )


def item_retry(job: JobRun) -> JobRun | None:
    """Queue a failed text or document item again; it resumes after the segments already applied."""
    item = job.object
    if not isinstance(item, IngestItem) or item.kind not in (IngestItem.Kind.TEXT, IngestItem.Kind.DOCUMENT):
        return None
    IngestItem.objects.filter(pk=item.pk).update(status=IngestItem.Status.PENDING, error="")
    return enqueue_item_ingest(item=item)
