"""Admin for knowledge documents and their chunks."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count

from knowledge.models import Chunk, Document


class ChunkInline(admin.TabularInline):
    model = Chunk
    extra = 0
    fields = ["ordinal", "start_char", "text"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["slug", "title", "kb", "doc_type", "namespace", "status", "chunk_count", "size_bytes", "updated_at"]
    list_filter = ["status", "doc_type", "namespace", "kb__bot", "kb"]
    list_select_related = ["kb__bot"]
    search_fields = ["slug", "title", "source"]
    raw_id_fields = ["kb"]
    readonly_fields = ["content_hash", "size_bytes", "status", "error", "deleted_at", "created_at", "updated_at"]
    inlines = [ChunkInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_chunks=Count("chunks"))

    @admin.display(description="chunks", ordering="_chunks")
    def chunk_count(self, obj):
        return obj._chunks


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["__str__", "kb", "ordinal", "short_text", "created_at"]
    list_filter = ["kb__bot", "kb"]
    list_select_related = ["document", "kb__bot"]
    search_fields = ["text", "document__slug"]
    raw_id_fields = ["document", "kb"]
    readonly_fields = ["created_at"]

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]
