"""Serializers of the memory API."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kbsite.ai import llm
from kbsite.api.fields import MetadataField, UserIdField
from kbsite.api.serializers import USAGE_HELP, UsageSerializer
from kbsite.models import KnowledgeBase
from memories.models import Insight, Memory, Message
from memories.recall.answers import ASK_K


class KnowledgeBaseSerializer(serializers.ModelSerializer):
    memory_count = serializers.IntegerField(read_only=True, help_text="Live memories.")
    retired_count = serializers.IntegerField(read_only=True)
    quarantined_count = serializers.IntegerField(read_only=True)
    llm_memory_count = serializers.IntegerField(read_only=True, help_text="Live memories extracted by the LLM.")
    heuristic_memory_count = serializers.IntegerField(
        read_only=True, help_text="Live memories extracted offline by the heuristic extractor."
    )
    extraction_mode = serializers.SerializerMethodField(help_text="Mode new input is processed in: llm or heuristic.")
    insight_count = serializers.IntegerField(read_only=True)
    document_count = serializers.IntegerField(read_only=True)
    pending_messages = serializers.IntegerField(read_only=True, help_text="Turns not yet extracted.")
    pending_jobs = serializers.IntegerField(read_only=True)
    failed_jobs = serializers.IntegerField(read_only=True)

    class Meta:
        model = KnowledgeBase
        fields = [
            "name",
            "description",
            "always_on",
            "consolidate_interval_minutes",
            "is_active",
            "records_chat",
            "language",
            "languages",
            "asked_languages",
            "created_at",
            "updated_at",
            "memory_count",
            "retired_count",
            "quarantined_count",
            "llm_memory_count",
            "heuristic_memory_count",
            "extraction_mode",
            "insight_count",
            "document_count",
            "pending_messages",
            "pending_jobs",
            "failed_jobs",
        ]
        read_only_fields = ["created_at", "updated_at", "languages", "asked_languages"]
        # Uniqueness per bot is checked in validate_name: the bot is not a field.
        validators = []

    def get_extraction_mode(self, kb) -> str:
        return "llm" if llm.is_configured() else "heuristic"

    def validate_name(self, value: str) -> str:
        bot = self.context["request"].user
        clash = KnowledgeBase.objects.for_bot(bot).filter(name=value)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(f"This bot already has a knowledge base named {value!r}.")
        return value


class MemorySourceSerializer(serializers.Serializer):
    type = serializers.CharField()
    session_id = serializers.CharField(required=False)
    external_id = serializers.CharField(required=False)
    document = serializers.CharField(required=False)
    chunk = serializers.IntegerField(required=False)
    file = serializers.CharField(required=False)


class MemorySerializer(serializers.ModelSerializer):
    user_id = serializers.SlugRelatedField(
        source="end_user",
        slug_field="external_id",
        read_only=True,
        allow_null=True,
        help_text="Whose fact it is; null: shared.",
    )
    live = serializers.BooleanField(source="is_live", read_only=True)
    sources = serializers.SerializerMethodField()
    entities = serializers.ListField(child=serializers.CharField(max_length=200), max_length=50, required=False)
    topics = serializers.ListField(child=serializers.CharField(max_length=200), max_length=50, required=False)
    text = serializers.CharField(max_length=4000)
    metadata = MetadataField(help_text="Your own labels (a JSON object), from its turns or text or set here.")

    class Meta:
        model = Memory
        fields = [
            "id",
            "user_id",
            "text",
            "kind",
            "entities",
            "topics",
            "importance",
            "metadata",
            "language",
            "live",
            "valid_from",
            "valid_to",
            "retired_at",
            "superseded_by",
            "retired_reason",
            "source",
            "sources",
            "mode",
            "consolidated",
            "quarantined",
            "quarantine_reason",
            "created_at",
            "updated_at",
        ]
        read_only_fields = [
            "id",
            "language",
            "retired_at",
            "superseded_by",
            "retired_reason",
            "source",
            "mode",
            "consolidated",
            "quarantined",
            "quarantine_reason",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(MemorySourceSerializer(many=True))
    def get_sources(self, memory: Memory) -> list[dict]:
        return memory.sources()

    def validate_entities(self, value: list[str]) -> list[str]:
        return sorted({v.strip().lower() for v in value if v.strip()})

    def validate_topics(self, value: list[str]) -> list[str]:
        return sorted({v.strip().lower() for v in value if v.strip()})


class RetireSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200, required=False, default="retired through the API")


class InsightSerializer(serializers.ModelSerializer):
    user_id = serializers.SlugRelatedField(
        source="end_user",
        slug_field="external_id",
        read_only=True,
        allow_null=True,
        help_text="Whose memories it links; null: shared.",
    )
    memory_ids = serializers.SerializerMethodField()

    class Meta:
        model = Insight
        fields = [
            "id",
            "user_id",
            "text",
            "language",
            "mode",
            "memory_ids",
            "created_at",
            "retired_at",
            "retired_reason",
        ]
        read_only_fields = ["language"]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_memory_ids(self, insight: Insight) -> list[int]:
        return sorted(m.pk for m in insight.memories.all())


class ClearResultSerializer(serializers.Serializer):
    memories = serializers.IntegerField()
    insights = serializers.IntegerField()
    entities = serializers.IntegerField()


class MessageInSerializer(serializers.Serializer):
    external_id = serializers.CharField(
        max_length=200, help_text="The bot's id for this turn; re-sending it is a no-op."
    )
    role = serializers.ChoiceField(choices=Message.Role.choices, default=Message.Role.USER)
    speaker = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    content = serializers.CharField(max_length=settings.MAX_MESSAGE_CHARS, trim_whitespace=False)
    created_at = serializers.DateTimeField(required=False, help_text="When it was said; default now.")
    metadata = MetadataField(help_text="Your own labels of the turn (a JSON object); its facts carry them.")

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("Content is empty.")
        return value


class MessagesInSerializer(serializers.Serializer):
    session_id = serializers.CharField(max_length=200)
    user_id = UserIdField(
        help_text="Whose conversation this is (the bot's id for the end user); a session belongs to one user. "
        "Without it the session is shared knowledge of the KB."
    )
    messages = MessageInSerializer(many=True, allow_empty=False, max_length=settings.MAX_MESSAGES_PER_REQUEST)


class MessagesAcceptedSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    accepted = serializers.IntegerField(help_text="New turns stored and queued for extraction.")
    duplicates = serializers.IntegerField(help_text="Turns whose external_id was already stored (not stored twice).")
    job_id = serializers.IntegerField(allow_null=True)


class IngestTextSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=settings.MAX_INGEST_TEXT_CHARS)
    user_id = UserIdField(help_text="Whose text this is; without it, its facts are shared knowledge of the KB.")
    source = serializers.CharField(max_length=300, required=False, default="api")
    metadata = MetadataField(help_text="Your own labels of the text (a JSON object); its facts carry them.")


class IngestAcceptedSerializer(serializers.Serializer):
    item_id = serializers.IntegerField()
    job_id = serializers.IntegerField()
    status = serializers.CharField()


RECALL_KINDS = [*Memory.Kind.values, "insight"]


class RecallInSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    k = serializers.IntegerField(min_value=1, max_value=100, default=10)
    budget_chars = serializers.IntegerField(min_value=50, max_value=200_000, required=False)
    session_id = serializers.CharField(max_length=200, required=False, help_text="The caller's current session.")
    exclude_session = serializers.BooleanField(
        default=False, help_text="Leave out memories drawn from session_id's own turns."
    )
    kinds = serializers.ListField(child=serializers.ChoiceField(choices=RECALL_KINDS), required=False, max_length=10)
    as_of = serializers.DateTimeField(
        required=False,
        help_text="Valid time: the facts that were true in the world at this time (a fact replaced since counts "
        "until its replacement began).",
    )
    known_at = serializers.DateTimeField(
        required=False, help_text="System time: answer with what kbsite knew at this time (default now)."
    )
    metadata = MetadataField(
        help_text="Only memories whose metadata holds all of these keys and values (insights carry none)."
    )
    user_id = UserIdField()

    def validate(self, data):
        if data.get("exclude_session") and not data.get("session_id"):
            raise serializers.ValidationError({"session_id": "exclude_session needs the session_id to exclude."})
        return data


class HitSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    ids = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Every memory the hit holds: offline, the statements of one turn found together are one hit.",
    )
    type = serializers.ChoiceField(
        choices=["memory", "insight", "turn"],
        help_text="turn: with an LLM, a stored turn that no fact found beside it covers (its id: the message's).",
    )
    kb = serializers.CharField()
    text = serializers.CharField()
    kind = serializers.CharField()
    score = serializers.FloatField()
    signals = serializers.ListField(child=serializers.CharField())
    sources = serializers.ListField(child=serializers.DictField())
    created_at = serializers.DateTimeField()
    valid_from = serializers.DateTimeField(allow_null=True)

    def to_representation(self, hit):
        """The fields' output, built directly: field by field it took a tenth of a recall's time (twenty hits)."""
        times = self.fields["created_at"]
        return {
            "id": hit.id,
            "ids": hit.ids,
            "type": hit.type,
            "kb": hit.kb,
            "text": hit.text,
            "kind": hit.kind,
            "score": float(hit.score),
            "signals": list(hit.signals),
            "sources": [dict(source) for source in hit.sources],
            "created_at": times.to_representation(hit.created_at) if hit.created_at else None,
            "valid_from": times.to_representation(hit.valid_from) if hit.valid_from else None,
        }


class RecallOutSerializer(serializers.Serializer):
    query = serializers.CharField()
    used_chars = serializers.IntegerField()
    results = HitSerializer(many=True)
    usage = UsageSerializer(required=False, help_text=USAGE_HELP)


class AskInSerializer(serializers.Serializer):
    question = serializers.CharField(max_length=2000)
    k = serializers.IntegerField(
        min_value=1, max_value=50, default=ASK_K, help_text="How many of the memories found the answer reads."
    )
    budget_chars = serializers.IntegerField(min_value=200, max_value=50_000, default=4000)
    session_id = serializers.CharField(max_length=200, required=False)
    user_id = UserIdField()


class AskOutSerializer(serializers.Serializer):
    answer = serializers.CharField()
    citations = serializers.ListField(child=serializers.IntegerField(), help_text="Ids of the memories used.")
    mode = serializers.CharField()
    memories = HitSerializer(many=True, help_text="What the answer was drawn from.")
    usage = UsageSerializer(required=False, help_text=USAGE_HELP)


class ContextInSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    session_id = serializers.CharField(max_length=200, required=False)
    budget_chars = serializers.IntegerField(
        min_value=200, max_value=100_000, required=False, help_text="Default: the CONTEXT_CHARS setting."
    )
    user_id = UserIdField()


class ContextOutSerializer(serializers.Serializer):
    context = serializers.CharField(help_text="A system-prompt block; empty when nothing relevant is remembered.")
    knowledge_bases = serializers.ListField(child=serializers.CharField())
    profile = HitSerializer(many=True, help_text="The end user's profile facts, at the top of the block.")
    memories = HitSerializer(many=True)
    insights = HitSerializer(many=True)
    documents = serializers.ListField(child=serializers.DictField())
    used_chars = serializers.IntegerField()
    usage = UsageSerializer(required=False, help_text=USAGE_HELP)


class ConsolidateAcceptedSerializer(serializers.Serializer):
    job_id = serializers.IntegerField()
    status = serializers.CharField()


class ArchiveSerializer(serializers.Serializer):
    session_id = serializers.CharField(max_length=200)
    keep_recent = serializers.IntegerField(
        min_value=0, default=0, help_text="Newest turns left out of the archive (they stay in the live session)."
    )


class ArchiveAcceptedSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    job_id = serializers.IntegerField()


class ToolCallSerializer(serializers.Serializer):
    arguments = serializers.JSONField(
        required=False, default=dict, help_text="The tool's arguments: an object, or the JSON string an LLM produced."
    )
    user_id = UserIdField(
        help_text="The end user the bot is serving (not a tool argument: the model never chooses whose memory it "
        "reads). Searches see that user's own and the shared rows, writes are theirs; without it, shared only."
    )


class ToolListSerializer(serializers.Serializer):
    tools = serializers.ListField(child=serializers.DictField(), help_text="OpenAI function definitions.")


class ToolResultSerializer(serializers.Serializer):
    tool = serializers.CharField()
    result = serializers.DictField()
    usage = UsageSerializer(required=False, help_text=USAGE_HELP)


class EndUserSerializer(serializers.Serializer):
    user_id = serializers.CharField(source="external_id", help_text="The bot's id for the end user.")
    created_at = serializers.DateTimeField(help_text="When the bot first named the user.")
    last_seen_at = serializers.DateTimeField(help_text="When the bot last sent something of the user's.")
    sessions = serializers.IntegerField(source="n_sessions")
    turns = serializers.IntegerField(source="n_turns")
    memories = serializers.IntegerField(source="n_memories", help_text="Live and retired.")
    documents = serializers.IntegerField(source="n_documents")
    last_turn_at = serializers.DateTimeField(allow_null=True, help_text="When the user's newest turn was said.")


class ErasedSerializer(serializers.Serializer):
    user_id = serializers.CharField()
    erased = serializers.DictField(child=serializers.IntegerField(), help_text="Rows and files removed, by kind.")


class ImportFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A KB's export (JSON Lines, UTF-8).")


class ImportedSerializer(serializers.Serializer):
    kb = serializers.CharField()
    added = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Rows added by kind (users, sessions, turns, documents, memories, insights, edges); 'unchanged': "
        "records the KB already held.",
    )
