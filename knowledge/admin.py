"""Admin for knowledge documents: the markdown editor, chunks, re-indexing and the upload page.

Chunks (a chunk's text edited as an edit of its document, screened and embedded again), a markdown editor that
writes through to the file, re-indexing, and the staff upload page with its live status list.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Count
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from kbsite.admin_filters import LanguageListFilter
from kbsite.models import KnowledgeBase
from kbsite.operators import OperatedAdmin, operated
from knowledge import services
from knowledge.forms import ChunkForm, MarkdownDocumentForm, UploadForm
from knowledge.models import Chunk, Document


class PresentFilter(admin.SimpleListFilter):
    title = "present"
    parameter_name = "present"

    def lookups(self, request, model_admin):
        return [("yes", "Present"), ("no", "Deleted")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=True)
        if self.value() == "no":
            return queryset.filter(deleted_at__isnull=False)
        return queryset


@admin.register(Document)
class DocumentAdmin(OperatedAdmin):
    list_display = [
        "slug",
        "title",
        "kb",
        "end_user",
        "doc_type",
        "namespace",
        "status",
        "chunk_count",
        "size",
        "updated_at",
    ]
    list_filter = [
        "status",
        "doc_type",
        "namespace",
        LanguageListFilter,
        PresentFilter,
        ("end_user", admin.EmptyFieldListFilter),
        "kb__bot",
        "kb",
    ]
    list_select_related = ["kb__bot", "end_user"]
    search_fields = ["slug", "title", "source", "end_user__external_id"]
    autocomplete_fields = ["kb", "end_user"]
    readonly_fields = [
        "title",
        "doc_type",
        "namespace",
        "source",
        "language",
        "metadata",
        "content_hash",
        "size",
        "status",
        "error",
        "quarantine_reason",
        "operator_edits",
        "deleted_at",
        "created_at",
        "updated_at",
        "chunk_list",
    ]
    actions = ["reindex"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_chunks=Count("chunks"))

    @admin.display(description="chunks", ordering="_chunks")
    def chunk_count(self, obj):
        return obj._chunks

    @admin.display(description="size", ordering="size_bytes")
    def size(self, obj):
        """As people read it ("12.5 KB"), the bytes on hover."""
        return format_html('<span title="{} bytes">{}</span>', obj.size_bytes, filesizeformat(obj.size_bytes))

    @admin.display(description="chunks")
    def chunk_list(self, obj):
        # Read-only list rather than an inline: chunks are written by the indexer only.
        rows = format_html_join(
            "",
            '<tr><td><a href="{}">#{}</a></td><td>{}</td><td>{}</td></tr>',
            (
                (reverse("admin:knowledge_chunk_change", args=[c.pk]), c.ordinal, c.start_char, c.text[:400])
                for c in obj.chunks.order_by("ordinal")
            ),
        )
        return format_html("<table><tr><th>chunk</th><th>offset</th><th>text</th></tr>{}</table>", rows)

    @admin.display(description="operator edits")
    def operator_edits(self, obj):
        """Whether an upload's text holds an operator's chunk edits, which re-indexing keeps while its file is
        unchanged, or whether a changed file replaced them."""
        if obj.doc_type != Document.Type.UPLOAD:
            return "-"
        if edited_at := obj.metadata.get("edited_at"):
            return (
                f"Holds an operator's edits (last {edited_at}): re-indexing keeps them while the uploaded file is "
                "unchanged; a changed file is extracted again and replaces them."
            )
        if replaced := obj.metadata.get("edits_replaced"):
            return replaced.get("note", "")
        return "none: the text is the file's, as extracted"

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # A changed file replaced an operator's edits in a background job: said where the operator looks next.
        document = self.get_object(request, object_id)
        if document is not None and request.method == "GET" and "edits_replaced" in document.metadata:
            self.message_user(request, document.metadata["edits_replaced"].get("note", ""), messages.WARNING)
        return super().change_view(request, object_id, form_url, extra_context)

    def _editable(self, obj) -> bool:
        return obj is None or obj.doc_type == Document.Type.MARKDOWN

    def get_form(self, request, obj=None, change=False, **kwargs):
        if self._editable(obj):
            kwargs["form"] = MarkdownDocumentForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        return ["kb", "slug", "content"] if obj is None else ["kb", "slug", "content", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        # Only a markdown document's content is editable: it is written through to its file.
        return ["kb", "slug", *self.readonly_fields, *([] if self._editable(obj) else ["content"])]

    def save_model(self, request, obj, form, change):
        # Write-through: the file in knowledge/ and the index change together.
        document, _ = services.document_write(
            kb=form.cleaned_data.get("kb") or obj.kb,
            slug=form.cleaned_data.get("slug") or obj.slug,
            content=form.cleaned_data["content"],
            source="admin",
            max_bytes=settings.MAX_UPLOAD_BYTES,
        )
        obj.pk = document.pk
        if document.quarantine_reason:  # screened like the API's writes: the operator is told why
            self.message_user(
                request,
                f"Saved; {document.slug!r} is quarantined and never given to bots: {document.quarantine_reason}.",
                messages.WARNING,
            )

    def save_related(self, request, form, formsets, change):
        pass  # chunks are written by the indexer, not by the inline

    def delete_model(self, request, obj):
        # Like the API: a present document leaves the index and the disk but stays listed as deleted (filter
        # "present: Deleted"); deleting it again removes the record.
        if obj.deleted_at is None:
            services.document_delete(document=obj)
        else:
            obj.delete()

    def delete_queryset(self, request, queryset):
        for document in queryset:
            self.delete_model(request, document)

    @admin.action(description="Re-index selected documents (extract, chunk, embed again)")
    def reindex(self, request, queryset):
        count = edited = 0
        for document in queryset.filter(deleted_at__isnull=True):
            services.enqueue_document(document=document)
            count += 1
            edited += document.doc_type == Document.Type.UPLOAD and "edited_at" in document.metadata
        self.message_user(request, f"Queued {count} document(s) for re-indexing.", messages.SUCCESS)
        if edited:
            self.message_user(
                request,
                f"{edited} uploaded document(s) hold operator edits: they are kept while the files are unchanged; "
                "a changed file replaces them (its document's page then says so).",
            )

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("upload/", view(self.upload_view), name="knowledge_document_upload"),
            path("upload/status/", view(self.upload_status_view), name="knowledge_document_upload_status"),
            *super().get_urls(),
        ]

    def upload_view(self, request):
        """Staff upload several files at once; each becomes a document indexed by a background job."""
        if not self.has_add_permission(request):
            return redirect("admin:index")
        form = UploadForm(
            request.POST or None, request.FILES or None, kbs=operated(KnowledgeBase.objects.all(), request.user)
        )
        if request.method == "POST" and form.is_valid():
            ids = []
            with transaction.atomic():
                for upload in form.cleaned_data["files"]:
                    document, _ = services.document_upload(
                        kb=form.cleaned_data["kb"],
                        name=upload.name,
                        data=upload.read(),
                        namespace=form.cleaned_data["namespace"],
                    )
                    ids.append(str(document.pk))
            return redirect(f"{reverse('admin:knowledge_document_upload_status')}?ids={','.join(ids)}")
        context = {**self.admin_site.each_context(request), "title": "Upload documents", "form": form}
        return TemplateResponse(request, "admin/knowledge/document/upload.html", context)

    def upload_status_view(self, request):
        """The uploaded documents' status; the page refreshes itself until each is done or failed."""
        ids = [int(i) for i in request.GET.get("ids", "").split(",") if i.strip().isdigit()][:100]
        documents = list(
            operated(Document.objects.filter(pk__in=ids), request.user)
            .select_related("kb__bot")
            .annotate(n_chunks=Count("chunks"))
            .order_by("pk")
        )
        waiting = any(d.status in (Document.Status.PENDING, Document.Status.PROCESSING) for d in documents)
        context = {
            **self.admin_site.each_context(request),
            "title": "Upload status",
            "documents": documents,
            "waiting": waiting,
        }
        return TemplateResponse(request, "admin/knowledge/document/upload_status.html", context)


