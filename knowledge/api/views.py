"""Views of the knowledge API: documents of a KB (upload, read, write, delete, re-index) and their search."""

from __future__ import annotations

from django.db.models import Count
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from kbsite.api.authentication import caller_for, caller_writing
from kbsite.api.mixins import KB_NAME, KBScopedMixin, active_kb
from kbsite.api.replica_reads import ReplicaReadsMixin
from knowledge import files, services
from knowledge.api.serializers import (
    DocumentAcceptedSerializer,
    DocumentDetailSerializer,
    DocumentHitSerializer,
    DocumentsAcceptedSerializer,
    DocumentSearchResultSerializer,
    DocumentSearchSerializer,
    DocumentSerializer,
    DocumentTextSerializer,
    DocumentUploadSerializer,
    DocumentWriteSerializer,
)
from knowledge.filtersets import DocumentFilterSet
from knowledge.models import SLUG_RE, Document
from knowledge.search import chunks_search

SLUG_PARAM = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="Document slug.", pattern=SLUG_RE)
_WITH_SLUG = extend_schema(parameters=[SLUG_PARAM])


def _refused(exc: Exception) -> ValidationError:
    return ValidationError({"detail": str(exc)})


@extend_schema(parameters=[KB_NAME])
@extend_schema_view(retrieve=_WITH_SLUG, update=_WITH_SLUG, destroy=_WITH_SLUG, reindex=_WITH_SLUG)
class DocumentViewSet(
    ReplicaReadsMixin, KBScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Documents of one KB: upload or send text (indexed in the background), read, write markdown, delete, search."""

    lookup_field = "slug"
    lookup_value_regex = "[^/]+"
    filterset_class = DocumentFilterSet
    read_actions = {"search"}  # the POST a read-only key may make

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Document.objects.none()
        return (
            Document.objects.present()
            .filter(kb=self.get_kb())
            .select_related("end_user")
            .annotate(chunk_count=Count("chunks"))
            .order_by("slug")
        )

    def get_serializer_class(self):
        return DocumentDetailSerializer if self.action == "retrieve" else DocumentSerializer

    def get_object(self):
        slug = self.kwargs["slug"]
        try:
            files.slug_check(slug)
        except files.InvalidSlug as exc:
            raise _refused(exc) from exc
        document = self.get_queryset().filter(slug=slug).first()
        if document is None:
            raise NotFound(f"No document {slug!r} in knowledge base {self.get_kb().name!r}.")
        return document

    @extend_schema(
        request={"multipart/form-data": DocumentUploadSerializer, "application/json": DocumentTextSerializer},
        responses={202: DocumentsAcceptedSerializer},
    )
    def create(self, request, kb_name=None):
        """Upload files (multipart field ``file``, several allowed) or send JSON ``content``; indexed in a job."""
        kb = active_kb(request, kb_name)
        accepted = []
        try:
            if request.content_type.startswith("multipart/"):
                params = DocumentUploadSerializer(data={**request.data.dict(), "file": request.FILES.getlist("file")})
                params.is_valid(raise_exception=True)
                uploads = params.validated_data["file"]
                end_user = caller_writing(request, params.validated_data).end_user
                # All or nothing: every file is checked before any is stored.
                for upload in uploads:
                    services.upload_check(name=upload.name, size=upload.size)
                for upload in uploads:
                    document, job = services.document_upload(
                        kb=kb,
                        name=upload.name,
                        data=upload.read(),
                        namespace=params.validated_data["namespace"],
                        title=params.validated_data["title"] if len(uploads) == 1 else "",
                        end_user=end_user,
                    )
                    accepted.append({"slug": document.slug, "status": document.status, "job_id": job.pk})
            else:
                params = DocumentTextSerializer(data=request.data)
                params.is_valid(raise_exception=True)
                data = params.validated_data
                end_user = caller_writing(request, data).end_user
                document, job = services.document_receive_text(kb=kb, end_user=end_user, **data)
                accepted.append({"slug": document.slug, "status": document.status, "job_id": job.pk})
        except (services.DocumentRefused, files.InvalidSlug) as exc:
            raise _refused(exc) from exc
        return Response({"documents": accepted}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        request=DocumentWriteSerializer, responses={200: DocumentDetailSerializer, 201: DocumentDetailSerializer}
    )
    def update(self, request, kb_name=None, slug=None):
        """Create or replace a markdown document: its file in knowledge/ and the index, together."""
        kb = active_kb(request, kb_name)
        params = DocumentWriteSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        try:
            document, created = services.document_write(kb=kb, slug=slug, content=params.validated_data["content"])
        except (services.DocumentRefused, files.InvalidSlug) as exc:
            raise _refused(exc) from exc
        document = self.get_queryset().get(pk=document.pk)
        return Response(
            DocumentDetailSerializer(document).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )

    def destroy(self, request, kb_name=None, slug=None):
        """Delete a document from the index and its file (markdown) or stored upload."""
        services.document_delete(document=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={202: DocumentAcceptedSerializer})
    @action(detail=True, methods=["post"])
    def reindex(self, request, kb_name=None, slug=None):
        """Extract, chunk and embed the document again (e.g. after a failure)."""
        document = self.get_object()
        job = services.enqueue_document(document=document)
        return Response({"slug": document.slug, "status": "pending", "job_id": job.pk}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=DocumentSearchSerializer, responses=DocumentSearchResultSerializer)
    @action(detail=False, methods=["post"])
    def search(self, request, kb_name=None):
        """Hybrid search over the KB's document chunks (full text + vector, RRF) with highlighted snippets."""
        params = DocumentSearchSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        results = chunks_search(
            end_user_id=caller_for(request, data).end_user_id,
            kbs=[self.get_kb()],
            query=data["query"],
            limit=data["limit"],
            doc_types=data.get("doc_types"),
            namespaces=data.get("namespaces"),
            exclude_session=data.get("session_id"),
        )
        return Response({"query": data["query"], "results": DocumentHitSerializer(results, many=True).data})
