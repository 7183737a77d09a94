"""A memory's admin page tells its story (issue 34, item 5): status on top, what replaced it or what it replaces, the
turns it came from linked, a retired memory read-only with Restore, Retire on a live one, no Delete for operators (a
superuser's says what is lost), and a history page listing the versions and who changed what."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from kbsite.models import EndUser
from memories.models import Memory, Message, ReviewItem, Session
from memories.reviews.records import supersession_reviews
from tests.conftest import logged_in, operator_of
from tests.factories import KnowledgeBaseFactory

pytestmark = pytest.mark.django_db

RESTATED = "superseded by a newer fact (restated: residence)"


@pytest.fixture
def lisbon_porto(kb) -> dict:
    """Alice said she moved to Lisbon, then that she lives in Porto now: the Lisbon memory retired, replaced by
    Porto's, each from its turn, with the review item the supersession makes."""
    alice = EndUser.objects.create(bot=kb.bot, external_id="alice")
    turns = {}
    for session_id, turn_id, text in (
        ("first-chat", "t1", "I moved to Lisbon in May."),
        ("second-chat", "t3", "I live in Porto now."),
    ):
        session = Session.objects.create(kb=kb, external_id=session_id, end_user=alice)
        turns[turn_id] = Message.objects.create(kb=kb, session=session, external_id=turn_id, role="user", content=text)
    lisbon = Memory.objects.create(
        kb=kb, end_user=alice, text="I moved to Lisbon in May.", mode="heuristic", source="chat"
    )
    porto = Memory.objects.create(kb=kb, end_user=alice, text="I live in Porto now.", mode="heuristic", source="chat")
    lisbon.source_messages.add(turns["t1"])
    porto.source_messages.add(turns["t3"])
    lisbon.retire(reason=RESTATED, superseded_by=porto)
    supersession_reviews([(lisbon.pk, porto.pk)], reason=RESTATED)
    return {"kb": kb, "lisbon": lisbon, "porto": porto, "turns": turns}


@pytest.fixture
def olga(kb) -> Client:
    """An operator (staff, in the Operators group) of the KB's bot."""
    return logged_in(operator_of(kb.bot))


def change_url(memory: Memory) -> str:
    return reverse("admin:memories_memory_change", args=[memory.pk])


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_status_is_on_top_of_the_page(olga, lisbon_porto):
    """The retired memory's page says, above its form, that it is retired, when, why, and what replaced it."""
    lisbon = lisbon_porto["lisbon"]
    html = page(olga, change_url(lisbon))
    story = html[html.index('id="memory-story"') : html.index('id="memory_form"')]
    assert "Retired" in story and f"{lisbon.retired_at:%Y-%m-%d %H:%M}" in story and RESTATED in story
    assert "Read-only" in story
    assert "Live" in page(olga, change_url(lisbon_porto["porto"]))


def test_replaced_by_and_replaces_instead_of_supersedes(olga, lisbon_porto):
    """The retired memory says it was replaced by the newer one (and from which turn); the newer says it replaces
    the older; no field is labelled "supersedes" any more; both list the two versions."""
    lisbon, porto = lisbon_porto["lisbon"], lisbon_porto["porto"]
    old = page(olga, change_url(lisbon))
    replaced_by = old[old.index('id="memory-replaced-by"') :].split("</p>")[0]
    assert f"#{porto.pk}</a> “I live in Porto now.” (live)" in replaced_by
    assert reverse("admin:memories_message_change", args=[lisbon_porto["turns"]["t3"].pk]) in replaced_by
    new = page(olga, change_url(porto))
    assert f'Replaces <a href="{change_url(lisbon)}">#{lisbon.pk}</a> “I moved to Lisbon in May.”' in new
    for html in (old, new):
        assert "supersedes" not in html.lower()
        versions = html[html.index('id="memory-versions"') :].split("</table>")[0]
        assert versions.index("Lisbon") < versions.index("Porto")  # oldest first
        assert f"replaced by #{porto.pk}" in versions


