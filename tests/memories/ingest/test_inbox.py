"""Inbox folders: settled files are extracted, ingested and moved to processed/, or to failed/ with the reason."""

from __future__ import annotations

import os
import time

import pytest

from kbsite.jobs import job_retry
from kbsite.models import JobRun
from knowledge.extractors import ExtractionFailed, extract_text
from memories import ingest
from memories.models import Memory
from tests.conftest import run_queued_tasks
from tests.documents import sample_files


def drop(kb, name: str, data: bytes, age: float = 60.0):
    path = kb.inbox_dir / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    past = time.time() - age
    os.utime(path, (past, past))
    return path


@pytest.mark.parametrize("name", sorted(sample_files()))
def test_each_supported_type_is_extracted(name):
    """txt, md, json, csv, html, pdf and docx all yield their text."""
    text = extract_text(name, sample_files()[name])
    assert "Dana" in text and "Porto" in text
    assert "var x" not in text


def test_inbox_file_becomes_memories_and_moves_to_processed(kb):
    """A settled file is claimed, ingested with provenance, and moved to processed/."""
    drop(kb, "beekeeping.md", b"# Bees\n\nDana keeps three beehives in Porto and sells honey at the market.")
    assert ingest.inbox_scan() == 1
    run_queued_tasks()
    memory = Memory.objects.get()
    assert "Dana keeps three beehives" in memory.text
    assert memory.source == "inbox:beekeeping.md" and memory.source_file == "beekeeping.md"
    assert [p.name for p in kb.processed_dir.iterdir()] == ["beekeeping.md"]
    assert [p.name for p in kb.inbox_dir.iterdir() if not p.name.startswith(".")] == []
    assert JobRun.objects.get(kind="ingest_file").status == "succeeded"


def test_a_file_in_a_users_folder_is_theirs(kb, fake_llm):
    """inbox/users/<user_id>/ holds an end user's files: their facts are theirs, and the file keeps its place in
    processed/ and failed/ (a retry finds it there)."""
    drop(kb, "users/tg:ann/diet.txt", b"Ann is allergic to peanuts and eats no meat.")
    drop(kb, "users/tg:ann/notes.txt", b"Ann grows tomatoes on her balcony in Porto.")
    fake_llm.reply_json(
        {"add": [{"text": "Ann is allergic to peanuts.", "kind": "fact"}], "supersede": [], "edges": []}
    )
    fake_llm.reply_status(500).reply_status(500).reply_status(500)  # notes.txt: the LLM is down
    assert ingest.inbox_scan() == 2
    run_queued_tasks()
    memory = Memory.objects.get()
    assert memory.end_user.external_id == "tg:ann" and memory.source_file == "diet.txt"
    assert (kb.processed_dir / "users" / "tg:ann" / "diet.txt").exists()
    assert (kb.failed_dir / "users" / "tg:ann" / "notes.txt.error.txt").exists()
    failed = JobRun.objects.get(kind="ingest_file", status="failed")
    fake_llm.reply_json({"add": [{"text": "Ann grows tomatoes.", "kind": "fact"}], "supersede": [], "edges": []})
    assert job_retry(job=failed) is not None
    run_queued_tasks()
    assert Memory.objects.get(text="Ann grows tomatoes.").end_user.external_id == "tg:ann"
    assert (kb.processed_dir / "users" / "tg:ann" / "notes.txt").exists()
    assert not list((kb.failed_dir / "users" / "tg:ann").iterdir())


def test_a_users_folder_that_names_no_user_id_is_parked(kb):
    drop(kb, "users/not a user/diary.txt", b"Somebody keeps bees in Porto.")
    assert ingest.inbox_scan() == 1
    run_queued_tasks()
    assert not Memory.objects.exists()
    assert "does not name a user_id" in (kb.failed_dir / "users" / "not a user" / "diary.txt.error.txt").read_text()


def test_a_file_still_being_written_waits(kb):
    """A file modified within the settle time is left alone until it stops changing."""
    drop(kb, "growing.txt", b"Dana keeps bees.", age=0)
    assert ingest.inbox_scan() == 0
    assert (kb.inbox_dir / "growing.txt").exists()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "could not read .pdf"),
        ("archive.xyz", b"whatever", "unsupported file type"),
        ("empty.txt", b"", "empty"),
        ("photo.png", b"\x89PNG\r\n\x1a\n fake", "unsupported without a vision model"),
        ("voice.mp3", b"ID3 fake", "unsupported without an audio model"),
        ("clip.mp4", b"fake", "video is unsupported"),
        ("nul.txt", b"Alice likes tea.\x00 Bob too.", "binary, not text (it holds NUL bytes)"),
        ("blob.txt", bytes(range(256)) * 4, "binary, not text"),  # even length: not read as UTF-16 without a BOM
        ("nul.json", b'{"note": "a\\u0000b"}', "holds a NUL character"),
    ],
)
def test_a_broken_file_goes_to_failed_with_its_reason(kb, name, data, reason):
    """A file that cannot be read lands in failed/ with <name>.error.txt saying why, and the run is failed."""
    drop(kb, name, data)
    ingest.inbox_scan()
    run_queued_tasks()
    assert (kb.failed_dir / name).exists()
    assert reason in (kb.failed_dir / f"{name}.error.txt").read_text()
    run = JobRun.objects.get(kind="ingest_file")
    assert run.status == "failed" and reason in run.error


