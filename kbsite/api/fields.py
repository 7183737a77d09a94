"""Serializer fields the apps' APIs share."""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kbsite.models import user_id_validator
from kbsite.text import UnstorableText, text_check


@extend_schema_field({"type": "string", "maxLength": 200, "example": "alice"})
class UserIdField(serializers.CharField):
    """The optional ``user_id`` of a request: the bot's own id for one of its end users."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "The bot's id for the end user this is about (1-200 letters of any script, digits and _ . : @ -). With "
            "it: that user's own "
            "memories and documents plus the shared ones; without: the shared ones only.",
        )
        super().__init__(max_length=200, validators=[user_id_validator], **kwargs)


METADATA_MAX_CHARS = 2000


def metadata_check(value) -> dict:
    """A client's metadata: a JSON object of at most METADATA_MAX_CHARS characters (as JSON)."""
    if not isinstance(value, dict):
        raise serializers.ValidationError('metadata must be a JSON object, e.g. {"channel": "web"}.')
    if len(json.dumps(value, ensure_ascii=False)) > METADATA_MAX_CHARS:
        raise serializers.ValidationError(f"metadata is over {METADATA_MAX_CHARS} characters as JSON.")
    try:  # a JSON body was checked as it was parsed; a form's JSON part (a multipart upload's metadata) is here
        text_check(value, "metadata")
    except UnstorableText as exc:
        raise serializers.ValidationError(str(exc)) from exc
    return value


@extend_schema_field({"type": "object", "additionalProperties": True, "example": {"channel": "web"}})
class MetadataField(serializers.JSONField):
    """A small JSON object of the client's own labels (a channel, a source, a topic…)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", f"A JSON object of your own labels, at most {METADATA_MAX_CHARS} characters.")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        return metadata_check(super().to_internal_value(data))