def test_came_from_links_to_the_turn(olga, lisbon_porto):
    """'came from' (and the story on top) links each source turn to its page."""
    turn = lisbon_porto["turns"]["t1"]
    url = reverse("admin:memories_message_change", args=[turn.pk])
    html = page(olga, change_url(lisbon_porto["lisbon"]))
    came_from = html[html.index("field-provenance") :]
    assert f'<a href="{url}">first-chat / t1</a>: I moved to Lisbon in May.' in came_from
    assert f'from turn <a href="{url}">first-chat/t1</a>' in html
    assert page(olga, url)  # the operator may open it


def test_a_retired_memory_is_read_only(olga, lisbon_porto):
    """A retired memory's page has no field to edit and no Save; a post to it is refused and changes nothing."""
    lisbon = lisbon_porto["lisbon"]
    html = page(olga, change_url(lisbon))
    assert 'name="text"' not in html and 'name="_save"' not in html
    response = olga.post(change_url(lisbon), {"kb": lisbon.kb_id, "text": "I moved to Faro.", "kind": "fact"})
    assert response.status_code == 403
    lisbon.refresh_from_db()
    assert lisbon.text == "I moved to Lisbon in May." and not lisbon.is_live
    assert Memory.objects.count() == 2


def test_restore_from_the_page(olga, lisbon_porto):
    """Restore makes the retired memory live and editable again; its live replacement is retired in its place,
    and both changes are logged with who."""
    lisbon, porto = lisbon_porto["lisbon"], lisbon_porto["porto"]
    html = page(olga, change_url(lisbon))
    assert 'id="memory-restore"' in html and f"#{porto.pk}, which replaced it, is retired in its place" in html
    assert olga.get(reverse("admin:memories_memory_restore", args=[lisbon.pk])).status_code == 405
    response = olga.post(reverse("admin:memories_memory_restore", args=[lisbon.pk]), follow=True)
    assert response.redirect_chain[-1][0] == change_url(lisbon)
    html = response.content.decode()
    assert f"#{porto.pk}, which had replaced it, is retired" in html
    assert 'name="text"' in html and 'id="memory-retire"' in html  # live: editable, and can be retired
    lisbon.refresh_from_db(), porto.refresh_from_db()
    assert lisbon.is_live and not porto.is_live and porto.superseded_by_id == lisbon.pk
    logged = LogEntry.objects.order_by("pk")
    assert [(e.user.username, e.object_id, e.change_message) for e in logged] == [
        ("olga", str(lisbon.pk), "Restored."),
        ("olga", str(porto.pk), f"Retired (replaced by memory {lisbon.pk}, restored)."),
    ]


def test_retire_from_the_page(olga, lisbon_porto):
    """Retire, with an optional why, retires a live memory with who and why; it stays, read-only."""
    porto = lisbon_porto["porto"]
    response = olga.post(reverse("admin:memories_memory_retire", args=[porto.pk]), {"reason": "she moved again"})
    assert response.status_code == 302
    porto.refresh_from_db()
    assert not porto.is_live and porto.retired_reason == "retired by olga: she moved again"
    assert "retired by olga: she moved again" in page(olga, change_url(porto))


