"""The job runs of a bot's knowledge bases through the API: listed with what they did, filtered, and a failed one
retried by the bot (the admin's retry, without an operator)."""

from __future__ import annotations

from kbsite.models import JobRun
from memories.models import Memory
from tests.conftest import run_queued_tasks


def test_a_failed_extraction_is_listed_and_retried_through_the_api(api, other_api, kb, fake_llm):
    fake_llm.reply_status(500).reply_status(500).reply_status(500)  # the LLM is down for every try of the call
    body = {"session_id": "s", "messages": [{"external_id": "1", "content": "I keep bees on my roof in Porto."}]}
    assert api.post("/api/v1/kbs/notes/messages/", json=body).status_code == 202
    run_queued_tasks()
    failed = api.get("/api/v1/jobs/", params={"status": "failed", "kb": "notes"}).json()["results"]
    assert len(failed) == 1 and failed[0]["kind"] == "ingest_messages" and "500" in failed[0]["error"]
    assert failed[0]["kb"] == "notes" and failed[0]["retry_at"]  # retried by itself later, backing off
    job_id = failed[0]["id"]
    assert other_api.get(f"/api/v1/jobs/{job_id}/").status_code == 404
    assert other_api.post(f"/api/v1/jobs/{job_id}/retry/").status_code == 404

    fake_llm.reply_json({"add": [{"text": "The user keeps bees in Porto.", "kind": "fact"}], "supersede": []})
    response = api.post(f"/api/v1/jobs/{job_id}/retry/")
    assert response.status_code == 202, response.text
    assert response.json()["retried"] == job_id and response.json()["job"]["status"] == "queued"
    run_queued_tasks()
    assert Memory.objects.filter(text="The user keeps bees in Porto.").exists()
    assert api.get(f"/api/v1/jobs/{job_id}/").json()["status"] == "retried"
    assert api.get("/api/v1/kbs/notes/").json()["failed_jobs"] == 0
    again = api.post(f"/api/v1/jobs/{job_id}/retry/")
    assert again.status_code == 409 and "this one is retried" in again.json()["detail"]


def test_jobs_are_listed_newest_first_and_filtered(api, kb):
    api.post("/api/v1/kbs/notes/consolidate/")
    api.post("/api/v1/kbs/notes/ingest/", json={"text": "Dana keeps three beehives in Porto."})
    kinds = [j["kind"] for j in api.get("/api/v1/jobs/").json()["results"]]
    assert kinds == ["ingest_text", "consolidate"]
    assert [j["kind"] for j in api.get("/api/v1/jobs/", params={"kind": "consolidate"}).json()["results"]] == [
        "consolidate"
    ]
    assert api.get("/api/v1/jobs/", params={"status": "sideways"}).status_code == 400
    assert api.get("/api/v1/jobs/", params={"kb": "elsewhere"}).json()["count"] == 0
    assert JobRun.objects.count() == 2
