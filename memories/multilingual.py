"""Second, multilingual vectors (multilingual-e5-small, MULTILINGUAL_VECTORS): given to every document chunk, to
each memory in a language other than English, and to every memory of a KB asked in a language other than English
(KnowledgeBase.asked_languages: a Spanish question then finds an English fact), as they are indexed or drawn, and in
the background to those without one (written before the KB was so asked, or while the vector was off).

all-MiniLM-L6-v2, the default embedder, reads English: a Spanish question and the Spanish statement that answers it
in other words are barely closer than any two Spanish sentences. The second vector is what knowledge search finds a
note by in any language (knowledge.search) and what offline ask judges a statement's closeness to a question in a
language other than English by (memories.recall.answers).
"""

from __future__ import annotations

from django.db import connection, transaction

from kbsite import jobs, languages
from kbsite.ai import embeddings
from kbsite.ai.vectors import as_vectors, vector_cursor
from kbsite.models import KnowledgeBase
from memories.models import Memory

BATCH_ROWS = 64
# The rows still without their second vector, by table: chunks, and memories in a language other than English
# (partial indexes keep finding them cheap).
WITHOUT = [
    ("knowledge_chunk", "multilingual_embedding IS NULL AND embedding IS NOT NULL"),
    (
        "memories_memory",
        "multilingual_embedding IS NULL AND embedding IS NOT NULL AND NOT language IN ("
        + ", ".join(f"'{code}'" for code in languages.ENGLISH)
        + ")",
    ),
]
# And the rest of the memories of the KBs asked in one, named by id: through memory_kb_no_multilingual, a KB whose
# memories all have theirs costs a lookup, whatever its size (named by a subquery, the planner cannot tell which KBs
# it names, and walked the whole table in id order: 2 s for 300,000 memories, each minute the healing asks).
WITHOUT_ASKED = "multilingual_embedding IS NULL AND embedding IS NOT NULL AND kb_id IN ({ids})"


def without_second() -> list[tuple[str, str]]:
    """The rows still without their second vector, by table (WHERE clauses): WITHOUT, and the memories of the KBs
    asked in a language other than English if any."""
    asked = KnowledgeBase.objects.exclude(asked_languages=[]).values_list("id", flat=True)
    ids = ", ".join(str(int(pk)) for pk in asked)
    return WITHOUT + ([("memories_memory", WITHOUT_ASKED.format(ids=ids))] if ids else [])


def memories_multilingual(memories: list[Memory]) -> int:
    """Give ``memories`` that want one their second vector (just drawn: they have their first): those in a language
    other than English, and any of a KB asked in one; returns how many."""
    wanted = [m for m in memories if m.pk and (m.language not in languages.ENGLISH or m.kb.across_languages)]
    if not wanted or embeddings.get_multilingual() is None:
        return 0
    vectors = as_vectors(embeddings.embed_multilingual([m.text for m in wanted]))
    _write("memories_memory", [(m.pk, vector) for m, vector in zip(wanted, vectors, strict=True)])
    return len(wanted)


def kbs_asked_in(kbs, code: str) -> None:
    """Count a question to ``kbs`` told in the language ``code`` (KnowledgeBase.asked_note): a KB that notes a language
    other than English by it has its memories given their second vector in the background, starting now (recall
    finds them by their first meanwhile)."""
    if embeddings.get_multilingual() is None or code in languages.ENGLISH:
        return
    if [kb for kb in kbs if kb.asked_note(code)]:
        jobs.task_enqueue("memories.tasks.reembed", group="reembed")


def multilingual_batch() -> int:
    """Give the next batch of rows without their second vector theirs, chunks first; returns how many (0: none
    left, or the second vector is off)."""
    if embeddings.get_multilingual() is None:
        return 0
    for table, without in without_second():
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id, text FROM {table} WHERE {without} ORDER BY id LIMIT %s", [BATCH_ROWS])
            rows = cursor.fetchall()
        if rows:
            vectors = as_vectors(embeddings.embed_multilingual([text for _, text in rows]))
            _write(table, [(pk, vector) for (pk, _), vector in zip(rows, vectors, strict=True)])
            return len(rows)
    return 0


def multilingual_due() -> bool:
    """Whether rows are left without their second vector (the jobs' healing queues a run)."""
    if embeddings.get_multilingual() is None:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + " OR ".join(f"EXISTS (SELECT 1 FROM {t} WHERE {w})" for t, w in without_second()))
        return cursor.fetchone()[0]


def multilingual_left() -> int:
    """How many rows are left without their second vector (0 when it is off)."""
    if embeddings.get_multilingual() is None:
        return 0
    without = without_second()
    tables = dict.fromkeys(table for table, _ in without)
    counts = [f"(SELECT count(*) FROM {t} WHERE {' OR '.join(f'({w})' for u, w in without if u == t)})" for t in tables]
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + " + ".join(counts))
        return cursor.fetchone()[0]


def _write(table: str, rows: list[tuple[int, object]]) -> None:
    with transaction.atomic(), vector_cursor() as cursor:  # one round trip (psycopg pipelines executemany)
        cursor.executemany(f"UPDATE {table} SET multilingual_embedding = %s WHERE id = %s", [(v, pk) for pk, v in rows])
