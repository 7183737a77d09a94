"""Import of the JSON Lines export format into a KB: all or nothing, and idempotent.

Every line is parsed and validated, and every reference between lines checked, before anything is written; then
everything is written in one transaction, or nothing is (a bad line is refused with its number). Rows are matched
to what the KB already holds, so importing the same file again adds nothing: users by id, sessions and turns by
their external ids, documents by slug, memories and insights by owner, text and creation time, edges by what they
link. Embeddings are not in the format: the KB's embedding job computes them after the import, and documents are
indexed by their own jobs.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from kbsite import locks
from kbsite.ai import defence
from kbsite.locks import Lock
from kbsite.models import EndUser, KnowledgeBase
from kbsite.text import UnstorableText, text_check
from knowledge import files
from knowledge.models import Chunk, Document
from knowledge.services import document_chunks_cut, document_store, enqueue_document
from memories.ingest import bulk, enqueue_extract
from memories.ingest.apply import entities_upsert
from memories.models import Edge, IngestItem, Insight, Memory, Message, Session, text_hash
from memories.portability.records import FORMAT_VERSION, RECORDS
from memories.services import enqueue_embed_missing


class ImportRefused(ValueError):
    """A file that cannot be imported (an HTTP 400), naming the line; nothing of it was written."""

    def __init__(self, line: int | None, message: str):
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


@dataclass
class Line:
    number: int
    data: dict


def records_parse(text: str) -> dict[str, list[Line]]:
    """The file's records by type, each validated; raises :class:`ImportRefused` at the first bad line."""
    by_type: dict[str, list[Line]] = defaultdict(list)
    kb_name, count, version = None, 0, FORMAT_VERSION
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        data = _record(number, raw, version)
        if data["type"] == "export":
            version = data["version"]
        source_kb = data.get("kb")
        if source_kb and kb_name and source_kb != kb_name:
            raise ImportRefused(
                number, f"is of KB {source_kb!r}, earlier lines of KB {kb_name!r}: a file is imported into one KB"
            )
        kb_name = kb_name or source_kb
        by_type[data["type"]].append(Line(number, data))
        count += 1
    if not count:
        raise ImportRefused(None, "the file holds no records: one JSON object per line, as the export writes them")
    return by_type


def _record(number: int, raw: str, version: int = FORMAT_VERSION) -> dict:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise ImportRefused(number, f"is not JSON ({exc})") from exc
    if not isinstance(obj, dict):
        raise ImportRefused(number, "is not a JSON object; each line is one record")
    if version == 1 and obj.get("type") in ("memory", "insight", "edge") and "valid_to" in obj:
        # Version 1 named the time a row was retired "valid_to"; it had no valid time's end.
        obj["retired_at"] = obj.pop("valid_to")
    try:
        text_check(obj)
    except UnstorableText as exc:
        raise ImportRefused(number, str(exc)) from exc
    serializer_class = RECORDS.get(obj.get("type"))
    if serializer_class is None:
        raise ImportRefused(number, f"has type {obj.get('type')!r}; records are of type {', '.join(RECORDS)}")
    serializer = serializer_class(data=obj)
    if not serializer.is_valid():
        raise ImportRefused(number, _first_error(serializer.errors, obj["type"]))
    return dict(serializer.validated_data)


def _first_error(errors, path: str) -> str:
    """The first of DRF's nested errors, with where it is ("memory.sources[0].chunk: ...")."""
    if isinstance(errors, dict):
        name, inner = next(iter(errors.items()))
        return _first_error(inner, path if name == "non_field_errors" else f"{path}.{name}")
    if isinstance(errors, list) and errors and not isinstance(errors[0], str):
        index = next(i for i, e in enumerate(errors) if e)
        return _first_error(errors[index], f"{path}[{index}]")
    return f"{path}: {errors[0] if isinstance(errors, list) else errors}"


