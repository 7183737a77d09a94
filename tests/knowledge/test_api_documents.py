"""The documents API: uploads of each type, JSON text, markdown write-through, search, delete, refusals."""

from __future__ import annotations

import importlib

import pytest

from kbsite.models import JobRun
from knowledge import files
from knowledge.extractors import ExtractionFailed, extract_text
from knowledge.models import Document
from tests.conftest import run_queued_tasks
from tests.documents import sample_files

DOCS = "/api/v1/kbs/notes/documents/"


def _upload(api, *named: tuple[str, bytes], **fields):
    return api.post(DOCS, files=[("file", (name, data)) for name, data in named], data=fields)


def test_each_supported_type_is_uploaded_extracted_and_indexed(api, kb):
    """pdf, docx, html, txt, md, csv and json uploads (several in one request) are extracted and chunked by a job."""
    samples = sample_files()
    response = _upload(api, *samples.items())
    assert response.status_code == 202, response.text
    accepted = response.json()["documents"]
    assert len(accepted) == len(samples) and {d["status"] for d in accepted} == {"pending"}
    run_queued_tasks()
    listing = api.get(DOCS).json()["results"]
    assert {d["source"]: d["status"] for d in listing} == dict.fromkeys(samples, "done")
    for doc in listing:
        assert doc["chunk_count"] >= 1 and doc["doc_type"] == "upload"
        content = api.get(f"{DOCS}{doc['slug']}/").json()["content"]
        assert "Porto" in content or "beehives" in content.lower(), (doc["source"], content)


def test_an_upload_named_with_underscores_gets_a_slug_every_document_route_takes(api, kb):
    """A file name's underscores and spaces become hyphens: a slug holds only letters, digits and hyphens, and the
    document is read, searched and listed by it."""
    response = _upload(api, ("Opening_hours and holidays.md", b"# Opening hours\n\nWe open at nine on weekdays.\n"))
    assert response.status_code == 202, response.text
    slug = response.json()["documents"][0]["slug"]
    assert slug == "opening-hours-and-holidays"
    files.slug_check(slug)
    run_queued_tasks()
    assert "nine" in api.get(f"{DOCS}{slug}/").json()["content"]
    found = api.post("/api/v1/tools/knowledge_search/", json={"arguments": {"query": "weekday opening", "kb": "notes"}})
    assert found.json()["result"]["results"][0]["slug"] == slug
    read = api.post("/api/v1/tools/knowledge_read/", json={"arguments": {"slug": slug, "kb": "notes"}})
    assert read.status_code == 200 and "nine" in read.json()["result"]["content"]


def test_unsupported_empty_and_oversized_uploads_are_refused_with_a_message(api, kb, settings):
    """Unknown types and empty files get 400 naming the problem; nothing of a refused request is stored."""
    response = _upload(api, ("good.txt", b"fine text here"), ("tool.exe", b"MZ\x90\x00"))
    assert response.status_code == 400
    assert "unsupported file type '.exe'" in response.json()["detail"] and ".pdf" in response.json()["detail"]
    response = _upload(api, ("empty.txt", b""))
    assert response.status_code == 400 and "empty" in response.json()["detail"]
    settings.MAX_UPLOAD_BYTES = 4096
    response = _upload(api, ("big.txt", b"word " * 2000))
    assert response.status_code == 413 and "limit" in response.json()["detail"]
    assert not Document.objects.exists()
    assert not (kb.folder / "uploads").exists() or not any((kb.folder / "uploads").iterdir())


def test_a_broken_upload_fails_visibly_and_can_be_reindexed(api, kb):
    """A file that cannot be extracted marks the document failed with the reason; re-index retries it."""
    response = _upload(api, ("broken.pdf", b"%PDF-1.4 this is not really a pdf"))
    slug = response.json()["documents"][0]["slug"]
    run_queued_tasks()
    doc = api.get(f"{DOCS}{slug}/").json()
    assert doc["status"] == "failed" and doc["error"]
    stored = kb.folder / Document.objects.get(slug=slug).metadata["file"]
    assert stored.is_file()  # the input is kept for a retry
    response = api.post(f"{DOCS}{slug}/reindex/")
    assert response.status_code == 202
    assert api.get(f"{DOCS}{slug}/").json()["status"] == "pending"


def test_json_text_document_is_indexed_and_searchable_with_highlights(api, kb):
    """JSON content becomes a text document; search returns it with the matching words highlighted."""
    response = api.post(
        DOCS,
        json={"title": "Release process", "content": "Releases are cut on Tuesdays after the staging soak test."},
    )
    assert response.status_code == 202, response.text
    run_queued_tasks()
    response = api.post(f"{DOCS}search/", json={"query": "when are releases cut?", "limit": 3})
    assert response.status_code == 200, response.text
    (hit,) = response.json()["results"]
    assert hit["title"] == "Release process" and hit["doc_type"] == "text"
    assert "**Releases**" in hit["snippet"] and set(hit["signals"]) == {"fts", "vector"}


