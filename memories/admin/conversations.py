"""Admin of what bots send: sessions, their turns, and ingest items (text, inbox files, uploads being mined)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from kbsite.operators import OperatedAdmin
from memories.models import IngestItem, Message, Session


@admin.register(Session)
class SessionAdmin(OperatedAdmin):
    list_display = ["external_id", "end_user", "kb", "message_count", "extracted_through", "updated_at"]
    list_filter = [("end_user", admin.EmptyFieldListFilter), "kb__bot", "kb"]
    list_select_related = ["kb__bot", "end_user"]
    search_fields = ["external_id", "end_user__external_id"]
    # claimed_by / claimed_until: the extraction job working on the session's new turns, if any.
    readonly_fields = [
        "kb",
        "end_user",
        "external_id",
        "extracted_through",
        "claimed_by",
        "claimed_until",
        "created_at",
        "updated_at",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_messages=Count("messages"))

    @admin.display(description="Messages", ordering="_messages")
    def message_count(self, obj):
        return obj._messages


@admin.register(Message)
class MessageAdmin(OperatedAdmin):
    list_display = ["external_id", "session", "kb", "role", "speaker", "short_content", "created_at"]
    list_filter = ["role", "kb__bot", "kb", "created_at"]

    def lookup_allowed(self, lookup, value, request=None):
        # An end user's page links to their turns.
        return lookup == "session__end_user__id__exact" or super().lookup_allowed(lookup, value, request)

    list_select_related = ["session", "kb__bot"]
    search_fields = ["external_id", "speaker", "content", "session__external_id"]
    readonly_fields = ["kb", "session", "external_id", "role", "speaker", "content", "created_at", "received_at"]
    # Millions of turns: newest first by id, the whole table not counted twice, no date hierarchy (see memories).
    ordering = ["-id"]
    show_full_result_count = False

    @admin.display(description="content")
    def short_content(self, obj):
        return obj.content[:100]


@admin.register(IngestItem)
class IngestItemAdmin(OperatedAdmin):
    list_display = ["id", "kind", "kb", "source", "file_name", "status", "progress", "created_at", "processed_at"]
    list_filter = ["status", "kind", "kb__bot"]
    list_select_related = ["kb__bot"]
    search_fields = ["source", "file_name", "text"]
    readonly_fields = [
        "kb",
        "kind",
        "source",
        "file_name",
        "text",
        "progress",
        "status",
        "error",
        "created_at",
        "processed_at",
    ]

    def has_add_permission(self, request):
        return False