# --- References between lines ---------------------------------------------------------------


def references_check(kb: KnowledgeBase, by_type: dict[str, list[Line]]) -> None:
    """Every id a record names is in the file (or, for sessions, turns and documents, already in the KB), and an
    insight or edge links only memories of its own owner."""
    memories = {}
    for line in by_type["memory"]:
        if line.data["id"] in memories:
            raise ImportRefused(
                line.number, f"repeats memory id {line.data['id']} (line {memories[line.data['id']].number})"
            )
        memories[line.data["id"]] = line
    sessions = {line.data["session_id"] for line in by_type["session"]}
    sessions |= set(
        Session.objects.filter(kb=kb, external_id__in=_named_sessions(by_type)).values_list("external_id", flat=True)
    )
    turns = {(t.data["session_id"], t.data["external_id"]) for t in by_type["turn"]}
    slugs = {line.data["slug"] for line in by_type["document"]}
    for line in by_type["turn"]:
        if line.data["session_id"] not in sessions:
            raise ImportRefused(line.number, f"names session {line.data['session_id']!r}, which has no session line")
    for line in by_type["memory"]:
        _memory_references_check(kb, line, memories, turns, slugs)
    for line in by_type["insight"]:
        for pk in line.data["memories"]:
            _same_owner(line, memories, pk, "links")
    for line in by_type["edge"]:
        if line.data["memory"] is not None:
            _same_owner(line, memories, line.data["memory"], "is asserted by")


def _named_sessions(by_type: dict[str, list[Line]]) -> set[str]:
    named = {t.data["session_id"] for t in by_type["turn"]}
    return named | {s["session_id"] for m in by_type["memory"] for s in m.data["sources"] if s["type"] == "message"}


def _memory_references_check(kb, line: Line, memories: dict, turns: set, slugs: set) -> None:
    data = line.data
    if data["superseded_by"] is not None:
        _same_owner(line, memories, data["superseded_by"], "is superseded by")
    for source in data["sources"]:
        if source["type"] == "message" and (source["session_id"], source["external_id"]) not in turns:
            held = Message.objects.filter(
                kb=kb, session__external_id=source["session_id"], external_id=source["external_id"]
            ).exists()
            if not held:
                raise ImportRefused(
                    line.number,
                    f"cites turn {source['external_id']!r} of session {source['session_id']!r}, which is neither "
                    "in the file nor in the KB",
                )
        if source["type"] == "document" and source["document"] not in slugs:
            if not Document.objects.present().filter(kb=kb, slug=source["document"]).exists():
                raise ImportRefused(
                    line.number, f"cites document {source['document']!r}, which is neither in the file nor in the KB"
                )


def _same_owner(line: Line, memories: dict[int, Line], pk: int, how: str) -> None:
    target = memories.get(pk)
    if target is None:
        raise ImportRefused(line.number, f"{how} memory {pk}, which is not in the file")
    if target.data["user_id"] != line.data["user_id"]:
        raise ImportRefused(
            line.number, f"{how} memory {pk} (line {target.number}) of another owner: a user's rows link only theirs"
        )


# --- Writing ------------------------------------------------------------------------------


@dataclass
class _Import:
    """What one import has written so far: the new ids of the file's rows."""

    kb: KnowledgeBase
    by_type: dict[str, list[Line]]
    users: dict[str | None, EndUser | None] = field(default_factory=lambda: {None: None})
    sessions: dict[str, Session] = field(default_factory=dict)
    messages: dict[tuple[str, str], int] = field(default_factory=dict)  # (session, turn) external ids -> message id
    documents: dict[str, Document] = field(default_factory=dict)
    new_documents: list[Document] = field(default_factory=list)
    memories: dict[int, int] = field(default_factory=dict)  # the file's memory id -> the KB's
    files: list[Path] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def owner(self, data: dict) -> int | None:
        user = self.users[data.get("user_id")]
        return user.pk if user else None


