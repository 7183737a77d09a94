"""The JSON Lines format of exports and imports: one record per line, each defined once by its serializer here,
which validates the line on import and whose fields the export writes (:func:`record`).

A line is a JSON object with a ``type``: ``user``, ``session``, ``turn``, ``memory``, ``insight``, ``edge`` or
``document``. Memories and insights carry the ids they had where they were exported; those ids only link records
of one file to each other (``superseded_by``, an insight's ``memories``, an edge's ``memory``), and an import gives
the rows new ones.
"""

from __future__ import annotations

import functools

from django.conf import settings
from rest_framework import serializers
from rest_framework.fields import empty

from kbsite.api.fields import MetadataField
from kbsite.models import NAME_RE, Mode
from kbsite.models import user_id_validator as _user_id
from knowledge.files import SLUG_RE
from knowledge.models import Document
from memories.models import Memory, Message

# 2: a memory's retirement is "retired_at" and "valid_to" is valid time (version 1's "valid_to" was retirement).
FORMAT_VERSION = 2


def _user_id_field():
    return serializers.CharField(max_length=200, validators=[_user_id], allow_null=True, required=False, default=None)


def _moment(**kwargs):
    return serializers.DateTimeField(allow_null=True, required=False, default=None, **kwargs)


def _words():
    return serializers.ListField(
        child=serializers.CharField(max_length=200), max_length=50, required=False, default=list
    )


class Record(serializers.Serializer):
    type = serializers.CharField()
    kb = serializers.RegexField(NAME_RE, max_length=64, required=False, help_text="The KB it was exported from.")


class ExportRecord(Record):
    """The first line: what the file is."""

    version = serializers.IntegerField(min_value=1, max_value=FORMAT_VERSION)
    kbs = serializers.ListField(child=serializers.RegexField(NAME_RE, max_length=64), required=False, default=list)
    user_id = _user_id_field()
    exported_at = _moment()


class UserRecord(Record):
    user_id = serializers.CharField(max_length=200, validators=[_user_id])
    created_at = _moment()


class SessionRecord(Record):
    session_id = serializers.CharField(max_length=200)
    user_id = _user_id_field()
    created_at = _moment()
    extracted_through = serializers.CharField(
        max_length=200, allow_null=True, required=False, default=None, help_text="The last turn extracted."
    )
    archived_through = serializers.CharField(
        max_length=200, allow_null=True, required=False, default=None, help_text="The last turn archived."
    )


class TurnRecord(Record):
    session_id = serializers.CharField(max_length=200)
    external_id = serializers.CharField(max_length=200)
    role = serializers.ChoiceField(choices=Message.Role.choices, default=Message.Role.USER)
    speaker = serializers.CharField(max_length=200, allow_blank=True, required=False, default="")
    content = serializers.CharField(max_length=settings.MAX_MESSAGE_CHARS, trim_whitespace=False)
    metadata = MetadataField(default=dict)
    created_at = _moment()


class SourceRecord(serializers.Serializer):
    """Where a memory came from: a turn, a document chunk (by its position and first character), or a file."""

    type = serializers.ChoiceField(choices=["message", "document", "file"])
    session_id = serializers.CharField(max_length=200, required=False)
    external_id = serializers.CharField(max_length=200, required=False)
    document = serializers.RegexField(SLUG_RE, max_length=64, required=False)
    chunk = serializers.IntegerField(min_value=0, required=False)
    start_char = serializers.IntegerField(min_value=0, required=False)
    file = serializers.CharField(max_length=500, required=False)

    def validate(self, data):
        needs = {"message": ("session_id", "external_id"), "document": ("document", "chunk"), "file": ("file",)}
        missing = [name for name in needs[data["type"]] if name not in data]
        if missing:
            raise serializers.ValidationError(f"a {data['type']} source needs {', '.join(missing)}")
        return data


class MemoryRecord(Record):
    id = serializers.IntegerField(min_value=1)
    user_id = _user_id_field()
    text = serializers.CharField(max_length=settings.MAX_MESSAGE_CHARS)
    kind = serializers.ChoiceField(choices=Memory.Kind.choices, default=Memory.Kind.FACT)
    entities = _words()
    topics = _words()
    importance = serializers.FloatField(min_value=0.0, max_value=1.0, default=0.5)
    metadata = MetadataField(default=dict)
    valid_from = _moment()
    valid_to = _moment()
    retired_at = _moment()
    superseded_by = serializers.IntegerField(min_value=1, allow_null=True, required=False, default=None)
    retired_reason = serializers.CharField(max_length=200, allow_blank=True, required=False, default="")
    source = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    sources = SourceRecord(many=True, required=False, default=list)
    mode = serializers.ChoiceField(choices=Mode.choices, default=Mode.MANUAL)
    consolidated = serializers.BooleanField(default=False)
    quarantined = serializers.BooleanField(default=False)
    quarantine_reason = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    created_at = _moment()


class InsightRecord(Record):
    id = serializers.IntegerField(min_value=1)
    user_id = _user_id_field()
    text = serializers.CharField(max_length=settings.MAX_MESSAGE_CHARS)
    memories = serializers.ListField(child=serializers.IntegerField(min_value=1), max_length=1000)
    mode = serializers.ChoiceField(choices=Mode.choices, default=Mode.LLM)
    created_at = _moment()
    retired_at = _moment()


class EdgeRecord(Record):
    user_id = _user_id_field()
    src = serializers.CharField(max_length=200)
    relation = serializers.CharField(max_length=100)
    dst = serializers.CharField(max_length=200)
    memory = serializers.IntegerField(min_value=1, allow_null=True, required=False, default=None)
    retired_at = _moment()


class DocumentRecord(Record):
    slug = serializers.RegexField(SLUG_RE, max_length=64)
    user_id = _user_id_field()
    title = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    doc_type = serializers.ChoiceField(choices=Document.Type.choices)
    namespace = serializers.CharField(max_length=200, required=False, default="documents")
    source = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    content = serializers.CharField(max_length=settings.MAX_INGEST_TEXT_CHARS, trim_whitespace=False)
    metadata = serializers.DictField(required=False, default=dict)
    quarantine_reason = serializers.CharField(max_length=300, allow_blank=True, required=False, default="")
    created_at = _moment()


RECORDS: dict[str, type[Record]] = {
    "export": ExportRecord,
    "user": UserRecord,
    "session": SessionRecord,
    "turn": TurnRecord,
    "memory": MemoryRecord,
    "insight": InsightRecord,
    "edge": EdgeRecord,
    "document": DocumentRecord,
}


@functools.cache
def _fields(type_: str) -> tuple[tuple[str, bool, bool], ...]:
    """The fields of a record of ``type_``, in their order: (name, whether it is a time, whether it may be absent)."""
    return tuple(
        (name, isinstance(field, serializers.DateTimeField), not field.required and field.default is empty)
        for name, field in RECORDS[type_]().fields.items()
    )


def record(type_: str, row=None, /, **values) -> dict:
    """``row`` (a model row, or None) as a record of type ``type_``: the fields of its serializer, in their order, each
    from ``values`` when given there, else from the row's attribute of the same name; times in ISO 8601; a field that
    may be absent (``kb``) only when given. (Written directly from the fields: DRF's ``to_representation`` costs
    several times as much a row, which the export of a large KB would feel.)"""
    values["type"] = type_
    out = {}
    for name, moment, optional in _fields(type_):
        if name in values:
            value = values[name]
        elif optional:
            continue
        else:
            value = getattr(row, name)
        out[name] = value.isoformat() if moment and value is not None else value
    return out