@admin.register(Chunk)
class ChunkAdmin(OperatedAdmin):
    list_display = ["__str__", "kb", "ordinal", "short_text", "created_at"]
    list_filter = ["kb__bot", "kb"]
    list_select_related = ["document", "kb__bot"]
    search_fields = ["text", "document__slug"]
    form = ChunkForm
    # Only the text is edited, as an edit of its document (services.chunk_edit); chunks are cut by the indexer, so
    # none is added here (a read-only kb keeps the add page closed).
    readonly_fields = ["kb", "document", "ordinal", "start_char", "screening", "created_at"]
    fields = ["kb", "document", "ordinal", "start_char", "text", "screening", "created_at"]

    @admin.display(description="text")
    def short_text(self, obj):
        return obj.text[:120]

    @admin.display(description="screening")
    def screening(self, obj):
        """Whether the chunk's document may reach a bot, and if not, why."""
        reason = obj.document.quarantine_reason if obj.pk else ""
        if not reason:
            return "not flagged: may be given to bots"
        return f"quarantined, never given to bots: its document is flagged ({reason})"

    def save_model(self, request, obj, form, change):
        # The edit is its document's: screened, embedded and indexed again like any write of it (the API's path).
        chunk = Chunk.objects.select_related("document__kb").get(pk=obj.pk)
        text = form.cleaned_data["text"]
        if text == chunk.text:
            return
        document = services.chunk_edit(chunk=chunk, text=text, max_bytes=settings.MAX_UPLOAD_BYTES)
        if document.quarantine_reason:
            self.message_user(
                request,
                f"Saved into {document.slug!r}, which is now quarantined and never given to bots: "
                f"{document.quarantine_reason}.",
                messages.WARNING,
            )
        if document.doc_type == Document.Type.UPLOAD:
            self.message_user(
                request,
                "The uploaded file is unchanged; the edited text is the document's text from now on and is kept when "
                "it is re-indexed, until a changed file is indexed (its text then replaces the edits, and the "
                "document's page says so).",
            )

    def response_change(self, request, obj):
        # The document was chunked again: if this chunk was cut away (the document got shorter), its document's page.
        if not Chunk.objects.filter(pk=obj.pk).exists():
            return redirect(reverse("admin:knowledge_document_change", args=[obj.document_id]))
        return super().response_change(request, obj)