def kb_import(*, kb: KnowledgeBase, text: str) -> dict[str, int]:
    """Import an export file into ``kb``. Returns how many rows of each kind were added (``unchanged``: records
    the KB already held). Raises :class:`ImportRefused`, having written nothing, for a bad file."""
    by_type = records_parse(text)
    references_check(kb, by_type)
    state = _Import(kb=kb, by_type=by_type)
    try:
        with transaction.atomic():
            locks.hold(Lock.KB_WRITE, kb.pk)  # no extraction applies to the KB meanwhile
            _users(state)
            _sessions(state)
            _turns(state)
            _documents(state)
            _memories(state)
            _insights(state)
            _edges(state)
            pending_turns = state.counts["turns"] > 0
            transaction.on_commit(lambda: _after(kb, state.new_documents, pending_turns))
    except BaseException:
        for path in state.files:  # markdown files written for the rolled-back documents
            path.unlink(missing_ok=True)
        raise
    return dict(state.counts)


def _after(kb: KnowledgeBase, documents: list[Document], pending_turns: bool) -> None:
    """Once committed: embed the new memories and insights, index the new documents, and extract any turns
    that were not extracted where the file came from."""
    enqueue_embed_missing(kb_id=kb.pk)
    for document in documents:
        enqueue_document(document=document)
    if pending_turns:
        enqueue_extract(kb=kb)


def _users(state: _Import) -> None:
    named = {line.data.get("user_id") for lines in state.by_type.values() for line in lines} - {None}
    since = {line.data["user_id"]: line.data["created_at"] for line in state.by_type["user"]}
    for user_id in sorted(named):
        user, created = EndUser.objects.get_or_create(bot=state.kb.bot, external_id=user_id)
        if created and since.get(user_id):
            EndUser.objects.filter(pk=user.pk).update(created_at=since[user_id])
        state.users[user_id] = user
        state.counts["users" if created else "unchanged"] += 1


def _sessions(state: _Import) -> None:
    kb = state.kb
    held = {s.external_id: s for s in Session.objects.filter(kb=kb, external_id__in=_named_sessions(state.by_type))}
    state.sessions.update(held)
    for line in state.by_type["session"]:
        data = line.data
        session = held.get(data["session_id"])
        if session is None:
            session = Session.objects.create(
                kb=kb, external_id=data["session_id"], end_user=state.users[data["user_id"]]
            )
            if data["created_at"]:
                Session.objects.filter(pk=session.pk).update(created_at=data["created_at"])
            state.sessions[session.external_id] = session
            state.counts["sessions"] += 1
        elif session.end_user_id != state.owner(data):
            raise ImportRefused(line.number, f"session {session.external_id!r} of this KB belongs to another owner")
        else:
            state.counts["unchanged"] += 1


def _turns(state: _Import) -> None:
    """New turns, in the file's order within each session (the extraction cursor follows that order); then the
    sessions' cursors, moved to the turns they stood at in the file, never back."""
    kb, turns = state.kb, state.by_type["turn"]
    sessions = [session.pk for session in state.sessions.values()]  # every session the file names
    ids = [t.data["external_id"] for t in turns]
    held = set(  # (session, turn): a turn's id is its own within its session
        Message.objects.filter(session__in=sessions, external_id__in=ids).values_list(
            "session__external_id", "external_id"
        )
    )
    new: dict[str, list[dict]] = defaultdict(list)
    for line in turns:
        data = line.data
        if (data["session_id"], data["external_id"]) in held:
            state.counts["unchanged"] += 1
            continue
        held.add((data["session_id"], data["external_id"]))
        new[data["session_id"]].append(data)
    for session_id, rows in new.items():
        bulk.messages_insert(kb_id=kb.pk, session_id=state.sessions[session_id].pk, messages=rows)
        state.counts["turns"] += len(rows)
    cited = {t.data["external_id"] for t in turns}
    cited |= {s["external_id"] for m in state.by_type["memory"] for s in m.data["sources"] if s["type"] == "message"}
    cited |= {
        c for s in state.by_type["session"] for c in (s.data["extracted_through"], s.data["archived_through"]) if c
    }
    state.messages = {
        (session, turn): pk
        for session, turn, pk in Message.objects.filter(session__in=sessions, external_id__in=cited).values_list(
            "session__external_id", "external_id", "id"
        )
    }
    for line in state.by_type["session"]:
        session = state.sessions[line.data["session_id"]]
        for cursor in ("extracted_through", "archived_through"):
            at = state.messages.get((line.data["session_id"], line.data[cursor] or ""))
            if at and at > getattr(session, cursor):
                Session.objects.filter(pk=session.pk).update(**{cursor: at})


