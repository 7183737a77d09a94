"""Viewsets of the memory API. Every queryset is scoped to the calling bot."""

from __future__ import annotations

import json

from django.db.models import Prefetch
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kbsite.api.authentication import caller_for, caller_writing
from kbsite.api.mixins import KB_NAME, KBScopedMixin, active_kb
from kbsite.api.parsers import JSONLinesParser, MultiPartParser
from kbsite.models import NAME_RE, USER_ID_RE, EndUser, KnowledgeBase
from kbsite.selectors import kb_get
from memories import (
    archive,
    consolidation,
    endusers,
    ingest,
    portability,
    recall,
    selectors,
    services,
    tools,
)
from memories.api.serializers import (
    ArchiveAcceptedSerializer,
    ArchiveSerializer,
    AskInSerializer,
    AskOutSerializer,
    ClearResultSerializer,
    ConsolidateAcceptedSerializer,
    ContextInSerializer,
    ContextOutSerializer,
    EndUserSerializer,
    ErasedSerializer,
    HitSerializer,
    ImportedSerializer,
    ImportFileSerializer,
    IngestAcceptedSerializer,
    IngestTextSerializer,
    InsightSerializer,
    KnowledgeBaseSerializer,
    MemorySerializer,
    MessagesAcceptedSerializer,
    MessagesInSerializer,
    RecallInSerializer,
    RecallOutSerializer,
    RetireSerializer,
    ToolCallSerializer,
    ToolListSerializer,
    ToolResultSerializer,
)
from memories.filtersets import InsightFilterSet, MemoryFilterSet
from memories.models import Insight, Memory, Message, Session
from memories.recall import answers, context


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def _kb_with_counts(request, name: str) -> KnowledgeBase:
    return kb_get(bot=request.user, name=name, queryset=selectors.kb_list_with_counts())


class KnowledgeBaseViewSet(viewsets.ModelViewSet):
    """The calling bot's knowledge bases, with counts."""

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

    @extend_schema(request=MessagesInSerializer, responses={202: MessagesAcceptedSerializer})
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
        result = answers.kb_ask(kb=kb, caller=caller_for(request, data), **data)
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
        return _json_lines(portability.records(kbs=[kb]), f"{request.user.name}-{kb.name}.jsonl")

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
            added = portability.kb_import(kb=kb, text=text)
        except portability.ImportRefused as exc:
            return Response({"detail": str(exc), "line": exc.line}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"kb": kb.name, "added": added})

    @extend_schema(request=None, responses=ClearResultSerializer)
    @action(detail=True, methods=["post"])
    def clear(self, request, name=None):
        """Remove all memories, insights and entities of this KB (messages and documents stay)."""
        kb = kb_get(bot=request.user, name=name)
        return Response(services.kb_clear(kb=kb))