def test_documents_say_their_language_and_filter_by_it(api, kb):
    """Each document is told its language as it is indexed; the list says it and narrows to one language."""
    for title, content in (
        ("Horario", "Abrimos de lunes a viernes de nueve a seis, y los sábados por la mañana hasta las dos."),
        ("Opening hours", "We are open Monday to Friday from nine to six, and on Saturday mornings until two."),
    ):
        assert api.post(DOCS, json={"title": title, "content": content}).status_code == 202
    run_queued_tasks()
    listed = api.get(DOCS, params={"language": "es"}).json()["results"]
    assert [(d["title"], d["language"]) for d in listed] == [("Horario", "es")]
    assert [d["title"] for d in api.get(DOCS, params={"language": "en"}).json()["results"]] == ["Opening hours"]
    response = api.get(DOCS, params={"language": "spanish"})
    assert response.status_code == 400 and "language" in response.json(), response.text


def test_markdown_write_through_the_api(api, kb):
    """PUT writes the markdown file and the index together; GET, list and delete see the same document."""
    response = api.request("PUT", f"{DOCS}matrix-tips/", json={"content": "# Matrix tips\n\nUse a bridge bot.\n"})
    assert response.status_code == 201, response.text
    assert response.json()["title"] == "Matrix tips" and response.json()["chunk_count"] == 1
    path = files.document_path(kb, "matrix-tips")
    assert path.read_text() == "# Matrix tips\n\nUse a bridge bot.\n"
    response = api.request("PUT", f"{DOCS}matrix-tips/", json={"content": "# Matrix tips\n\nUse two bridges.\n"})
    assert response.status_code == 200
    assert path.read_text() == api.get(f"{DOCS}matrix-tips/").json()["content"] == "# Matrix tips\n\nUse two bridges.\n"
    assert api.delete(f"{DOCS}matrix-tips/").status_code == 204
    assert not path.exists()
    assert api.get(f"{DOCS}matrix-tips/").status_code == 404
    assert api.post(f"{DOCS}search/", json={"query": "bridges"}).json()["results"] == []


@pytest.mark.parametrize("slug", ["UPPER", "a", "-x", "under_score", "dot.md", "%2E%2E", "..%2Fescape", "x" * 65])
def test_slug_and_path_attacks_are_refused(api, kb, tmp_path, slug):
    """Bad slugs and encoded traversal get a 4xx and never touch the disk."""
    before = sorted(tmp_path.rglob("*"))
    response = api.request("PUT", f"{DOCS}{slug}/", json={"content": "# pwned\n"})
    assert response.status_code in (400, 404), response.text
    assert sorted(tmp_path.rglob("*")) == before


def test_markdown_over_64kb_is_refused(api, kb):
    """The 64 KB cap for bot-written markdown answers 400 with the limit in the message."""
    response = api.request("PUT", f"{DOCS}huge/", json={"content": "# Huge\n" + "x" * 65536})
    assert response.status_code == 400 and "65536" in response.json()["detail"]
    assert not (kb.knowledge_dir / "huge.md").exists()


def test_search_parameters_are_validated(api, kb):
    """limit is 1-50 and doc_types must be known types."""
    for body in ({"query": "x", "limit": 0}, {"query": "x", "limit": 51}, {"query": "x", "doc_types": ["video"]}, {}):
        assert api.post(f"{DOCS}search/", json=body).status_code == 400


def test_search_filters_by_type_and_namespace(api, kb):
    """doc_types and namespaces narrow the search."""
    api.request("PUT", f"{DOCS}garden/", json={"content": "# Garden\n\nTomatoes need full sun.\n"})
    api.post(DOCS, json={"content": "Tomatoes were planted in May.", "namespace": "journal"})
    run_queued_tasks()
    search = f"{DOCS}search/"
    assert {h["doc_type"] for h in api.post(search, json={"query": "tomatoes"}).json()["results"]} == {
        "markdown",
        "text",
    }
    assert [
        h["slug"] for h in api.post(search, json={"query": "tomatoes", "doc_types": ["markdown"]}).json()["results"]
    ] == ["garden"]
    assert [
        h["namespace"]
        for h in api.post(search, json={"query": "tomatoes", "namespaces": ["journal"]}).json()["results"]
    ] == ["journal"]


