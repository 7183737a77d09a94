"""Serializers of the knowledge API."""

from __future__ import annotations

from django.conf import settings
from rest_framework import serializers

from kbsite.api.fields import UserIdField
from knowledge.files import SLUG_RE
from knowledge.models import Document


class DocumentSerializer(serializers.ModelSerializer):
    chunk_count = serializers.IntegerField(read_only=True)
    user_id = serializers.SlugRelatedField(
        source="end_user",
        slug_field="external_id",
        read_only=True,
        allow_null=True,
        help_text="Whose document it is; null: shared.",
    )

    class Meta:
        model = Document
        fields = [
            "slug",
            "user_id",
            "title",
            "doc_type",
            "namespace",
            "source",
            "language",
            "status",
            "error",
            "quarantine_reason",
            "size_bytes",
            "chunk_count",
            "metadata",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class DocumentDetailSerializer(DocumentSerializer):
    content = serializers.SerializerMethodField(
        help_text="The text; null while the document is flagged (quarantine_reason): an operator reviews it first."
    )

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "content"]
        read_only_fields = fields

    def get_content(self, document: Document) -> str | None:
        return None if document.quarantine_reason else document.content


class DocumentTextSerializer(serializers.Serializer):
    """A document sent as JSON text (multipart uploads use the ``file`` field instead)."""

    content = serializers.CharField(max_length=settings.MAX_INGEST_TEXT_CHARS, trim_whitespace=False)
    title = serializers.CharField(max_length=300, required=False, default="")
    slug = serializers.RegexField(SLUG_RE, max_length=64, required=False, default="")
    namespace = serializers.CharField(max_length=200, required=False, default="documents")
    user_id = UserIdField(help_text="Whose document this is; without it, shared knowledge of the KB.")


class DocumentUploadSerializer(serializers.Serializer):
    file = serializers.ListField(child=serializers.FileField(allow_empty_file=True), min_length=1, max_length=20)
    title = serializers.CharField(max_length=300, required=False, default="")
    namespace = serializers.CharField(max_length=200, required=False, default="documents")
    user_id = UserIdField(help_text="Whose documents these are; without it, shared knowledge of the KB.")


class DocumentAcceptedSerializer(serializers.Serializer):
    slug = serializers.CharField()
    status = serializers.CharField()
    job_id = serializers.IntegerField()


class DocumentsAcceptedSerializer(serializers.Serializer):
    documents = DocumentAcceptedSerializer(many=True, help_text="Each stored document, indexed by its job.")


class DocumentWriteSerializer(serializers.Serializer):
    content = serializers.CharField(trim_whitespace=False)


class DocumentSearchSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=1000)
    limit = serializers.IntegerField(min_value=1, max_value=50, default=5)
    doc_types = serializers.ListField(child=serializers.ChoiceField(Document.Type.choices), required=False)
    namespaces = serializers.ListField(child=serializers.CharField(max_length=200), required=False)
    session_id = serializers.CharField(
        max_length=200, required=False, help_text="The caller's current session: its archived conversation is left out."
    )
    user_id = UserIdField()


class DocumentHitSerializer(serializers.Serializer):
    slug = serializers.CharField(source="document")
    title = serializers.CharField()
    doc_type = serializers.CharField()
    namespace = serializers.CharField()
    chunk = serializers.IntegerField()
    text = serializers.CharField()
    snippet = serializers.CharField(help_text="Matching words wrapped in **.")
    score = serializers.FloatField()
    signals = serializers.ListField(child=serializers.CharField())
    metadata = serializers.DictField()


class DocumentSearchResultSerializer(serializers.Serializer):
    query = serializers.CharField()
    results = DocumentHitSerializer(many=True)
