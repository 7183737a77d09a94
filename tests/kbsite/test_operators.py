"""Per-bot operator access in the admin (issue 20): an operator of bot alpha sees none of bot bravo's data on any
admin page (list, change, search, filters, actions, autocompletes, the recall console, the upload page, the
dashboard); a superuser sees both. Every row of bravo's carries the word 'bravo', so a page that leaks one shows it.
"""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import CharField, TextField
from django.test import Client, RequestFactory
from django.urls import reverse

from kbsite.keys import key_issue
from kbsite.models import ApiKey, Bot, EndUser, Erasure, JobRun, KnowledgeBase, WebhookDelivery, WebhookEndpoint
from kbsite.operators import OPERATED_APPS, OperatedAdmin, bot_path
from knowledge.models import Chunk, Document
from memories.models import Edge, Entity, IngestItem, Insight, Memory, Message, ReviewItem, Session
from memories.services import memory_retire
from tests.conftest import logged_in, operator_of


def bot_data(name: str) -> dict:
    """One row of every kind of bot data, each naming the bot."""
    bot = Bot.objects.create(name=name, description=f"{name} bot")
    key_issue(bot, name=f"{name}-key")
    kb = KnowledgeBase.objects.create(bot=bot, name=f"{name}-kb", always_on=True)
    user = EndUser.objects.create(bot=bot, external_id=f"{name}-user")
    session = Session.objects.create(kb=kb, external_id=f"{name}-session", end_user=user)
    Message.objects.create(kb=kb, session=session, external_id=f"{name}-msg", role="user", content=f"{name} says hi")
    memory = Memory.objects.create(kb=kb, end_user=user, text=f"The {name} user likes tea.", entities=[name])
    insight = Insight.objects.create(kb=kb, text=f"The {name} user is a tea person.")
    insight.memories.add(memory)
    src = Entity.objects.create(kb=kb, name=f"{name}-src", display_name=f"{name} src")
    dst = Entity.objects.create(kb=kb, name=f"{name}-dst", display_name=f"{name} dst")
    Edge.objects.create(kb=kb, src=src, dst=dst, relation="likes", memory=memory)
    document = Document.objects.create(kb=kb, slug=f"{name}-doc", title=f"{name} doc", content=f"# {name} doc")
    Chunk.objects.create(kb=kb, document=document, ordinal=0, text=f"{name} chunk")
    IngestItem.objects.create(kb=kb, kind="text", source=f"{name}-source", text=f"{name} text")
    JobRun.objects.create(kb=kb, kind=JobRun.Kind.INGEST_TEXT, target=f"{name}-target", status=JobRun.Status.FAILED)
    Erasure.objects.create(bot=bot, user_id_sha256=f"{name}-sha", erased_by=f"{name} operator")
    newer = Memory.objects.create(kb=kb, end_user=user, text=f"The {name} user likes coffee now.", entities=[name])
    ReviewItem.objects.create(kb=kb, end_user=user, kind="conflict", older=memory, newer=newer, attribute="likes tea")
    endpoint = WebhookEndpoint.objects.create(bot=bot, url=f"https://{name}.example/hook", events=["memory.created"])
    WebhookDelivery.objects.create(bot=bot, endpoint=endpoint, event_id=f"evt_{name}", event_type="memory.created")
    return {"bot": bot, "kb": kb, "user": user, "memory": memory, "document": document}


@pytest.fixture
def two_bots(db):
    return bot_data("alpha"), bot_data("bravo")


@pytest.fixture
def operator(two_bots) -> Client:
    """A staff user in the Operators group who operates bot alpha."""
    return logged_in(operator_of(two_bots[0]["bot"]))


# Every admin of bot data, with the models whose rows it lists.
OPERATED_MODELS = [
    Bot,
    ApiKey,
    KnowledgeBase,
    EndUser,
    Erasure,
    JobRun,
    Session,
    Message,
    IngestItem,
    Memory,
    Insight,
    Entity,
    Edge,
    Document,
    Chunk,
    ReviewItem,
    WebhookEndpoint,
    WebhookDelivery,
]