def test_documents_of_another_bot_are_invisible(api, other_api, kb):
    """Another bot's key gets 404 for this bot's KB documents, whatever the call."""
    api.request("PUT", f"{DOCS}private/", json={"content": "# Private\n\nonly for alpha\n"})
    for method, path, kwargs in [
        ("GET", DOCS, {}),
        ("GET", f"{DOCS}private/", {}),
        ("PUT", f"{DOCS}private/", {"json": {"content": "# taken over\n"}}),
        ("DELETE", f"{DOCS}private/", {}),
        ("POST", f"{DOCS}search/", {"json": {"query": "alpha"}}),
    ]:
        assert other_api.request(method, path, **kwargs).status_code == 404
    assert files.document_path(kb, "private").read_text() == "# Private\n\nonly for alpha\n"


def test_malformed_json_is_a_400(api, kb):
    """A body that is not JSON gets a clear 400, not a 500."""
    response = api.post(DOCS, data="{not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "JSON" in response.json()["detail"]


def test_uploaded_document_facts_feed_recall_citing_their_chunk(api, kb):
    """An upload's facts are extracted into memories whose sources name the document and chunk; recall finds them."""
    text = b"Dana keeps three beehives in Porto.\n\nThe honey harvest happens every August."
    slug = _upload(api, ("bees.txt", text)).json()["documents"][0]["slug"]
    run_queued_tasks()
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": "When is the honey harvest?", "k": 3})
    assert response.status_code == 200, response.text
    top = response.json()["results"][0]
    assert "August" in top["text"]
    assert top["sources"] == [{"type": "document", "document": slug, "chunk": 0}]
    count = api.get("/api/v1/kbs/notes/").json()["memory_count"]
    assert api.post(f"{DOCS}{slug}/reindex/").status_code == 202
    run_queued_tasks()  # re-indexing does not extract the same facts again, and keeps their provenance
    assert api.get("/api/v1/kbs/notes/").json()["memory_count"] == count
    response = api.post("/api/v1/kbs/notes/recall/", json={"query": "When is the honey harvest?", "k": 3})
    assert response.json()["results"][0]["sources"] == [{"type": "document", "document": slug, "chunk": 0}]


def test_an_unreachable_embedding_endpoint_is_a_503_and_changes_nothing(api, kb, settings):
    """With a remote embedding backend down, a write-through answers 503 and leaves no file or document."""
    from kbsite.ai import embeddings

    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    settings.LLM_TIMEOUT_SECONDS = 2
    embeddings.get_embedder.cache_clear()
    try:
        response = api.request("PUT", f"{DOCS}faq/", json={"content": "# FAQ\n\nOpen 9 to 5.\n"})
    finally:
        embeddings.get_embedder.cache_clear()
    assert response.status_code == 503 and "embedding backend is unavailable" in response.json()["detail"]
    assert not (kb.knowledge_dir / "faq.md").exists()
    assert not Document.objects.exists()


def test_an_upload_whose_text_cannot_be_stored_fails_visibly(api, kb):
    """A .txt upload holding a NUL byte is marked failed with the reason (not left processing), and its job too."""
    slug = _upload(api, ("nul.txt", b"Alice likes tea.\x00")).json()["documents"][0]["slug"]
    run_queued_tasks()
    document = api.get(f"{DOCS}{slug}/").json()
    assert document["status"] == "failed" and "NUL bytes" in document["error"]
    assert JobRun.objects.get(kind="document").status == "failed"


def test_utf16_text_is_read_when_the_file_says_so():
    """A UTF-16 file with its byte-order mark is read as UTF-16; without one, bytes are never guessed to be UTF-16."""
    assert extract_text("notes.txt", "Ação concluída".encode("utf-16")) == "Ação concluída"
    with pytest.raises(ExtractionFailed, match="binary"):
        extract_text("notes.txt", "Ação".encode("utf-16-le"))  # no mark: its NUL bytes say binary


def test_uploads_stored_with_underscored_slugs_are_given_hyphens_keeping_their_file(kb):
    """The migration for uploads stored before: each underscored slug becomes the hyphened one, numbered when taken."""
    from django.apps import apps

    hyphenate = importlib.import_module("knowledge.migrations.0007_upload_slugs").hyphenate
    meta = {"file": "uploads/opening_hours.md"}
    old = Document.objects.create(kb=kb, slug="opening_hours", title="Hours", doc_type="upload", metadata=meta)
    Document.objects.create(kb=kb, slug="price-list", title="Prices", doc_type="upload")
    clash = Document.objects.create(kb=kb, slug="price_list", title="Prices again", doc_type="upload")
    hyphenate(apps, None)
    old.refresh_from_db(), clash.refresh_from_db()
    assert (old.slug, old.metadata["file"]) == ("opening-hours", "uploads/opening_hours.md")
    assert clash.slug == "price-list-2"
