"""The API of a bot's knowledge bases: list, create and change them with their counts; post their input (turns,
text; archive a session); recall, ask, consolidate; export and import them; clear their memories."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kbsite.api.authentication import caller_for, caller_writing
from kbsite.api.metering import MeteredMixin
from kbsite.api.mixins import KB_NAME, active_kb
from kbsite.api.parsers import JSONLinesParser, MultiPartParser
from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.models import NAME_RE, KnowledgeBase
from kbsite.selectors import kb_get
from memories import archive, consolidation, ingest, recall, rights, selectors, services
from memories.api.exports import json_lines_response
from memories.api.serializers import (
    ArchiveAcceptedSerializer,
    ArchiveSerializer,
    AskInSerializer,
    AskOutSerializer,
    ClearResultSerializer,
    ConsolidateAcceptedSerializer,
    HitSerializer,
    ImportedSerializer,
    ImportFileSerializer,
    IngestAcceptedSerializer,
    IngestTextSerializer,
    KnowledgeBaseSerializer,
    MessagesAcceptedSerializer,
    MessagesInSerializer,
    RecallInSerializer,
    RecallOutSerializer,
)
from memories.models import Session
from memories.recall import answers


def _kb_with_counts(request, name: str) -> KnowledgeBase:
    return kb_get(bot=request.user, name=name, queryset=selectors.kb_list_with_counts())


class KnowledgeBaseViewSet(ReplicaReadsMixin, MeteredMixin, viewsets.ModelViewSet):
    """The calling bot's knowledge bases, with counts; recall and ask answer with their usage."""

    metered_actions = frozenset({"recall", "ask"})
    serializer_class = KnowledgeBaseSerializer
    end_user_actions = {"messages", "ingest", "recall", "ask"}  # what a key of one end user may do, as them
    read_actions = {"recall", "ask"}  # the POSTs a read-only key may make
    lookup_field = "name"
    lookup_value_regex = NAME_RE.strip("^$")
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return KnowledgeBase.objects.none()
        return selectors.kb_list_with_counts(bot=self.request.user).order_by("name")

    def get_object(self):
        return _kb_with_counts(self.request, self.kwargs["name"])

    def perform_create(self, serializer):
        serializer.save(bot=self.request.user)

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        self.perform_create(serializer)
        kb = _kb_with_counts(request, serializer.instance.name)
        return Response(self.get_serializer(kb).data, status=status.HTTP_201_CREATED)

    def update(self, request, *args, **kwargs):
        kb = self.get_object()
        serializer = self.get_serializer(kb, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        kb = _kb_with_counts(request, serializer.instance.name)
        return Response(self.get_serializer(kb).data)

    @extend_schema(
        request=MessagesInSerializer,
        responses={202: MessagesAcceptedSerializer},
        examples=[
            OpenApiExample(
                "Two turns of Alice's chat",
                request_only=True,
                value={
                    "session_id": "chat-2024-05-02",
                    "user_id": "alice",
                    "messages": [
                        {"external_id": "t1", "role": "user", "content": "I moved to Lisbon in May."},
                        {"external_id": "t2", "role": "assistant", "content": "Welcome to Lisbon!"},
                    ],
                },
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def messages(self, request, name=None):
        """Post a batch of chat turns. Stored at once (idempotent by external_id); extracted in the background."""
        kb = active_kb(request, name)
        params = MessagesInSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        try:
            result = ingest.messages_receive(
                kb=kb,
                session_id=data["session_id"],
                messages=data["messages"],
                end_user=caller_writing(request, data).end_user,
            )
        except ingest.SessionOfAnotherUser as exc:
            if request.auth.end_user_key:  # a key of one end user learns nothing of the others
                detail = f"Session {data['session_id']!r} is not yours: post these turns to another session_id."
                return Response({"detail": detail}, status=status.HTTP_409_CONFLICT)
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(result, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=IngestTextSerializer, responses={202: IngestAcceptedSerializer})
    @action(detail=True, methods=["post"])
    def ingest(self, request, name=None):
        """Post a piece of text (notes, a transcript, a document's text) to be turned into memories."""
        kb = active_kb(request, name)
        params = IngestTextSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        item, job = ingest.text_receive(kb=kb, end_user=caller_writing(request, data).end_user, **data)
        return Response({"item_id": item.pk, "job_id": job.pk, "status": item.status}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=RecallInSerializer, responses=RecallOutSerializer)
    @action(detail=True, methods=["post"])
    def recall(self, request, name=None):
        """Hybrid recall (full text + vector, RRF), packed under budget_chars, with scores, signals and sources."""
        kb = kb_get(bot=request.user, name=name)
        params = RecallInSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        caller = caller_for(request, data)
        self.metered_for(kb=kb, end_user_id=caller.end_user_id)
        hits = recall.recall(
            recall.RecallQuery(
                kbs=(kb,),
                text=data["query"],
                end_user_id=caller.end_user_id,
                k=data["k"],
                budget_chars=data.get("budget_chars"),
                exclude_session=data["session_id"] if data["exclude_session"] else None,
                kinds=tuple(data["kinds"]) if data.get("kinds") else None,
                as_of=data.get("as_of"),
                known_at=data.get("known_at"),
                metadata=data.get("metadata"),
            )
        )
        return Response(
            {
                "query": data["query"],
                "used_chars": sum(len(h.text) for h in hits),
                "results": HitSerializer(hits, many=True).data,
            }
        )

    @extend_schema(request=AskInSerializer, responses=AskOutSerializer)
    @action(detail=True, methods=["post"])
    def ask(self, request, name=None):
        """Answer a question from this KB's memories, citing the memory ids used."""
        kb = kb_get(bot=request.user, name=name)
        params = AskInSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        caller = caller_for(request, data)
        self.metered_for(kb=kb, end_user_id=caller.end_user_id)
        result = answers.kb_ask(kb=kb, caller=caller, **data)
        return Response(
            {
                "answer": result.answer,
                "citations": result.citations,
                "mode": result.mode,
                "memories": HitSerializer(result.memories, many=True).data,
            }
        )

    @extend_schema(request=None, responses={202: ConsolidateAcceptedSerializer})
    @action(detail=True, methods=["post"])
    def consolidate(self, request, name=None):
        """Run consolidation of this KB now (in the background); the job's run record shows what it did."""
        kb = active_kb(request, name)
        job = consolidation.enqueue_consolidation(kb=kb)
        return Response({"job_id": job.pk, "status": job.status}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def export(self, request, name=None):
        """Everything the KB holds as JSON Lines (streamed): end users, sessions, turns, memories live and retired
        with provenance and validity, insights, documents with their content."""
        kb = kb_get(bot=request.user, name=name)
        return json_lines_response(rights.records(kbs=[kb]), f"{request.user.name}-{kb.name}.jsonl")

    @extend_schema(
        request={"application/x-ndjson": OpenApiTypes.STR, "multipart/form-data": ImportFileSerializer},
        responses={200: ImportedSerializer},
    )
    @action(detail=True, methods=["post"], url_path="import", parser_classes=[JSONLinesParser, MultiPartParser])
    def import_(self, request, name=None):
        """Import a KB's export (JSON Lines, as the body or as a ``file`` upload) into this KB, all or nothing:
        a bad line is a 400 naming it. Importing the same file again adds nothing."""
        kb = active_kb(request, name)
        text = request.data if isinstance(request.data, str) else _uploaded_text(request)
        try:
            added = rights.kb_import(kb=kb, text=text)
        except rights.ImportRefused as exc:
            return Response({"detail": str(exc), "line": exc.line}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"kb": kb.name, "added": added})

    @extend_schema(request=None, responses=ClearResultSerializer)
    @action(detail=True, methods=["post"])
    def clear(self, request, name=None):
        """Remove all memories, insights and entities of this KB (messages and documents stay)."""
        kb = kb_get(bot=request.user, name=name)
        return Response(services.kb_clear(kb=kb))


def _uploaded_text(request) -> str:
    params = ImportFileSerializer(data=request.data)
    params.is_valid(raise_exception=True)
    try:
        return params.validated_data["file"].read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError({"file": [f"JSON Lines must be UTF-8: {exc}"]}) from exc


class ArchiveView(ReplicaReadsMixin, APIView):
    """Archive a session's turns into a conversation document now (in the background)."""

    @extend_schema(parameters=[KB_NAME], request=ArchiveSerializer, responses={202: ArchiveAcceptedSerializer})
    def post(self, request, kb_name):
        kb = active_kb(request, kb_name)
        params = ArchiveSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        session = Session.objects.filter(kb=kb, external_id=params.validated_data["session_id"]).first()
        if session is None:
            raise NotFound(f"No session {params.validated_data['session_id']!r} in knowledge base {kb.name!r}.")
        job = archive.enqueue_archive(session=session, keep=params.validated_data["keep_recent"])
        return Response({"session_id": session.external_id, "job_id": job.pk}, status=status.HTTP_202_ACCEPTED)
