"""The API's context block: the memory-context section for a bot's next LLM call."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from kbsite.api.authentication import caller_for
from memories.api.serializers import ContextInSerializer, ContextOutSerializer, HitSerializer
from memories.recall.context import context_build


class ContextView(APIView):
    """The memory-context block for the bot's next LLM call, across all its always-on KBs."""

    end_user_actions = {"get"}

    @extend_schema(parameters=[ContextInSerializer], responses=ContextOutSerializer)
    def get(self, request):
        params = ContextInSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        block = context_build(caller=caller_for(request, data), **data)
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
