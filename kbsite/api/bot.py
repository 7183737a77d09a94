"""The calling bot's own settings through the API, ``GET``/``PATCH /api/v1/bot/``: its name and description, its
keys' requests per minute, and its LLM budget, as on its page in the admin."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema_field
from rest_framework import generics, serializers

from kbsite.api.replica_reads import ReplicaReadsMixin
from kbsite.budgets import Budget, budget_of
from kbsite.jobs import jobs_resume_waiting
from kbsite.models import Bot


class BotSerializer(serializers.ModelSerializer):
    """The bot's settings; its name under the admin's rules (the name pattern, unique among bots)."""

    burst = serializers.IntegerField(
        read_only=True,
        help_text="Requests a key may make at once on top of the steady rate (RATE_LIMIT_BURST_SECONDS' worth); "
        "0 without a limit.",
    )
    llm_tokens_today = serializers.SerializerMethodField(
        help_text="LLM tokens (in and out) the bot's jobs and answers have spent today (UTC), as recorded."
    )
    llm_budget_spent = serializers.SerializerMethodField(
        help_text="Whether today's tokens have reached llm_tokens_per_day: answers are extractive and extraction "
        "goes offline or waits (when_budget_spent)."
    )

    class Meta:
        model = Bot
        fields = [
            "id",
            "name",
            "description",
            "requests_per_minute",
            "burst",
            "llm_tokens_per_day",
            "when_budget_spent",
            "llm_tokens_today",
            "llm_budget_spent",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]

    def _budget(self, bot: Bot) -> Budget:
        """The bot's budget of today, read once per answer (after a PATCH, with the new settings)."""
        key = ("budget", bot.pk, bot.llm_tokens_per_day, bot.when_budget_spent)
        if key not in self.context:
            self.context[key] = budget_of(bot.pk)
        return self.context[key]

    @extend_schema_field(serializers.IntegerField())
    def get_llm_tokens_today(self, bot: Bot) -> int:
        return self._budget(bot).spent

    @extend_schema_field(serializers.BooleanField())
    def get_llm_budget_spent(self, bot: Bot) -> bool:
        return self._budget(bot).exhausted


class BotView(ReplicaReadsMixin, generics.RetrieveUpdateAPIView):
    """The calling bot's own settings: ``requests_per_minute`` (each of its keys, with a burst; past it a 429 with
    Retry-After; 0: no limit), ``llm_tokens_per_day`` (null: no budget) and ``when_budget_spent`` (``offline``:
    extraction goes on offline; ``wait``: it waits until the next day, UTC). A change of the limit applies to the next
    request; a raised budget (or ``offline``) takes up at once the work that waited for it. A read-only key reads
    them; a key of one end user neither reads nor changes them."""

    serializer_class = BotSerializer
    http_method_names = ["get", "patch", "head", "options"]

    def get_object(self) -> Bot:
        return self.request.user  # the caller's bot, loaded with its key

    def perform_update(self, serializer):
        try:
            with transaction.atomic():
                serializer.save()
        except IntegrityError as exc:  # another bot took the name between the check and the save
            raise serializers.ValidationError({"name": ["bot with this name already exists."]}) from exc
        jobs_resume_waiting(bot_id=serializer.instance.pk)
