"""Operators and end users: the end-users pages with what is held about each, export, erasure after a confirmation
page, and the recall console answering as a bot would for one user."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from kbsite.models import ApiKey, EndUser, Erasure
from memories.models import Memory, Session
from tests.factories import KnowledgeBaseFactory, MemoryFactory, MessageFactory, SessionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def held():
    """Ann and Ben of one bot, each with a session, a turn and a memory; and a shared memory."""
    kb = KnowledgeBaseFactory(name="notes")
    users = {}
    for name, city in (("ann", "Lisbon"), ("ben", "Oslo")):
        user = EndUser.objects.seen(kb.bot, name)
        MessageFactory(
            session=SessionFactory(kb=kb, end_user=user, external_id=f"{name}-chat"), content=f"I live in {city}."
        )
        MemoryFactory(kb=kb, end_user=user, text=f"{name.title()} lives in {city}.")
        users[name] = user
    MemoryFactory(kb=kb, text="The office manager lives in Porto.")
    return kb, users


def test_the_end_users_list_shows_what_is_held(admin_client, held):
    page = admin_client.get(reverse("admin:kbsite_enduser_changelist")).content.decode()
    assert "ann" in page and "ben" in page
    _, users = held
    change = admin_client.get(reverse("admin:kbsite_enduser_change", args=[users["ann"].pk])).content.decode()
    assert "1 memory" in change and "1 turn" in change and "1 session" in change and "1 sessions" not in change
    # The counts link to the user's rows, and the link filters to them.
    memories = admin_client.get(reverse("admin:memories_memory_changelist"), {"end_user__id__exact": users["ann"].pk})
    assert memories.status_code == 200
    text = memories.content.decode()
    assert "Ann lives in Lisbon." in text and "Ben lives" not in text and "Porto" not in text


def test_an_end_users_page_links_their_turns_and_the_runs_that_read_them(admin_client, api, kb):
    """Issue 42: the job that read Ann's turns into memories counts on her page (it said "0 job runs"), and her
    turns and runs are links listing hers only."""
    import html as html_lib
    import re

    from tests.conftest import run_queued_tasks

    for user, city in (("ann", "Lisbon"), ("ben", "Oslo")):
        turns = [{"external_id": "t1", "role": "user", "content": f"I live in {city} and I work as a nurse."}]
        posted = api.post(
            "/api/v1/kbs/notes/messages/", json={"session_id": f"{user}-chat", "user_id": user, "messages": turns}
        )
        assert posted.status_code == 202, posted.text
    run_queued_tasks()
    ann = EndUser.objects.get(external_id="ann")
    change = admin_client.get(reverse("admin:kbsite_enduser_change", args=[ann.pk])).content.decode()
    links = dict(
        (label, html_lib.unescape(href)) for href, label in re.findall(r'<a href="([^"]+)">(\d+ [a-z ]+)</a>', change)
    )
    assert "1 turn" in links and "1 job run" in links, links
    turns = admin_client.get(links["1 turn"]).content.decode()
    assert "I live in Lisbon" in turns and "Oslo" not in turns
    runs = admin_client.get(links["1 job run"])
    assert runs.status_code == 200  # not a redirect to "?e=1" (an unknown filter)
    assert "unprocessed turns" in runs.content.decode() and "1 job run" in runs.content.decode()
    # An operator of another bot learns nothing of Ann through the filter: no label, no runs.
    from tests.conftest import logged_in, operator_of
    from tests.factories import BotFactory

    stranger = logged_in(operator_of(BotFactory(name="bravo"), username="sam"))
    page = stranger.get(links["1 job run"], follow=True).content.decode()
    assert ">ann<" not in page and "unprocessed turns" not in page


def test_an_operator_issues_a_key_of_one_user_shown_once_and_listed_on_their_page(admin_client, held):
    _, users = held
    response = admin_client.post(
        reverse("admin:kbsite_enduser_changelist"),
        {"action": "issue_key", "_selected_action": [users["ann"].pk]},
        follow=True,
    )
    shown = [str(m) for m in response.context["messages"]]
    assert len(shown) == 1 and shown[0].startswith("New API key of end user ann (shown once): kb_")
    key = ApiKey.objects.get()
    assert key.end_user == users["ann"] and key.bot == users["ann"].bot
    assert ApiKey.hash(shown[0].rsplit(" ", 1)[1]) == key.hashed_key  # shown, never stored
    change = admin_client.get(reverse("admin:kbsite_enduser_change", args=[users["ann"].pk])).content.decode()
    assert f"{key.prefix}…" in change and reverse("admin:kbsite_apikey_change", args=[key.pk]) in change
    other = admin_client.get(reverse("admin:kbsite_enduser_change", args=[users["ben"].pk])).content.decode()
    assert key.prefix not in other


def test_export_downloads_everything_about_one_user(admin_client, held):
    _, users = held
    response = admin_client.get(reverse("admin:kbsite_enduser_export", args=[users["ann"].pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"
    body = b"".join(response.streaming_content).decode()
    lines = [json.loads(line) for line in body.splitlines()]
    assert {line["type"] for line in lines} >= {"export", "user", "session", "turn", "memory"}
    assert "Lisbon" in body and "Oslo" not in body and "Porto" not in body


def test_erase_asks_first_then_erases_with_an_audit_record(admin_client, held):
    _, users = held
    url = reverse("admin:kbsite_enduser_erase", args=[users["ann"].pk])
    confirmation = admin_client.get(url)
    assert confirmation.status_code == 200
    page = confirmation.content.decode()
    assert "1 memories" in page and "1 turns" in page and "Yes, erase ann" in page
    assert EndUser.objects.filter(external_id="ann").exists()  # looking is not erasing
    response = admin_client.post(url, {"confirm": "yes"})
    assert response.status_code == 302
    assert not EndUser.objects.filter(external_id="ann").exists()
    assert not Memory.objects.filter(text__contains="Lisbon").exists()
    assert not Session.objects.filter(external_id="ann-chat").exists()
    assert (
        Memory.objects.filter(text__contains="Oslo").exists() and Memory.objects.filter(text__contains="Porto").exists()
    )
    audit = Erasure.objects.get()
    assert (
        audit.user_id_sha256 == Erasure.digest("ann") and "admin" in audit.erased_by and audit.counts["memories"] == 1
    )


def test_the_plain_delete_is_not_offered(admin_client, held):
    """A delete would leave files behind and keep no audit record: the admin offers erasure instead."""
    _, users = held
    assert admin_client.get(reverse("admin:kbsite_enduser_delete", args=[users["ann"].pk])).status_code == 403
    page = admin_client.get(reverse("admin:kbsite_enduser_changelist")).content.decode()
    assert "delete_selected" not in page


def test_the_recall_console_recalls_for_one_user(admin_client, held):
    kb, _ = held
    url = reverse("admin:kbsite_knowledgebase_recall")

    def recalled(**extra):
        response = admin_client.get(url, {"kb": kb.pk, "query": "who lives where", "k": 10, **extra})
        assert response.status_code == 200
        return response.content.decode()

    for_ann = recalled(user_id="ann")
    assert "Ann lives in Lisbon." in for_ann and "Porto" in for_ann and "Oslo" not in for_ann
    shared = recalled()
    assert "Porto" in shared and "Lisbon" not in shared and "Oslo" not in shared
    assert "user_id is 1-200 characters" in recalled(user_id="no spaces please")


def test_the_recall_console_shows_the_context_block_and_the_answer(admin_client, held):
    kb, _ = held
    ann_fact = Memory.objects.get(text="Ann lives in Lisbon.")
    page = admin_client.get(
        reverse("admin:kbsite_knowledgebase_recall"),
        {"kb": kb.pk, "query": "where does Ann live", "k": 10, "user_id": "ann", "session_id": "chat-1"},
    ).content.decode()
    block = page.split('id="context-block"')[1].split('id="ask-answer"')[0]
    # The block the bot gets for Ann, with its ids, holds her fact and not Ben's.
    assert f"[memory {ann_fact.pk}]" in block and "Ann lives in Lisbon." in block and "Oslo" not in block
    answer = page.split('id="ask-answer"')[1]
    assert "extractive" in answer and "Lisbon" in answer
    assert f'href="{reverse("admin:memories_memory_change", args=[ann_fact.pk])}">m{ann_fact.pk}</a>' in answer


def test_the_recall_console_answers_with_the_llm_and_its_citations(admin_client, held, fake_llm):
    kb, _ = held
    ann_fact = Memory.objects.get(text="Ann lives in Lisbon.")
    fake_llm.reply_json({"answer": "Ann lives in Lisbon.", "citations": [ann_fact.pk, 999999]})
    page = admin_client.get(
        reverse("admin:kbsite_knowledgebase_recall"),
        {"kb": kb.pk, "query": "where does Ann live", "k": 10, "user_id": "ann"},
    ).content.decode()
    answer = page.split('id="ask-answer"')[1]
    assert "(llm)" in answer and f">m{ann_fact.pk}</a> Ann lives in Lisbon." in answer and "999999" not in answer
    assert "<untrusted" in fake_llm.user_prompt()


def test_the_recall_console_shows_an_answer_of_several_lines_line_by_line(admin_client, held, fake_llm):
    """Offline ask quotes each statement on a line of its own (an LLM may answer in lines too): the console keeps the
    lines, escaped, instead of running them together."""
    kb, _ = held
    fake_llm.reply_json({"answer": "(2024-06-02) Ann lives in Lisbon.\n(2024-01-02) <b>Ann</b> lived in Porto.",
                         "citations": []})  # fmt: skip
    page = admin_client.get(
        reverse("admin:kbsite_knowledgebase_recall"),
        {"kb": kb.pk, "query": "where does Ann live", "k": 10, "user_id": "ann"},
    ).content.decode()
    answer = page.split('id="ask-answer"')[1]
    assert "Ann lives in Lisbon.<br>(2024-01-02) &lt;b&gt;Ann&lt;/b&gt; lived in Porto." in answer
