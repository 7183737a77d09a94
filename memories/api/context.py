"""The API's context block: the memory-context section for a bot's next LLM call."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from kbsite.api.authentication import caller_for
from kbsite.api.metering import MeteredMixin
from kbsite.api.replica_reads import ReplicaReadsMixin
from memories.api.serializers import ContextInSerializer, ContextOutSerializer, HitSerializer
from memories.recall.context import context_build


class ContextView(ReplicaReadsMixin, MeteredMixin, APIView):
    """The memory-context block for the bot's next LLM call, across all its always-on KBs, with its usage."""

    end_user_actions = {"get"}
    metered_actions = frozenset({"get"})

    @extend_schema(parameters=[ContextInSerializer], responses=ContextOutSerializer)
    def get(self, request):
        params = ContextInSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        caller = caller_for(request, data)
        self.metered_for(end_user_id=caller.end_user_id)  # the bot's always-on KBs: no one KB's
        block = context_build(caller=caller, **data)
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
