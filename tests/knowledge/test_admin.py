"""Staff pages: the markdown editor writes through to the file, re-index, and the multi-file upload form."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from knowledge import files, services
from knowledge.models import Document
from tests.conftest import run_queued_tasks

pytestmark = pytest.mark.django_db


def test_editor_creates_and_edits_a_markdown_file(admin_client, kb):
    """Adding and editing a markdown document in the admin writes <kb>/knowledge/<slug>.md and re-indexes it."""
    response = admin_client.post(
        reverse("admin:knowledge_document_add"),
        {"kb": kb.pk, "slug": "onboarding", "content": "# Onboarding\n\nNew staff get a laptop on day one.\n"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    document = Document.objects.get(slug="onboarding")
    assert files.document_path(kb, "onboarding").read_text() == document.content
    assert document.title == "Onboarding" and document.chunks.count() == 1
    response = admin_client.post(
        reverse("admin:knowledge_document_change", args=[document.pk]),
        {"content": "# Onboarding\n\nNew staff get a laptop and a badge.\n"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    document.refresh_from_db()
    assert files.document_path(kb, "onboarding").read_text() == document.content
    assert "badge" in document.chunks.get().text


def test_editor_keeps_the_files_line_endings_and_final_newline_and_names_its_path(admin_client, kb):
    """A browser posts a textarea with CRLF line endings and maybe no final newline: the file keeps its own
    (issue 20)."""
    services.document_write(kb=kb, slug="unix", content="# Unix\n\nLF lines.\n", source="test")
    services.document_write(kb=kb, slug="dos", content="# Dos\r\n\r\nCRLF lines.\r\n", source="test")
    for slug, posted, expected in (
        ("unix", "# Unix\r\n\r\nLF lines, edited.", "# Unix\n\nLF lines, edited.\n"),
        ("dos", "# Dos\r\n\r\nCRLF lines, edited.", "# Dos\r\n\r\nCRLF lines, edited.\r\n"),
    ):
        document = Document.objects.get(slug=slug)
        page = admin_client.get(reverse("admin:knowledge_document_change", args=[document.pk])).content.decode()
        assert str(files.document_path(kb, slug)) in page and "/knowledge/.md" not in page
        response = admin_client.post(
            reverse("admin:knowledge_document_change", args=[document.pk]), {"content": posted}
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        assert files.document_path(kb, slug).read_bytes().decode() == expected


def test_editor_refuses_bad_slugs_with_a_message(admin_client, kb, tmp_path):
    """A traversal slug is a form error; nothing is written."""
    before = sorted(tmp_path.rglob("*"))
    response = admin_client.post(
        reverse("admin:knowledge_document_add"), {"kb": kb.pk, "slug": "../evil", "content": "# x\n"}
    )
    assert response.status_code == 200 and "invalid slug" in response.content.decode()
    assert sorted(tmp_path.rglob("*")) == before


def test_uploaded_documents_are_shown_read_only(admin_client, kb):
    """An upload's extracted text is shown, not editable (there is no file to write it to)."""
    document, _ = services.document_upload(kb=kb, name="memo.txt", data=b"Quarterly memo about the budget.")
    run_queued_tasks()
    page = admin_client.get(reverse("admin:knowledge_document_change", args=[document.pk])).content.decode()
    assert "Quarterly memo" in page and '<textarea name="content"' not in page
    # The language it was told in as it was indexed.
    assert re.search(r"Language:</label>\s*<div class=\"readonly\">en</div>", page), "the page shows its language"


def test_reindex_action_queues_jobs(admin_client, kb):
    """The re-index action puts the selected documents back through extraction and indexing."""
    document, _ = services.document_write(kb=kb, slug="faq", content="# FAQ\n\nOpen 9 to 5.\n")
    response = admin_client.post(
        reverse("admin:knowledge_document_changelist"), {"action": "reindex", "_selected_action": [document.pk]}
    )
    assert response.status_code == 302
    assert Document.objects.get(pk=document.pk).status == "pending"
    run_queued_tasks()
    assert Document.objects.get(pk=document.pk).status == "done"


