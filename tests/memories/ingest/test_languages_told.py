"""Every text knows its language: turns, the memories drawn from them, documents and their chunks are told their
language as they come in (or take the KB's own), and each is searched in full text under its language's
configuration, accents folded."""

from __future__ import annotations

from kbsite.models import KnowledgeBase
from knowledge.models import Chunk, Document
from memories.models import Memory, Message
from tests.conftest import run_queued_tasks
from tests.memories.ingest.test_restated_supersession import say


def test_spanish_turns_and_their_memories_are_told_spanish_and_the_kb_holds_it(api, kb):
    """Turns in Spanish and English are stored with their languages (a short one taking its chat's), the memories
    drawn from them keep them, and the KB lists both."""
    say(api, "Me he mudado a Valencia con mis dos gatos.", "sí, claro", "My sister Ines lives in Lisbon now.")
    languages = dict(Message.objects.values_list("content", "language"))
    assert languages == {
        "Me he mudado a Valencia con mis dos gatos.": "es",
        "sí, claro": "es",
        "My sister Ines lives in Lisbon now.": "en",
    }
    memory = Memory.objects.get(text__contains="Valencia")
    assert memory.language == "es"
    assert Memory.objects.get(text__contains="Lisbon").language == "en"
    assert sorted(KnowledgeBase.objects.get(pk=kb.pk).languages) == ["en", "es"]


def test_a_spanish_memory_is_found_by_another_form_of_its_words_and_without_its_accents(api, kb):
    """Searched under Spanish's configuration, "gato" finds "gatos" and "Munich" finds "Múnich" (English's stemmer
    and exact accents found neither)."""
    say(api, "Me he mudado a Múnich con mis dos gatos.")
    hits = api.post("/api/v1/kbs/notes/recall/", json={"query": "gato Munich", "k": 5}).json()["results"]
    assert hits and "Múnich" in hits[0]["text"] and "fts" in hits[0]["signals"]


def test_a_kb_of_a_set_language_takes_every_text_to_be_in_it(api, kb):
    """A KB set to German stores every turn as German, however short or wherever its words come from."""
    response = api.patch("/api/v1/kbs/notes/", json={"language": "de"})
    assert response.status_code == 200, response.text
    assert response.json()["language"] == "de"
    say(api, "ok", "Ich wohne jetzt in Köln.", "Sounds good to me, see you there")
    assert set(Message.objects.values_list("language", flat=True)) == {"de"}
    assert api.patch("/api/v1/kbs/notes/", json={"language": "klingon"}).status_code == 400


def test_a_document_and_its_chunks_are_in_its_language(api, kb):
    """An uploaded Spanish note is told Spanish, its chunks too, and knowledge search finds it by a word form."""
    body = "# Devoluciones\n\nPuedes devolver cualquier bicicleta en los treinta días siguientes a la compra.\n"
    response = api.post("/api/v1/kbs/notes/documents/", files={"file": ("devoluciones.md", body.encode())})
    assert response.status_code == 202, response.text
    run_queued_tasks()
    document = Document.objects.get()
    assert document.language == "es" and set(Chunk.objects.values_list("language", flat=True)) == {"es"}
    found = api.post(
        "/api/v1/tools/knowledge_search/", json={"arguments": {"query": "devolución bicicletas", "kb": "notes"}}
    )
    assert found.status_code == 200, found.text
    assert found.json()["result"]["results"][0]["slug"] == "devoluciones"


def test_with_an_llm_facts_are_asked_in_their_turns_language_and_kept_in_it(api, kb, fake_llm):
    """The extraction prompt tells the model to write each fact in its turns' language; the Spanish fact it writes
    is stored as Spanish, and ask tells the model to answer in the question's language."""
    fake_llm.reply_json(
        {
            "add": [{"text": "Lucía se mudó a Valencia en marzo.", "kind": "user_profile", "source_turns": ["@1"]}],
            "supersede": [],
            "edges": [],
        }
    )
    response = api.post(
        "/api/v1/kbs/notes/messages/",
        json={
            "session_id": "s1",
            "messages": [{"external_id": "1", "speaker": "Lucía", "content": "Me he mudado a Valencia en marzo."}],
        },
    )
    assert response.status_code == 202, response.text
    run_queued_tasks()
    system = next(m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "system")
    assert "in the language of the turns it comes from" in system
    assert Memory.objects.get().language == "es"
    fake_llm.reply_json({"answer": "Vive en Valencia.", "citations": [Memory.objects.get().pk]})
    answer = api.post("/api/v1/kbs/notes/ask/", json={"question": "¿Dónde vive Lucía ahora?"}).json()
    assert answer["answer"] == "Vive en Valencia." and answer["mode"] == "llm"
    system = next(m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "system")
    assert "Answer in the language of the question." in system
