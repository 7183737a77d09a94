"""The admin's lists as an operator reads them (issue 20, in part): live memories by default with one click for
the rest, and job runs showing what they work on by name, linked."""

from __future__ import annotations

import html
import json
import re

from django.urls import reverse

from kbsite.models import JobRun
from memories.ingest import text_receive
from tests.conftest import logged_in, operator_of
from tests.factories import InsightFactory, KnowledgeBaseFactory, MemoryFactory


def test_the_memory_list_shows_live_memories_unless_asked(admin_client, kb):
    MemoryFactory(kb=kb, text="Alice lives in Berlin.")
    MemoryFactory(kb=kb, text="Alice lives in Paris.").retire(reason="moved")
    MemoryFactory(kb=kb, text="Her password is hunter22.", quarantined=True, quarantine_reason="secret")
    url = reverse("admin:memories_memory_changelist")

    def listed(**params) -> set[str]:
        page = admin_client.get(url, params).content.decode()
        return {t for t in ("Berlin", "Paris", "hunter22") if t in page}

    assert listed() == {"Berlin"}
    assert listed(status="retired") == {"Paris"}
    assert listed(status="quarantined") == {"hunter22"}
    assert listed(status="all") == {"Berlin", "Paris", "hunter22"}


def test_the_memory_list_filters_by_language(admin_client, kb):
    """The languages the KBs hold are the filter's choices; each narrows the list to its memories (English with those
    too short to tell); a code that is no language's reloads the list and says the filter was wrong. A memory's page
    shows its language."""
    kb.languages = ["en", "es"]
    kb.save(update_fields=["languages"])
    spanish = MemoryFactory(kb=kb, text="Vivo en Sevilla desde marzo.", language="es")
    MemoryFactory(kb=kb, text="I live in Leeds.", language="en")
    MemoryFactory(kb=kb, text="Ok thanks.", language="")
    url = reverse("admin:memories_memory_changelist")

    def listed(**params) -> set[str]:
        page = admin_client.get(url, params).content.decode()
        return {t for t in ("Sevilla", "Leeds", "Ok thanks") if t in page}

    page = admin_client.get(url).content.decode()
    assert "By language" in page and ">Spanish</a>" in page and ">English</a>" in page
    assert listed(language="es") == {"Sevilla"}
    assert listed(language="en") == {"Leeds", "Ok thanks"}
    response = admin_client.get(url, {"language": "klingon"})
    assert response.status_code == 302 and "e=1" in response.url
    page = admin_client.get(reverse("admin:memories_memory_change", args=[spanish.pk])).content.decode()
    assert re.search(r"Language:</label>\s*<div class=\"readonly\">es</div>", page), "the page shows its language"


def test_the_language_filters_offer_only_the_operators_kbs_languages(kb):
    """An operator's language choices come from the KBs of the bots they operate: another bot's German KB adds no
    German. The insight list filters by language too."""
    kb.languages = ["es"]
    kb.save(update_fields=["languages"])
    KnowledgeBaseFactory(languages=["de"])
    InsightFactory(kb=kb, text="Dos recuerdos hablan de Lucía.", language="es")
    InsightFactory(kb=kb, text="Two memories are about Alice.", language="en")
    operator = logged_in(operator_of(kb.bot))
    page = operator.get(reverse("admin:memories_memory_changelist")).content.decode()
    assert ">Spanish</a>" in page and ">German</a>" not in page
    url = reverse("admin:memories_insight_changelist")
    page = operator.get(url, {"language": "es"}).content.decode()
    assert "Lucía" in page and "Alice" not in page


def test_job_runs_name_and_link_what_they_work_on(admin_client, kb):
    item, job = text_receive(kb=kb, text="Alice moved to Berlin in May.", source="crm-export")
    page = admin_client.get(reverse("admin:kbsite_jobrun_changelist")).content.decode()
    link = reverse("admin:memories_ingestitem_change", args=[item.pk])
    assert f'<a href="{link}">crm-export</a>' in page
    assert "tokens in / out" in page.lower() and JobRun.objects.get(pk=job.pk).kind == "ingest_text"
    # Issue 42: the facts column says what its signs mean, and a run's own page is read-only: no Save.
    assert "Items read → facts:<br>+added ↻superseded<br>−skipped ⚠quarantined" in page
    run = admin_client.get(reverse("admin:kbsite_jobrun_change", args=[job.pk])).content.decode()
    assert "crm-export" in run and 'name="_save"' not in run
    assert admin_client.post(reverse("admin:kbsite_jobrun_change", args=[job.pk]), {}).status_code == 403


def test_a_kbs_page_shows_its_counts_linked_to_its_rows(admin_client, kb):
    MemoryFactory(kb=kb, text="Alice lives in Berlin.")
    MemoryFactory(kb=kb, text="Alice lives in Paris.").retire(reason="moved")
    page = admin_client.get(reverse("admin:kbsite_knowledgebase_change", args=[kb.pk])).content.decode()
    assert "1 live memories" in page and "1 retired" in page and "Recall console" in page
    links = re.findall(r'href="(/admin/[^"]+\?(?:kb__id__exact|kb)=[^"]+)"', page)
    assert len(links) == 11, links  # ten counts and lists, the console, and the console in the page tools
    for link in links:
        assert admin_client.get(html.unescape(link)).status_code == 200, link


def test_a_kbs_page_acts_on_it(admin_client, kb):
    from knowledge.models import Document
    from knowledge.services import document_write

    MemoryFactory(kb=kb, text="Alice lives in Berlin.")
    document_write(kb=kb, slug="handbook", content="# Handbook\n\nHolidays are booked two weeks ahead.\n")
    page = admin_client.get(reverse("admin:kbsite_knowledgebase_change", args=[kb.pk])).content.decode()
    for name in ("consolidate", "reindex", "export"):
        assert reverse(f"admin:kbsite_knowledgebase_{name}", args=[kb.pk]) in page

    consolidate = reverse("admin:kbsite_knowledgebase_consolidate", args=[kb.pk])
    assert admin_client.get(consolidate).status_code == 403  # a change is a POST
    response = admin_client.post(consolidate)
    assert response.status_code == 302
    assert JobRun.objects.filter(kb=kb, kind=JobRun.Kind.CONSOLIDATE, status=JobRun.Status.QUEUED).exists()

    admin_client.post(reverse("admin:kbsite_knowledgebase_reindex", args=[kb.pk]))
    document = Document.objects.get(kb=kb, slug="handbook")
    assert JobRun.objects.filter(kind=JobRun.Kind.DOCUMENT, object_id=document.pk).exists()

    export = admin_client.get(reverse("admin:kbsite_knowledgebase_export", args=[kb.pk]))
    lines = [json.loads(line) for line in b"".join(export.streaming_content).decode().splitlines()]
    assert any(r.get("text") == "Alice lives in Berlin." for r in lines)
    assert export["Content-Disposition"].endswith(f'{kb.bot.name}-{kb.name}.jsonl"')
    # The recall console opens on the KB it was reached from.
    console = admin_client.get(reverse("admin:kbsite_knowledgebase_recall"), {"kb": kb.pk}).content.decode()
    assert f'<option value="{kb.pk}" selected>' in console and "This field is required" not in console