def url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_admin_of_bot_data_is_limited_to_the_operators_bots():
    admins = {m for m, a in admin.site._registry.items() if m._meta.app_label in OPERATED_APPS}
    assert admins == set(OPERATED_MODELS)
    for model in OPERATED_MODELS:
        assert isinstance(admin.site._registry[model], OperatedAdmin), model


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_an_operator_lists_searches_and_filters_only_their_bots_rows(two_bots, operator, client, model):
    page = operator.get(url(model, "changelist"), {"status": "all"} if model is Memory else {})
    assert page.status_code == 200
    text = page.content.decode()
    assert "alpha" in text and "bravo" not in text  # rows, filter choices, everything
    searched = operator.get(url(model, "changelist"), {"q": "bravo", **({"status": "all"} if model is Memory else {})})
    assert searched.context["cl"].result_count == 0

    superuser = User.objects.create_superuser("root", password="x")
    client.force_login(superuser)
    both = client.get(url(model, "changelist"), {"status": "all"} if model is Memory else {}).content.decode()
    assert "alpha" in both and "bravo" in both


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_an_operator_cannot_open_another_bots_row(two_bots, operator, model):
    alpha, bravo = two_bots
    field = model._meta.pk.name
    mine = model.objects.filter(pk__in=_rows_of(model, alpha["bot"])).values_list(field, flat=True).first()
    theirs = model.objects.filter(pk__in=_rows_of(model, bravo["bot"])).values_list(field, flat=True).first()
    assert operator.get(url(model, "change", mine)).status_code == 200
    # Django's answer to a row that is not there for this user: back to the index, "doesn't exist".
    response = operator.get(url(model, "change", theirs))
    assert response.status_code == 302 and response["Location"] == reverse("admin:index")
    assert operator.get(url(model, "history", theirs)).status_code == 302
    assert operator.get(url(model, "delete", theirs)).status_code in (302, 403)


def _rows_of(model, bot):
    return model.objects.filter(**{bot_path(model): bot.pk}).values("pk")


def test_actions_touch_only_the_operators_rows(two_bots, operator):
    alpha, bravo = two_bots
    response = operator.post(
        url(Memory, "changelist"),
        {"action": "retire_memories", "_selected_action": [alpha["memory"].pk, bravo["memory"].pk]},
    )
    assert response.status_code == 302
    alpha["memory"].refresh_from_db()
    bravo["memory"].refresh_from_db()
    assert alpha["memory"].retired_at is not None and bravo["memory"].retired_at is None

    operator.post(
        url(KnowledgeBase, "changelist"),
        {"action": "consolidate_now", "_selected_action": [alpha["kb"].pk, bravo["kb"].pk]},
    )
    assert not JobRun.objects.filter(kb=bravo["kb"], kind=JobRun.Kind.CONSOLIDATE).exists()
    assert JobRun.objects.filter(kb=alpha["kb"], kind=JobRun.Kind.CONSOLIDATE).exists()