def test_deleting_a_document_keeps_its_record_until_deleted_again(admin_client, kb):
    """As through the API, deleting removes the file and the chunks and keeps the record, listed as deleted;
    deleting the deleted record removes it."""
    document, _ = services.document_write(kb=kb, slug="faq", content="# FAQ\n\nOpen 9 to 5.\n")
    delete_url = reverse("admin:knowledge_document_delete", args=[document.pk])
    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 302
    document.refresh_from_db()
    assert document.deleted_at is not None and not document.chunks.exists()
    assert not files.document_path(kb, "faq").exists()
    listed = admin_client.get(reverse("admin:knowledge_document_changelist") + "?present=no").content.decode()
    assert "faq" in listed

    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 302
    assert not Document.objects.filter(pk=document.pk).exists()


def test_upload_form_takes_several_files_and_reports_their_status(admin_client, kb):
    """Several files in one post; the status page refreshes itself while any is pending and stops when done."""
    response = admin_client.post(
        reverse("admin:knowledge_document_upload"),
        {
            "kb": kb.pk,
            "namespace": "documents",
            "files": [
                SimpleUploadedFile("a.txt", b"Alpha file about apples."),
                SimpleUploadedFile("b.md", b"# Bravo\n\nBananas."),
            ],
        },
    )
    assert response.status_code == 302
    status_url = response["Location"]
    page = admin_client.get(status_url).content.decode()
    assert page.count('data-status="pending"') == 2 and 'http-equiv="refresh"' in page
    run_queued_tasks()
    page = admin_client.get(status_url).content.decode()
    assert page.count('data-status="done"') == 2 and 'http-equiv="refresh"' not in page


def test_upload_form_refuses_unsupported_files_with_a_message(admin_client, kb):
    """An unsupported type is a form error naming the file and the supported types; nothing is stored."""
    response = admin_client.post(
        reverse("admin:knowledge_document_upload"),
        {"kb": kb.pk, "namespace": "documents", "files": [SimpleUploadedFile("movie.mp4", b"\x00\x00")]},
    )
    assert response.status_code == 200
    assert "unsupported file type &#x27;.mp4&#x27;" in response.content.decode()
    assert not Document.objects.exists()


def test_an_uploads_title_is_its_texts_heading_and_sizes_read_as_people_read_them(admin_client, api, kb):
    """Issue 42: an uploaded file is titled by its text's first heading once read (a markdown heading, or a short
    line standing alone on top), by its file's name while it has none, and a title given with it is kept; the
    document list shows "1.5 KB", not 1536."""
    uploads = {
        "shop-rules.md": b"# Returns and refunds\n\nA refund takes five days.\n",
        "opening_times.txt": b"When we are open\n\nThe shop opens at nine.\n",
        "plain-notes.txt": b"The shop opens at nine. It closes at six.\n",
        "big.txt": b"Sizes\n\n" + b"x" * 1529,
        "refunds.txt": b"Refund policy\n\nA refund takes five days.\n\n## Shipping\n\nOrders ship in two days.\n",
    }
    for name, data in uploads.items():
        response = api.post("/api/v1/kbs/notes/documents/", files=[("file", (name, data))])
        assert response.status_code == 202, response.text
    titled = api.post(
        "/api/v1/kbs/notes/documents/",
        files=[("file", ("given.md", b"# Not this\n\nText.\n"))],
        data={"title": "Given"},
    )
    assert titled.status_code == 202, titled.text
    run_queued_tasks()
    titles = dict(Document.objects.values_list("source", "title"))
    assert titles == {
        "shop-rules.md": "Returns and refunds",
        "opening_times.txt": "When we are open",
        "plain-notes.txt": "plain-notes",
        "big.txt": "Sizes",
        "refunds.txt": "Refund policy",  # the first heading, not the first markdown one
        "given.md": "Given",
    }
    page = admin_client.get(reverse("admin:knowledge_document_changelist")).content.decode()
    assert "1.5\xa0KB" in page and ">1536<" not in page