@extend_schema(parameters=[KB_NAME])
class MemoryViewSet(
    KBScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Memories of one KB: list (live by default), read, edit, retire, delete."""

    serializer_class = MemorySerializer
    filterset_class = MemoryFilterSet
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Memory.objects.none()
        return (
            Memory.objects.filter(kb=self.get_kb())
            .select_related("source_chunk__document", "end_user")
            .prefetch_related(Prefetch("source_messages", queryset=Message.objects.select_related("session")))
            .order_by("-created_at", "-id")
        )

    def filter_queryset(self, queryset):
        # Filters (and the live-only default) shape the list; an id always resolves.
        if self.action != "list":
            return queryset
        return super().filter_queryset(queryset)

    def perform_update(self, serializer):
        """A new wording is a new version (a new id): the answer is that version, the edited one is in its
        history."""
        try:
            serializer.instance = services.memory_update(memory=serializer.instance, data=serializer.validated_data)
        except services.MemoryRetired as exc:
            raise Conflict(str(exc)) from exc

    @extend_schema(request=None, responses=MemorySerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request, kb_name=None, pk=None):
        """Un-retire a memory. If its replacement is still live, the supersession is undone: the replacement is
        retired in its place."""
        memory = self.get_object()
        if not services.memory_restore(memory=memory):
            return Response({"detail": "This memory is live."}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(responses=MemorySerializer(many=True))
    @action(detail=True, methods=["get"])
    def history(self, request, kb_name=None, pk=None):
        """The memory's whole history: every version linked to it by supersession (edits, newer facts, restores),
        oldest first."""
        versions = self.get_object().versions()
        queryset = self.get_queryset().filter(pk__in=[m.pk for m in versions]).order_by("created_at", "id")
        return Response(self.get_serializer(queryset, many=True).data)

    @extend_schema(request=RetireSerializer, responses=MemorySerializer)
    @action(detail=True, methods=["post"])
    def retire(self, request, kb_name=None, pk=None):
        """Retire a memory: it stops being recalled but stays in the history."""
        memory = self.get_object()
        params = RetireSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        if not memory.retire(reason=params.validated_data["reason"]):
            return Response({"detail": "This memory is already retired."}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(self.get_object()).data)


@extend_schema(parameters=[KB_NAME])
class InsightViewSet(KBScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Insights of one KB, with the ids of the memories each one links."""

    serializer_class = InsightSerializer
    filterset_class = InsightFilterSet
    lookup_value_regex = "[0-9]+"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Insight.objects.none()
        return (
            Insight.objects.filter(kb=self.get_kb())
            .select_related("end_user")
            .prefetch_related(Prefetch("memories", queryset=Memory.objects.only("id")))
            .order_by("-created_at", "-id")
        )


def _uploaded_text(request) -> str:
    params = ImportFileSerializer(data=request.data)
    params.is_valid(raise_exception=True)
    try:
        return params.validated_data["file"].read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError({"file": [f"JSON Lines must be UTF-8: {exc}"]}) from exc


def _json_lines(records, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(portability.json_lines(records), content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


USER_KB = OpenApiParameter("kb", str, description="Only end users holding something in this KB, counted in it.")


@extend_schema_view(list=extend_schema(parameters=[USER_KB]))
class EndUserViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The bot's end users (named by ``user_id`` in its requests), what is held about each, and their data rights:
    export and erasure."""

    serializer_class = EndUserSerializer
    end_user_actions = {"retrieve", "export", "destroy"}  # a key of one end user: its own
    lookup_field = "external_id"
    lookup_url_kwarg = "user_id"
    lookup_value_regex = USER_ID_RE.strip("^$")

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return EndUser.objects.none()
        kb_name = self.request.query_params.get("kb")
        kb = kb_get(bot=self.request.user, name=kb_name) if kb_name else None
        return endusers.users_with_counts(bot=self.request.user, kb=kb)

    def get_object(self) -> EndUser:
        user = self.get_queryset().filter(external_id=self.kwargs["user_id"]).first()
        if user is None:
            raise NotFound(f"This bot holds nothing about an end user {self.kwargs['user_id']!r}.")
        return user

    @extend_schema(responses={200: ErasedSerializer})
    def destroy(self, request, user_id=None):
        """Erase the end user everywhere (turns, sessions, memories with their history, insights drawn from them,
        entities, documents and their files, pending input). Answers the counts; an audit record without content
        is kept."""
        user = self.get_object()
        counts = endusers.user_erase(end_user=user, erased_by=request.auth.label)
        return Response({"user_id": user_id, "erased": counts})

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"])
    def export(self, request, user_id=None):
        """Everything held about the end user, as JSON Lines (streamed)."""
        user = self.get_object()
        kbs = list(KnowledgeBase.objects.for_bot(request.user).order_by("name"))
        return _json_lines(portability.records(kbs=kbs, end_user=user), "user-export.jsonl")


class ContextView(APIView):
    """The memory-context block for the bot's next LLM call, across all its always-on KBs."""

    end_user_actions = {"get"}

    @extend_schema(parameters=[ContextInSerializer], responses=ContextOutSerializer)
    def get(self, request):
        params = ContextInSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        block = context.context_build(caller=caller_for(request, data), **data)
        return Response(
            {
                "context": block.text,
                "knowledge_bases": block.kbs,
                "profile": HitSerializer(block.profile, many=True).data,
                "memories": HitSerializer(block.memories, many=True).data,
                "insights": HitSerializer(block.insights, many=True).data,
                "documents": block.documents,
                "used_chars": block.used_chars,
            }
        )


class ArchiveView(APIView):
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


class ToolListView(APIView):
    """OpenAI function definitions of the tools, with the calling bot's knowledge bases."""

    end_user_actions = {"get"}

    @extend_schema(responses=ToolListSerializer)
    def get(self, request):
        return Response({"tools": tools.tools_definitions(caller=request.auth)})


class ToolCallView(APIView):
    """Execute one tool with the calling bot's scope: ``{"arguments": {...}}`` (or the JSON string)."""

    end_user_actions = {"post"}
    read_actions = {"post"}  # the tool itself is checked: a read-only key calls only the reading tools

    @extend_schema(
        parameters=[OpenApiParameter("name", str, OpenApiParameter.PATH, description="Tool name.")],
        request=ToolCallSerializer,
        responses=ToolResultSerializer,
    )
    def post(self, request, name):
        params = ToolCallSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        arguments = params.validated_data["arguments"]
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except (json.JSONDecodeError, RecursionError) as exc:
                raise ValidationError({"arguments": [f"not valid JSON: {exc}"]}) from exc
        if not isinstance(arguments, dict):
            raise ValidationError({"arguments": ["must be a JSON object"]})
        caller = caller_for(request, params.validated_data)
        try:
            result = tools.tool_execute(caller=caller, name=name, arguments=arguments)
        except tools.ToolError as exc:
            return Response({"detail": str(exc)}, status=exc.status)
        return Response({"tool": name, "result": result})