def test_forms_offer_only_the_operators_kbs_and_users(two_bots, operator):
    alpha, bravo = two_bots
    page = operator.get(url(KnowledgeBase, "add")).content.decode()
    assert 'data-field-name="bot"' in page and "bravo" not in page  # the bot is an autocomplete (below)
    response = operator.post(url(KnowledgeBase, "add"), {"bot": bravo["bot"].pk, "name": "planted"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    # Autocompletes answer from the operator's rows only.
    for field, model in (("kb", Memory), ("end_user", Memory), ("src", Edge), ("bot", KnowledgeBase)):
        found = operator.get(
            reverse("admin:autocomplete"),
            {"app_label": model._meta.app_label, "model_name": model._meta.model_name, "field_name": field},
        ).json()["results"]
        assert found and all("bravo" not in r["text"] for r in found), (field, found)
    # A memory posted into bravo's KB by id is refused by the form.
    response = operator.post(url(Memory, "add"), {"kb": bravo["kb"].pk, "text": "Injected.", "kind": "fact"})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not Memory.objects.filter(text="Injected.").exists()


def test_the_recall_console_and_the_upload_page_are_limited(two_bots, operator):
    alpha, bravo = two_bots
    console = reverse("admin:kbsite_knowledgebase_recall")
    page = operator.get(console).content.decode()
    assert "alpha-kb" in page and "bravo" not in page
    refused = operator.get(console, {"kb": bravo["kb"].pk, "query": "tea", "k": 5}).content.decode()
    assert "Select a valid choice" in refused and "bravo user likes tea" not in refused
    found = operator.get(console, {"kb": alpha["kb"].pk, "query": "tea", "k": 5, "user_id": "alpha-user"})
    assert "alpha user likes tea" in found.content.decode()

    upload = reverse("admin:knowledge_document_upload")
    page = operator.get(upload).content.decode()
    assert "alpha-kb" in page and "bravo" not in page
    response = operator.post(
        upload,
        {"kb": bravo["kb"].pk, "namespace": "documents", "files": SimpleUploadedFile("x.md", b"# Hello\n")},
    )
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert not Document.objects.filter(kb=bravo["kb"], slug="x").exists()
    status = reverse("admin:knowledge_document_upload_status")
    assert "bravo" not in operator.get(status, {"ids": bravo["document"].pk}).content.decode()


def test_an_operator_cannot_reassign_bots_or_export_another_bots_user(two_bots, operator):
    alpha, bravo = two_bots
    page = operator.get(url(Bot, "change", alpha["bot"].pk)).content.decode()
    assert 'name="operators"' not in page  # read-only for an operator
    assert operator.get(reverse("admin:kbsite_enduser_export", args=[bravo["user"].pk])).status_code == 404
    assert operator.get(reverse("admin:kbsite_enduser_erase", args=[bravo["user"].pk])).status_code == 404
    assert operator.get(url(Bot, "add")).status_code == 403


def test_a_staff_user_with_no_bot_sees_no_bot_data(two_bots):
    client = logged_in(operator_of(username="nobody"))
    for model in (Memory, KnowledgeBase, Bot):
        response = client.get(url(model, "changelist"))
        assert response.status_code == 200, (model, response.status_code)
        text = response.content.decode()
        assert f"0 {model._meta.verbose_name_plural}" in text, model  # the list itself, empty
        assert "alpha" not in text and "bravo" not in text


def test_the_dashboard_shows_only_the_operators_bots(two_bots, operator, client):
    from django.core.cache import cache

    cache.clear()
    page = operator.get(reverse("admin:index")).content.decode()
    assert "alpha-kb" in page and "bravo" not in page
    bravo = two_bots[1]
    # Asking for bravo's KB or end user by id shows nothing of theirs.
    for params in ({"kb": bravo["kb"].pk}, {"bot": bravo["bot"].pk}, {"end_user": bravo["user"].pk}):
        assert "bravo" not in operator.get(reverse("admin:index"), params).content.decode()
    client.force_login(User.objects.create_superuser("root", password="x"))
    both = client.get(reverse("admin:index")).content.decode()
    assert "alpha-kb" in both and "bravo-kb" in both


# Issue 34: every form and filter of an operator goes through their limited querysets. The cases below are made from
# the admin's registry: every foreign key of every registered model of bot data, and every filter on one.


def _relations(model) -> list:
    """The model's foreign keys (and many-to-many fields) to bot data."""
    return [
        field
        for field in model._meta.get_fields()
        if field.is_relation and field.concrete and bot_path(field.related_model) is not None
    ]


def _bravo_row(model, bravo_bot) -> int:
    return model.objects.filter(**{bot_path(model): bravo_bot.pk}).order_by("pk").values_list("pk", flat=True)[0]


def _snapshot() -> dict:
    """Every row of bot data, as it is now (a form or action that changes one changes this)."""
    return {model: list(model.objects.order_by("pk").values()) for model in OPERATED_MODELS}


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_an_add_form_prefilled_with_another_bots_ids_shows_nothing_of_theirs(two_bots, operator, model):
    """GET and POST of the add page with every foreign key set to a row of bravo's: no label, no text of bravo's,
    nothing saved."""
    bravo = two_bots[1]["bot"]
    ids = {field.name: _bravo_row(field.related_model, bravo) for field in _relations(model)}
    before = _snapshot()
    shown = operator.get(url(model, "add"), ids)
    assert shown.status_code in (200, 403), shown.status_code
    assert "bravo" not in shown.content.decode()
    posted = operator.post(url(model, "add"), ids)
    assert posted.status_code in (200, 403), posted.status_code  # 200: the form again, with its errors
    assert "bravo" not in posted.content.decode()
    assert _snapshot() == before


def _filter_params(model) -> list[tuple[str, type]]:
    """Every `__id__exact` / `__exact` filter on a relation to bot data: the model's own foreign keys and the paths of
    its list filters, with the model each names."""
    model_admin = admin.site._registry[model]
    paths = {field.name: field.related_model for field in _relations(model)}
    for entry in model_admin.list_filter:
        path = entry[0] if isinstance(entry, (tuple, list)) else entry
        if not isinstance(path, str):
            continue
        related, target = model, None
        for name in path.split("__"):
            target = related._meta.get_field(name)
            related = target.related_model
        if related is not None and bot_path(related) is not None:
            paths[path] = related
    return [(f"{path}{lookup}", related) for path, related in paths.items() for lookup in ("__id__exact", "__exact")]


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_a_filter_on_another_bots_ids_lists_nothing_and_acts_on_nothing(two_bots, operator, model):
    """A list filtered by a row of bravo's (bot, KB, end user, any foreign key) shows nothing, never the operator's
    whole list, and an action on all of it (select_across) changes nothing."""
    alpha, bravo = two_bots
    everything = {"status": "all"} if model is Memory else {"state": "all"} if model is ReviewItem else {}
    page = operator.get(url(model, "changelist"), everything)
    form = page.context["action_form"]
    actions = [name for name, _ in form.fields["action"].choices if name] if form else []
    mine = _rows_of(model, alpha["bot"]).values_list("pk", flat=True)[0]
    for param, related in _filter_params(model):
        query = {**everything, param: _bravo_row(related, bravo["bot"])}
        response = operator.get(url(model, "changelist"), query)
        assert response.status_code in (200, 400), (param, response.status_code)  # 400: a lookup not allowed
        if response.status_code == 200:
            assert response.context["cl"].result_count == 0, param
            assert "bravo" not in response.content.decode(), param
        for action in actions:
            before = _snapshot()
            operator.post(
                f"{url(model, 'changelist')}?{'&'.join(f'{k}={v}' for k, v in query.items())}",
                {"action": action, "select_across": "1", "index": "0", "_selected_action": [mine], "post": "yes"},
            )
            assert _snapshot() == before, (param, action)


@pytest.mark.filterwarnings("error::django.core.paginator.UnorderedObjectListWarning")  # pages in a stable order
@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_every_autocomplete_answers_only_the_operators_rows(two_bots, operator, model):
    """The autocomplete of every foreign key to bot data (asked for by name, whether or not its form shows one)
    offers alpha's rows only, and nothing when asked for bravo's."""
    for field in _relations(model):
        if not admin.site._registry[field.related_model].get_search_fields(None):
            continue  # no autocomplete without search fields (Django answers 404)
        query = {"app_label": model._meta.app_label, "model_name": model._meta.model_name, "field_name": field.name}
        found = operator.get(reverse("admin:autocomplete"), query).json()["results"]
        assert all("bravo" not in row["text"] for row in found), (field.name, found)
        assert operator.get(reverse("admin:autocomplete"), {**query, "term": "bravo"}).json()["results"] == []


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_a_change_form_posted_with_another_bots_ids_shows_nothing_of_theirs(two_bots, operator, model):
    """Alpha's row posted back with every editable foreign key set to a row of bravo's: refused, with no label or
    text of bravo's, nothing saved."""
    alpha, bravo = two_bots
    mine = _rows_of(model, alpha["bot"]).values_list("pk", flat=True)[0]
    page = operator.get(url(model, "change", mine))
    form = page.context["adminform"].form if page.status_code == 200 else None
    ids = {
        field.name: _bravo_row(field.related_model, bravo["bot"])
        for field in _relations(model)
        if form is not None and field.name in form.fields
    }
    if not ids:
        return  # nothing of bot data to choose on this page (read-only, or no such field)
    before = _snapshot()
    posted = operator.post(url(model, "change", mine), ids)
    assert posted.status_code == 200  # the form again, with its errors
    assert "bravo" not in posted.content.decode()
    assert _snapshot() == before


def test_retry_all_failed_filtered_on_another_bots_id_retries_none_of_the_operators_jobs(two_bots, operator):
    """Issue 34: an operator of one bot has one choice in the bot filter, which Django hides (``has_output``) and
    whose parameter it then dropped, so "retry failed jobs" on all of ``?kb__bot__id__exact=<bravo>`` retried
    alpha's. Filtered on bravo's bot or KB, the list is empty and the action retries nothing; unfiltered, it retries
    alpha's failed jobs and none of bravo's."""
    alpha, bravo = two_bots
    for n in range(2):
        JobRun.objects.create(
            kb=alpha["kb"], kind=JobRun.Kind.INGEST_TEXT, target=f"alpha-more-{n}", status=JobRun.Status.FAILED
        )
    failed = JobRun.objects.filter(status=JobRun.Status.FAILED)
    alphas = set(failed.filter(kb=alpha["kb"]).values_list("pk", flat=True))
    assert len(alphas) == 3 and failed.filter(kb=bravo["kb"]).count() == 1
    retry = {"action": "retry", "select_across": "1", "index": "0", "_selected_action": [min(alphas)]}
    for param, value in (("kb__bot__id__exact", bravo["bot"].pk), ("kb__id__exact", bravo["kb"].pk)):
        listed = operator.get(url(JobRun, "changelist"), {param: value})
        assert listed.status_code == 200 and listed.context["cl"].result_count == 0, param
        operator.post(f"{url(JobRun, 'changelist')}?{param}={value}", retry)
        assert set(failed.values_list("pk", flat=True)) == alphas | {failed.get(kb=bravo["kb"]).pk}, param
        assert not JobRun.objects.filter(status=JobRun.Status.RETRIED).exists(), param

    operator.post(url(JobRun, "changelist"), retry)
    assert set(JobRun.objects.filter(status=JobRun.Status.RETRIED).values_list("pk", flat=True)) == alphas
    assert failed.filter(kb=bravo["kb"]).count() == 1


# Issue 34, audited: the rest of the matrix. Every action, every page of one row and every view of the admins' own
# (retire, restore, settle, consolidate, re-index, export, erase), each given bravo's ids; the admins of the other
# apps (users, groups, the job queue) closed to an operator; lookups across relations refused.


def _snapshot_of(bot) -> dict:
    """Every row of bot data of ``bot``'s, as it is now."""
    return {
        model: list(model.objects.filter(**{bot_path(model): bot.pk}).order_by("pk").values())
        for model in OPERATED_MODELS
    }


def _bravo_rows(model, bravo_bot) -> list[int]:
    return list(model.objects.filter(**{bot_path(model): bravo_bot.pk}).order_by("pk").values_list("pk", flat=True))


def _every_action(model) -> list[str]:
    """Every action of the model's admin, as a superuser has them: those an operator is not offered are tried too
    (a post may name any)."""
    request = RequestFactory().get("/")
    request.user = User(username="root", is_superuser=True, is_staff=True, is_active=True)
    return sorted(admin.site._registry[model].get_actions(request), key=lambda name: name == "delete_selected")


@pytest.mark.parametrize("model", [m for m in OPERATED_MODELS if _every_action(m)], ids=lambda m: m.__name__)
def test_every_action_on_another_bots_selected_rows_changes_nothing_of_theirs(two_bots, operator, model):
    """Every action of every admin, posted with bravo's rows selected (``_selected_action``, confirmed): nothing
    of any bot changes and nothing of bravo's is shown; with alpha's rows selected beside them, the action runs on
    alpha's only, and bravo's stay as they were."""
    alpha, bravo = two_bots
    theirs = _bravo_rows(model, bravo["bot"])
    mine = list(_rows_of(model, alpha["bot"]).values_list("pk", flat=True))
    for action in _every_action(model):
        before = _snapshot()
        data = {"action": action, "index": "0", "_selected_action": theirs, "post": "yes"}
        response = operator.post(url(model, "changelist"), data, follow=True)
        assert response.status_code in (200, 403), (action, response.status_code)
        assert "bravo" not in response.content.decode(), action
        assert _snapshot() == before, action

        bravo_before = _snapshot_of(bravo["bot"])
        response = operator.post(url(model, "changelist"), {**data, "_selected_action": mine + theirs}, follow=True)
        assert "bravo" not in response.content.decode(), action
        assert _snapshot_of(bravo["bot"]) == bravo_before, action


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_another_bots_rows_are_not_found_on_every_page_of_one_row(two_bots, operator, model):
    """Each of bravo's rows, on its change, history and delete pages, read and posted to (a change, a confirmed
    delete): not found, nothing of bravo's on the page it ends on, nothing changed."""
    bravo = two_bots[1]["bot"]
    before = _snapshot()
    for pk in _bravo_rows(model, bravo):
        for view in ("change", "history", "delete"):
            page = url(model, view, pk)
            for response in (
                operator.get(page),
                operator.post(page, {"post": "yes", "text": "planted", "name": "planted", "_save": "Save"}),
            ):
                assert response.status_code in (302, 403), (view, pk, response.status_code)
                if response.status_code == 302:
                    assert response["Location"] == reverse("admin:index"), (view, pk)  # "doesn't exist"
            landed = operator.get(page, follow=True)
            assert "bravo" not in landed.content.decode(), (view, pk)
    assert _snapshot() == before


def _own_views(model) -> list[str]:
    """The names of the admin's own views of one row (beyond Django's change, history and delete pages)."""
    info = f"{model._meta.app_label}_{model._meta.model_name}"
    django_s = {f"{info}_change", f"{info}_history", f"{info}_delete"}
    return [
        pattern.name
        for pattern in admin.site._registry[model].get_urls()
        if pattern.name and pattern.name not in django_s and pattern.pattern.converters
    ]


def test_the_admins_own_views_of_a_row_are_the_ones_below():
    """The views of one row the admins add (a new one is tried below with bravo's ids as it appears)."""
    views = {name for model in OPERATED_MODELS for name in _own_views(model)}
    assert {
        "memories_memory_retire",
        "memories_memory_restore",
        "memories_reviewitem_accept",
        "kbsite_knowledgebase_consolidate",
        "kbsite_knowledgebase_reindex",
        "kbsite_knowledgebase_export",
        "kbsite_enduser_export",
        "kbsite_enduser_erase",
    } <= views


@pytest.mark.parametrize("model", [m for m in OPERATED_MODELS if _own_views(m)], ids=lambda m: m.__name__)
def test_the_admins_own_views_of_another_bots_row_are_not_found(two_bots, operator, model):
    """Retire, restore, settle a review, consolidate, re-index, export or erase, each with the id of a row of
    bravo's, read and posted (confirmed): not found, nothing of bravo's, nothing changed."""
    bravo = two_bots[1]["bot"]
    before = _snapshot()
    for name in _own_views(model):
        for pk in _bravo_rows(model, bravo):
            page = reverse(f"admin:{name}", args=[pk])
            for response in (operator.get(page), operator.post(page, {"confirm": "yes", "reason": "planted"})):
                assert response.status_code in (403, 404, 405), (name, pk, response.status_code)
                content = b"".join(response.streaming_content) if response.streaming else response.content
                assert b"bravo" not in content, (name, pk)
    assert _snapshot() == before


NOT_OPERATED = [model for model in admin.site._registry if model._meta.app_label not in OPERATED_APPS]


@pytest.mark.parametrize("model", NOT_OPERATED, ids=lambda m: m._meta.label)
def test_the_admins_of_other_apps_are_closed_to_an_operator(two_bots, operator, model):
    """Users, groups and the job queue's tables (which hold every bot's task arguments): an operator may neither
    list nor add them."""
    assert operator.get(url(model, "changelist")).status_code == 403
    assert operator.get(url(model, "add")).status_code == 403


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_an_autocomplete_of_rows_that_are_not_bot_data_is_refused(two_bots, operator, model):
    """A field of bot data pointing elsewhere (a bot's operators: users; a job's object type) has no autocomplete
    for an operator: 403, not a list of every user."""
    for field in model._meta.get_fields():
        if not (field.is_relation and field.concrete) or bot_path(field.related_model) is not None:
            continue
        query = {"app_label": model._meta.app_label, "model_name": model._meta.model_name, "field_name": field.name}
        assert operator.get(reverse("admin:autocomplete"), {**query, "term": ""}).status_code == 403, field.name


def _lookups_across(model) -> list[str]:
    """Lookups through the model's relations to a text of a row further on (``kb__bot__name``,
    ``kb__memories__text``, ``memory__text``): what a hostile operator would type to reach another bot's rows."""
    texts = (CharField, TextField)
    lookups = []
    for field in _relations(model):
        for further in field.related_model._meta.get_fields():
            if isinstance(further, texts):
                lookups.append(f"{field.name}__{further.name}__contains")
            elif further.is_relation and further.related_model is not None:
                text = next((f.name for f in further.related_model._meta.fields if isinstance(f, texts)), None)
                if text:
                    lookups.append(f"{field.name}__{further.name}__{text}__contains")
    return lookups


@pytest.mark.parametrize("model", OPERATED_MODELS, ids=lambda m: m.__name__)
def test_a_lookup_across_relations_is_refused_or_finds_nothing_of_theirs(two_bots, operator, model):
    """``?kb__bot__name__contains=bravo`` and the like, through every relation: Django refuses a lookup its list
    filters do not name (400); one it allows lists none of bravo's rows (the list is the operator's rows only)."""
    everything = {"status": "all"} if model is Memory else {"state": "all"} if model is ReviewItem else {}
    lookups = _lookups_across(model)
    assert lookups or not _relations(model), model
    for lookup in lookups:
        response = operator.get(url(model, "changelist"), {**everything, lookup: "bravo"})
        assert response.status_code in (400, 200), (lookup, response.status_code)
        if response.status_code == 200:
            assert response.context["cl"].result_count == 0, lookup
            assert "bravo" not in response.content.decode().replace("=bravo", ""), lookup


def test_a_raw_id_pre_filled_with_any_of_another_bots_memories_shows_none(two_bots, operator):
    """Issue 34, item 1, for every memory of bravo's (live, quarantined, retired): the raw-id field of an edge's
    add page pre-filled with it, or posted with it, and of alpha's edge posted with it, shows no label and no text
    of it; nor does a memory's add page pre-filled with it as the replacement or the source chunk's."""
    alpha, bravo = two_bots
    Memory.objects.create(kb=bravo["kb"], text="The bravo user's key is sk-bravo.", quarantined=True)
    memory_retire(memory=bravo["memory"], reason="bravo retired it")  # its insight and edge with it
    memories = _bravo_rows(Memory, bravo["bot"])
    assert len(memories) == 3
    edge = Edge.objects.get(kb=alpha["kb"])
    before = _snapshot()
    for pk in memories:
        for response in (
            operator.get(url(Edge, "add"), {"memory": pk}),
            operator.post(url(Edge, "add"), {"memory": pk, "relation": "likes"}),
            operator.post(url(Edge, "change", edge.pk), {"memory": pk, "relation": "likes"}),
            operator.get(url(Memory, "add"), {"superseded_by": pk, "source_chunk": _bravo_row(Chunk, bravo["bot"])}),
        ):
            assert response.status_code == 200, pk
            assert "bravo" not in response.content.decode(), pk
    assert _snapshot() == before


def test_the_recall_console_naming_another_bots_user_and_session_shows_nothing_of_theirs(two_bots, operator):
    """The console on alpha's KB asked as bravo's end user, in bravo's session: the user is looked up among alpha's
    (none such), so none of bravo's memories, turns, chunks or documents is in the recall, the context block or the
    answer, and nothing of bravo's changes."""
    alpha, bravo = two_bots
    Memory.objects.create(kb=bravo["kb"], text="The bravo user drinks tea daily.", entities=["bravo"])
    before = _snapshot_of(bravo["bot"])
    query = {"kb": alpha["kb"].pk, "query": "tea says hi chunk doc", "k": 20}
    page = operator.get(
        reverse("admin:kbsite_knowledgebase_recall"), {**query, "user_id": "bravo-user", "session_id": "bravo-session"}
    )
    assert page.status_code == 200 and page.context["results"] is not None
    text = page.content.decode()
    for theirs in ("bravo user likes", "bravo user drinks", "bravo says hi", "bravo chunk", "bravo doc", "bravo-kb"):
        assert theirs not in text, theirs
    assert _snapshot_of(bravo["bot"]) == before
    mine = operator.get(reverse("admin:kbsite_knowledgebase_recall"), {**query, "user_id": "alpha-user"})
    assert "alpha user likes tea" in mine.content.decode()  # the same question finds the operator's own
