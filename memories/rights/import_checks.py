"""An import file read and checked before anything is written: every line parsed and validated by its record's
serializer (:mod:`memories.rights.records`), then every reference between lines checked; a bad line is refused
with its number (:class:`ImportRefused`)."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from kbsite.models import KnowledgeBase
from kbsite.text import UnstorableText, text_check
from knowledge.models import Document
from memories.models import Message, Session
from memories.rights.records import FORMAT_VERSION, RECORDS


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
        Session.objects.filter(kb=kb, external_id__in=named_sessions(by_type)).values_list("external_id", flat=True)
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


def named_sessions(by_type: dict[str, list[Line]]) -> set[str]:
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
