"""An import's memories with their provenance and retirements, its insights and its graph edges, matched by owner,
text and creation time (edges by what they link). Embeddings are not in the format: the KB's embedding job computes
them after the import."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from django.utils import timezone

from kbsite.ai import defence
from kbsite.models import KnowledgeBase
from knowledge.models import Chunk
from memories.ingest import bulk
from memories.ingest.apply import entities_upsert
from memories.models import Edge, Insight, Memory, text_hash
from memories.rights.import_checks import Line

if TYPE_CHECKING:
    from memories.rights.import_state import ImportState


def memories_import(state: ImportState) -> None:
    kb, lines = state.kb, state.by_type["memory"]
    screened = defence.screen_many([line.data["text"] for line in lines])
    keys = [
        (state.owner(line.data), text_hash(s.text), line.data["created_at"])
        for line, s in zip(lines, screened, strict=True)
    ]
    held = _held(Memory.objects.filter(kb=kb, content_hash__in=[k[1] for k in keys]), "content_hash")
    chunks = _chunks_by_slug(kb, state)
    new: dict[tuple, Memory] = {}
    for line, screening, key in zip(lines, screened, keys, strict=True):
        if key in held:
            state.memories[line.data["id"]] = held[key]
            state.counts["unchanged"] += 1
        elif key not in new:
            new[key] = _memory(state, line.data, screening, key, chunks)
    bulk.memories_insert(list(new.values()))
    retired = []
    for line, key in zip(lines, keys, strict=True):
        memory = new.get(key)
        if memory is not None:
            state.memories[line.data["id"]] = memory.pk
            if line.data["retired_at"] and memory.retired_at is None:
                memory.retired_at = line.data["retired_at"]
                retired.append((line, memory))
    for line, memory in retired:
        memory.superseded_by_id = state.memories.get(line.data["superseded_by"])
    Memory.objects.bulk_update([m for _, m in retired], ["retired_at", "superseded_by"], batch_size=500)
    links = [
        Memory.source_messages.through(
            memory_id=state.memories[line.data["id"]], message_id=state.messages[(s["session_id"], s["external_id"])]
        )
        for line, key in zip(lines, keys, strict=True)
        if key in new
        for s in line.data["sources"]
        if s["type"] == "message"
    ]
    Memory.source_messages.through.objects.bulk_create(links, ignore_conflicts=True, batch_size=1000)
    state.counts["memories"] += len(new)


def _held(queryset, text_field: str) -> dict[tuple, int]:
    """Rows the KB holds, by (owner, text or its hash, creation time) and by (owner, text or hash, None): a
    record without a creation time matches any row of its owner and text."""
    held: dict[tuple, int] = {}
    for pk, owner, text, created in queryset.order_by("id").values_list("id", "end_user_id", text_field, "created_at"):
        held[(owner, text, created)] = pk
        held.setdefault((owner, text, None), pk)
    return held


def _memory(state: ImportState, data: dict, screening, key, chunks) -> Memory:
    reasons = [r for r in (data["quarantine_reason"], screening.reason) if r]
    source_file = next((s["file"] for s in data["sources"] if s["type"] == "file"), "")
    cited = next((s for s in data["sources"] if s["type"] == "document"), None)
    return Memory(
        kb=state.kb,
        end_user_id=key[0],
        text=screening.text,
        kind=data["kind"],
        entities=data["entities"],
        topics=data["topics"],
        importance=data["importance"],
        metadata=data["metadata"],
        content_hash=key[1],
        valid_from=data["valid_from"],
        valid_to=data["valid_to"],
        retired_reason=data["retired_reason"],
        source=data["source"],
        source_file=source_file,
        source_chunk_id=_chunk_cited(chunks, cited) if cited else None,
        mode=data["mode"],
        consolidated=data["consolidated"],
        quarantined=data["quarantined"] or screening.quarantined,
        quarantine_reason="; ".join(reasons)[:300],
        created_at=key[2] or timezone.now(),
    )


def _chunks_by_slug(kb: KnowledgeBase, state: ImportState) -> dict[str, list[tuple[int, int, int, int]]]:
    """(ordinal, start, end, chunk id) of the chunks of every document a memory of the file cites."""
    slugs = {s["document"] for m in state.by_type["memory"] for s in m.data["sources"] if s["type"] == "document"}
    out: dict[str, list] = defaultdict(list)
    rows = Chunk.objects.filter(document__kb=kb, document__slug__in=slugs, document__deleted_at__isnull=True)
    for pk, slug, ordinal, start, text in rows.values_list("id", "document__slug", "ordinal", "start_char", "text"):
        out[slug].append((ordinal, start, start + len(text), pk))
    return out


def _chunk_cited(chunks: dict, source: dict) -> int | None:
    """The chunk holding the cited chunk's first character (the same position, when chunk sizes agree)."""
    found = chunks.get(source["document"], [])
    if "start_char" in source:
        for _, start, end, pk in found:
            if start <= source["start_char"] < end:
                return pk
    return next((pk for ordinal, _, _, pk in found if ordinal == source["chunk"]), None)


def insights_import(state: ImportState) -> None:
    kb, lines = state.kb, state.by_type["insight"]
    held = _held(Insight.objects.filter(kb=kb, text__in=[line.data["text"] for line in lines]), "text")
    new: dict[tuple, tuple[Line, Insight]] = {}
    for line in lines:
        data = line.data
        key = (state.owner(data), data["text"], data["created_at"])
        if key in held or key in new:
            state.counts["unchanged"] += 1
            continue
        new[key] = (
            line,
            Insight(kb=kb, end_user_id=key[0], text=data["text"], mode=data["mode"], retired_at=data["retired_at"]),
        )
        if data["created_at"]:
            new[key][1].created_at = data["created_at"]
    Insight.objects.bulk_create([insight for _, insight in new.values()])
    links = [
        Insight.memories.through(insight_id=insight.pk, memory_id=state.memories[pk])
        for line, insight in new.values()
        for pk in line.data["memories"]
    ]
    Insight.memories.through.objects.bulk_create(links, ignore_conflicts=True, batch_size=1000)
    state.counts["insights"] += len(new)


def edges_import(state: ImportState) -> None:
    """Graph edges in each owner's graph, with the entities every imported memory names."""
    kb = state.kb
    names: dict[int | None, set[str]] = defaultdict(set)
    for line in state.by_type["memory"]:
        names[state.owner(line.data)].update(line.data["entities"])
    for line in state.by_type["edge"]:
        names[state.owner(line.data)].update((line.data["src"], line.data["dst"]))
    entities = {owner: entities_upsert(kb, owner, owned) for owner, owned in names.items()}
    rows = Edge.objects.filter(kb=kb).values_list("src_id", "relation", "dst_id", "memory_id", "retired_at")
    held = {row for row in rows} | {(*row[:3], "live") for row in rows if row[4] is None}
    new = []
    for line in state.by_type["edge"]:
        data, owned = line.data, entities[state.owner(line.data)]
        src, dst = owned[data["src"]].pk, owned[data["dst"]].pk
        key = (src, data["relation"], dst, state.memories.get(data["memory"]), data["retired_at"])
        live = (src, data["relation"], dst, "live")
        if key in held or (data["retired_at"] is None and live in held):  # one live edge per link
            state.counts["unchanged"] += 1
            continue
        held.update({key, live} if data["retired_at"] is None else {key})
        new.append(Edge(kb=kb, src_id=src, relation=data["relation"], dst_id=dst, memory_id=key[3], retired_at=key[4]))
    Edge.objects.bulk_create(new, batch_size=1000)
    state.counts["edges"] += len(new)