def test_llm_failure_parks_the_file_and_retry_processes_it(kb, fake_llm):
    """When the model keeps failing the file goes to failed/; an operator retry moves it back and ingests it."""
    for _ in range(3):
        fake_llm.reply_status(500)
    drop(kb, "notes.txt", b"Dana keeps three beehives in Porto.")
    ingest.inbox_scan()
    run_queued_tasks()
    failed = JobRun.objects.get(kind="ingest_file", status="failed")
    assert (kb.failed_dir / "notes.txt").exists() and "500" in (kb.failed_dir / "notes.txt.error.txt").read_text()
    fake_llm.reply_json({"add": [{"text": "Dana keeps three beehives in Porto."}], "supersede": [], "edges": []})
    assert job_retry(job=failed) is not None
    run_queued_tasks()
    assert Memory.objects.get().text == "Dana keeps three beehives in Porto."
    assert (kb.processed_dir / "notes.txt").exists() and not (kb.failed_dir / "notes.txt").exists()


def test_unsupported_type_error_names_the_supported_ones():
    """The reason for an unknown type lists what is supported."""
    with pytest.raises(ExtractionFailed, match=r"supported: .*\.docx.*\.pdf"):
        extract_text("x.exe", b"MZ")


def test_two_scanners_claim_a_file_once(kb):
    """Claiming is an atomic rename, so a second scan does not queue the same file again."""
    drop(kb, "once.txt", b"Dana keeps three beehives in Porto.")
    assert ingest.inbox_scan() == 1
    assert ingest.inbox_scan() == 0
    assert JobRun.objects.filter(kind="ingest_file").count() == 1


def _docx_bomb(unpacked_bytes: int) -> bytes:
    """A .docx whose document.xml unpacks to ``unpacked_bytes`` (a few kilobytes on disk)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:p><w:t>a</w:t></w:p>" * (unpacked_bytes // 22))
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("huge.txt", b"Alice keeps bees. " * 1200, "bytes; the limit is 16,384 (MAX_UPLOAD_BYTES)"),
        ("long.txt", b"Alice keeps bees. " * 200, "its text has 3,599 characters; the limit is 1,000"),
        ("bomb.docx", _docx_bomb(5_000_000), "it unpacks to about 261,363 characters; the limit is 1,000"),
    ],
)
def test_files_past_the_limits_are_parked_with_the_reason_and_not_retried(kb, settings, name, data, reason):
    """An inbox file over the upload limit, or whose text is (or unpacks to) more than MAX_INGEST_TEXT_CHARS, is
    refused before it holds a worker: parked in failed/ with the reason, its run failed for good (a retry by
    itself could not help)."""
    settings.MAX_UPLOAD_BYTES, settings.MAX_INGEST_TEXT_CHARS = 16_384, 1000
    drop(kb, name, data)
    ingest.inbox_scan()
    run_queued_tasks()
    assert reason in (kb.failed_dir / f"{name}.error.txt").read_text()
    run = JobRun.objects.get(kind="ingest_file")
    assert run.status == "failed" and reason in run.error and run.retry_at is None


def test_a_retried_file_resumes_where_it_stopped(kb, fake_llm):
    """A long file whose ingest failed part-way (the LLM went down) is not extracted from its first segment again
    when retried: the retry goes on from the segments already applied, under the same item."""
    paragraphs = [f"Paragraph {i}: Dana keeps {i} beehives in Porto and sells the honey. " * 30 for i in range(6)]
    drop(kb, "long.txt", "\n\n".join(paragraphs).encode())
    fake_llm.reply_json({"add": [{"text": "Dana keeps beehives in Porto.", "source_turns": ["@all"]}]})
    for _ in range(3):
        fake_llm.reply_status(500)
    ingest.inbox_scan()
    run_queued_tasks()
    failed = JobRun.objects.get(kind="ingest_file")
    item = failed.object
    assert failed.status == "failed" and 0 < item.progress < 6 and (kb.failed_dir / "long.txt").exists()
    done_before = item.progress
    calls_before = fake_llm.calls
    for _ in range(6):  # enough for the rest, however many calls its segments are grouped into
        fake_llm.reply_json({"add": [{"text": "Dana sells honey.", "source_turns": ["@all"]}]})
    fake_llm.allow_unused()
    job_retry(job=failed)
    run_queued_tasks()
    item.refresh_from_db()
    assert item.status == "done" and item.progress > done_before
    assert "Paragraph 0:" not in fake_llm.user_prompt(calls_before)  # resumed, not started again
    assert JobRun.objects.filter(kind="ingest_file", status="succeeded").get().object == item
    assert (kb.processed_dir / "long.txt").exists()