def test_an_operator_cannot_delete(olga, lisbon_porto):
    """An operator has no Delete on the page nor in the list's actions, and a post to /delete/ is refused."""
    lisbon, porto = lisbon_porto["lisbon"], lisbon_porto["porto"]
    assert "deletelink" not in page(olga, change_url(porto))
    assert "delete_selected" not in page(olga, reverse("admin:memories_memory_changelist") + "?status=all")
    delete = reverse("admin:memories_memory_delete", args=[porto.pk])
    assert olga.get(delete).status_code == 403
    assert olga.post(delete, {"post": "yes"}).status_code == 403
    bulk = olga.post(
        reverse("admin:memories_memory_changelist") + "?status=all",
        {"action": "delete_selected", "_selected_action": [lisbon.pk, porto.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert Memory.objects.count() == 2


def test_a_superusers_delete_says_what_is_lost(admin_client, lisbon_porto):
    """A superuser may delete, behind a page saying what is lost: the memory for good, its links to its turns,
    its place among its versions, the review items about it; and that retiring is the way to take it out of use.
    Bulk deletion is gone for everyone."""
    porto, lisbon = lisbon_porto["porto"], lisbon_porto["lisbon"]
    assert "deletelink" in page(admin_client, change_url(porto))
    # Issue 42: a retired memory's page is read-only, Restore its way back, and it offers no red Delete.
    assert "deletelink" not in page(admin_client, change_url(lisbon))
    assert "delete_selected" not in page(admin_client, reverse("admin:memories_memory_changelist"))
    html = page(admin_client, reverse("admin:memories_memory_delete", args=[porto.pk]))
    losses = html[html.index('id="memory-delete-losses"') :]
    for said in (
        "retired, never deleted",
        "erases it for good",
        "links to the 1 turn(s) it came from",
        "its 1 other version(s)",
        "1 review item(s) about it",
        "Retire it instead",
    ):
        assert said in losses, said
    admin_client.post(reverse("admin:memories_memory_delete", args=[porto.pk]), {"post": "yes"})
    assert not Memory.objects.filter(pk=porto.pk).exists() and not ReviewItem.objects.exists()


def test_history_lists_the_versions_and_who_changed_what(olga, lisbon_porto):
    """HISTORY shows every version (when learned, how, from which turn, retired when and why) and what people did
    to any of them in the admin: an edit (a new version), a restore."""
    lisbon, porto = lisbon_porto["lisbon"], lisbon_porto["porto"]
    olga.post(reverse("admin:memories_memory_restore", args=[lisbon.pk]))
    form = olga.get(change_url(lisbon)).context["adminform"].form
    data = {name: ("" if form[name].value() is None else form[name].value()) for name in form.fields}
    data.update(text="I moved to Lisbon in May 2024.", entities="", topics="")
    olga.post(change_url(lisbon), data)
    edited = Memory.objects.live().get(end_user__external_id="alice")

    html = page(olga, reverse("admin:memories_memory_history", args=[edited.pk]))
    assert "doesn’t have a change history" not in html
    versions = html[html.index('id="memory-versions"') :].split("</table>")[0]
    for memory in (lisbon, porto, edited):
        assert f"#{memory.pk}" in versions
    assert "I moved to Lisbon in May." in versions and "I live in Porto now." in versions
    assert "I moved to Lisbon in May 2024." in versions and "(edited)" in versions
    assert "extracted offline, source chat" in versions and "first-chat/t1" in versions
    changes = html[html.index('id="change-history"') :]
    for said in ("Restored.", "Changed Text", f"New version of #{lisbon.pk} (its text edited).", "olga"):
        assert said in changes, said


def test_another_bots_memory_cannot_be_restored_or_retired(olga):
    """The page's buttons act only on the operator's own bots' memories."""
    other = Memory.objects.create(kb=KnowledgeBaseFactory(), text="Bob likes tea.")
    assert olga.post(reverse("admin:memories_memory_retire", args=[other.pk])).status_code == 404
    other.retire(reason="wrong")
    assert olga.post(reverse("admin:memories_memory_restore", args=[other.pk])).status_code == 404
    other.refresh_from_db()
    assert not other.is_live


def test_the_list_says_where_each_memory_came_from(olga, lisbon_porto):
    """Issue 42: the memory list has a "came from" column: each memory's source turn (session / turn), linked to
    the turn's page, or how it was added."""
    lisbon, turns = lisbon_porto["lisbon"], lisbon_porto["turns"]
    Memory.objects.create(kb=lisbon.kb, text="The office opens at nine.", mode="heuristic", source="admin:olga")
    html = page(olga, reverse("admin:memories_memory_changelist") + "?status=all")
    assert "Came from" in html
    for turn, label in ((turns["t1"], "first-chat / t1"), (turns["t3"], "second-chat / t3")):
        assert f'<a href="{reverse("admin:memories_message_change", args=[turn.pk])}">{label}</a>' in html
    assert "admin:olga" in html