def _documents(state: _Import) -> None:
    kb = state.kb
    lines = state.by_type["document"]
    held = {d.slug: d for d in Document.objects.filter(kb=kb, slug__in=[line.data["slug"] for line in lines])}
    for line in lines:
        data = line.data
        document = held.get(data["slug"])
        digest = files.content_hash(data["content"])
        if document is not None and document.deleted_at is None:
            if document.content != data["content"] or document.end_user_id != state.owner(data):
                raise ImportRefused(
                    line.number, f"document {data['slug']!r} of this KB holds other content or belongs to another owner"
                )
            state.documents[document.slug] = document
            state.counts["unchanged"] += 1
            continue
        state.documents[data["slug"]] = _document_create(state, line, document, digest)
        state.counts["documents"] += 1


def _document_create(state: _Import, line: Line, deleted: Document | None, digest: str) -> Document:
    """The document of ``line`` (reusing the row of a deleted one of that slug), with its chunks cut as indexing
    will cut them, unembedded until its job runs; a shared markdown document gets its file."""
    kb, data = state.kb, line.data
    markdown = data["doc_type"] == Document.Type.MARKDOWN
    if markdown and data["user_id"]:
        raise ImportRefused(line.number, "an end user's document cannot be a markdown file; give it doc_type 'text'")
    document, _ = document_store(
        kb=kb,
        slug=data["slug"],
        replace=deleted is not None,
        title=data["title"],
        doc_type=data["doc_type"],
        namespace=data["namespace"],
        source=data["source"],
        content=data["content"],
        metadata=data["metadata"],
        quarantine_reason=data["quarantine_reason"],
        end_user=state.users[data["user_id"]],
        content_hash=digest,
        size_bytes=len(data["content"].encode()),
        status=Document.Status.PENDING,
        error="",
        deleted_at=None,
    )
    if data["created_at"]:
        Document.objects.filter(pk=document.pk).update(created_at=data["created_at"])
    document_chunks_cut(document=document)
    if markdown:
        on_disk = files.file_read(kb, document.slug)
        if on_disk is not None and files.content_hash(on_disk) != digest:
            raise ImportRefused(line.number, f"knowledge/{document.slug}.md of this KB holds other content")
        if on_disk is None:
            state.files.append(files.file_write(kb, document.slug, data["content"]))
    else:  # its facts came with the file: indexing must not mine them again
        IngestItem.objects.create(
            kb=kb,
            end_user=document.end_user,
            kind=IngestItem.Kind.DOCUMENT,
            document=document,
            source=f"import:{document.slug}",
            status=IngestItem.Status.DONE,
            processed_at=timezone.now(),
        )
    state.new_documents.append(document)
    return document


def _memories(state: _Import) -> None:
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


def _memory(state: _Import, data: dict, screening, key, chunks) -> Memory:
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


def _chunks_by_slug(kb: KnowledgeBase, state: _Import) -> dict[str, list[tuple[int, int, int, int]]]:
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


def _insights(state: _Import) -> None:
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


def _edges(state: _Import) -> None:
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
