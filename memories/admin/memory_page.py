"""What a memory's admin page tells: its status on top (live or retired, when, why, by what), its versions, the turns
it came from (linked), the history page's versions and admin changes, and what deleting it would lose."""

from __future__ import annotations

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q, prefetch_related_objects
from django.urls import reverse
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from kbsite.models import Mode
from memories.models import Memory, ReviewItem

HOW = {Mode.LLM: "extracted by the LLM", Mode.HEURISTIC: "extracted offline", Mode.MANUAL: "written by hand"}


def status(memory: Memory) -> str:
    """``retired``, ``quarantined`` (live, never put into a context) or ``live``."""
    if not memory.is_live:
        return "retired"
    return "quarantined" if memory.quarantined else "live"


def turn_links(memory: Memory) -> SafeString:
    """The turns ``memory`` came from, each a link to its page, as ``session/turn`` (uses prefetched turns)."""
    return format_html_join(
        ", ",
        '<a href="{}">{}/{}</a>',
        (
            (reverse("admin:memories_message_change", args=[m.pk]), m.session.external_id, m.external_id)
            for m in memory.source_messages.all()
        ),
    )


def learned(memory: Memory) -> str:
    """How kbsite came to hold it: "extracted offline, source chat, job #4"."""
    parts = [HOW.get(memory.mode, memory.mode)]
    if memory.source:
        parts.append(f"source {memory.source}")
    if memory.job_run_id:
        parts.append(f"job #{memory.job_run_id}")
    return ", ".join(parts)


def versions(memory: Memory) -> list[Memory]:
    """Every version of ``memory`` (itself included, oldest first), with their turns: the wordings it replaced, the
    ones that replaced it, and on; all in its KB."""
    found = [v for v in memory.versions() if v.kb_id == memory.kb_id]
    prefetch_related_objects(found, "source_messages__session")
    return found


def version_rows(memory: Memory) -> list[dict]:
    """The versions as the page lists them: each memory, whether it is this page's, how it was learned and its
    turns."""
    return [
        {"memory": v, "this": v.pk == memory.pk, "learned": learned(v), "turns": turn_links(v), "status": status(v)}
        for v in versions(memory)
    ]


def story(memory: Memory) -> dict:
    """What the top of the page says: status, when and how it was learned and from which turns, what replaced it
    (and from which turns) or what it replaces, and its versions (when there is more than one)."""
    prefetch_related_objects([memory], "source_messages__session")
    replaced_by = memory.superseded_by if memory.superseded_by_id else None
    if replaced_by is not None:
        prefetch_related_objects([replaced_by], "source_messages__session")
    rows = version_rows(memory)
    return {
        "status": status(memory),
        "learned": learned(memory),
        "turns": turn_links(memory),
        "replaced_by": replaced_by,
        "replaced_by_turns": turn_links(replaced_by) if replaced_by else "",
        "replaces": list(memory.supersedes.order_by("pk")),
        "versions": rows if len(rows) > 1 else [],
    }


def admin_changes(memories: list[Memory]) -> list[LogEntry]:
    """What people did to these memories in the admin (added, edited, retired, restored), oldest first, with who."""
    content_type = ContentType.objects.get_for_model(Memory)
    return list(
        LogEntry.objects.filter(content_type=content_type, object_id__in=[str(m.pk) for m in memories])
        .select_related("user")
        .order_by("action_time", "pk")[:500]
    )


def deletion_losses(memory: Memory) -> list[str]:
    """What deleting ``memory`` loses for good, in words, for the confirmation page."""
    others = len(versions(memory)) - 1
    reviews = ReviewItem.objects.filter(Q(older=memory) | Q(newer=memory)).count()
    insights, edges = memory.insights.count(), memory.edges.count()
    losses = [
        "the memory itself: its text, its valid and system times, its screening. Retiring keeps all of it, "
        "out of every context, and can be undone; deleting cannot.",
        f"its links to the {memory.source_messages.count()} turn(s) it came from (the turns stay).",
    ]
    if others:
        losses.append(
            f"its place among its {others} other version(s): they stay, but no longer say what replaced them or what "
            "they replaced."
        )
    if reviews:
        losses.append(f"{reviews} review item(s) about it: the record of what was decided (deleted with it).")
    if insights:
        losses.append(
            f"the {insights} insight(s) drawn from it, live or retired, which say what it said: deleted with it (its "
            "other memories are linked anew)."
        )
    if edges:
        losses.append(f"the {edges} graph edge(s) it asserted: deleted with it.")
    losses.append(
        "any record of it but the admin's log line (who deleted it, when, its first words). To remove an end user's "
        "data on their request, erase the end user (their page, Erase): that keeps an audit record."
    )
    return losses
