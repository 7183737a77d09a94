"""The API of the bot tools: their OpenAI function definitions, and the execution of one."""

from __future__ import annotations

import json

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from kbsite.api.authentication import caller_for
from kbsite.api.metering import MeteredMixin
from kbsite.api.replica_reads import ReplicaReadsMixin
from memories.api.serializers import ToolCallSerializer, ToolListSerializer, ToolResultSerializer
from memories.tools import CHANGES, ToolError, tool_execute, tools_definitions


class ToolListView(ReplicaReadsMixin, APIView):
    """OpenAI function definitions of the tools, with the calling bot's knowledge bases."""

    end_user_actions = {"get"}

    @extend_schema(responses=ToolListSerializer)
    def get(self, request):
        return Response({"tools": tools_definitions(caller=request.auth)})


class ToolCallView(ReplicaReadsMixin, MeteredMixin, APIView):
    """Execute one tool with the calling bot's scope: ``{"arguments": {...}}`` (or the JSON string); the answer
    says what it spent (``usage``)."""

    end_user_actions = {"post"}
    metered_actions = frozenset({"post"})
    read_actions = {"post"}  # the tool itself is checked: a read-only key calls only the reading tools

    def reads_only(self, request) -> bool:
        return self.kwargs.get("name") not in CHANGES  # a tool that changes memory reads its rows on the primary

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
        self.metered_for(end_user_id=caller.end_user_id)  # a tool may reach any of the bot's KBs: no one KB's
        try:
            result = tool_execute(caller=caller, name=name, arguments=arguments)
        except ToolError as exc:
            return Response({"detail": str(exc)}, status=exc.status)
        return Response({"tool": name, "result": result})
