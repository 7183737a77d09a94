"""What came after: an end user's later statements about the same thing as one the context block (and so ask) shows,
shown with it, dated, so that whoever reads the block sees the newer beside the older, whatever words the change was
said in ("I live in Porto" … "finally got the keys to our place in Berlin!").

"The same thing" is judged by the attribute both state, where their stored readings give one (where one lives, where
one works…), or two of one kind (where, then as what one works: kbsite.languages.reading.SAME_THING), and otherwise by
meaning: a later statement far closer to the shown one than the user's other later statements are. Of the statements
said after a shown one about the same thing, the latest comes with it. Two statements not both in English are compared
by their multilingual vectors: all-MiniLM-L6-v2 does not read German, and puts any two German sentences of a user
about as close as an English statement and its update ("Ich bin allergisch gegen Erdnüsse" / "Wir sind nach Dresden
umgezogen!": 0.59), so in a short history, where the floor alone judges, everything said later came "with" everything
said before.
"""

from __future__ import annotations

from kbsite import languages
from kbsite.ai import embeddings
from kbsite.languages.reading import same_thing_pairs
from kbsite.models.embeddings import stale_clause
from kbsite.replicas import reads
from memories.models import Memory
from memories.recall.hits import Hit, hit_rows, memory_hit, sources_attach

# How close in meaning two statements of one user must be to be about the same thing: far closer than the user's
# other later statements are to the shown one (AFTER_SPREAD standard deviations above their mean, where there are
# enough: a user's statements are all somewhat alike, more so when each opens on the user's name), and at least
# AFTER_SIMILARITY (the product's scale). On sentences of our own, "My car is an old Golf" and "The Golf is gone,
# I'm on an e-bike now" are 0.57 close, 0.76 with the speaker's name opening both; unrelated chat 0.14-0.17,
# 0.30-0.58 with the name.
AFTER_SIMILARITY = 0.4
AFTER_SPREAD = 2.0
# Fewer later statements than this tell no spread: the floor alone judges.
AFTER_SPREAD_FROM = 8
# The user's latest statements compared with each shown one, the most.
AFTER_READ = 500
# Later statements shown in all, the most (each shown statement brings its latest).
AFTER_MOST = 6
# The hits whose turn-mates (the statements of their turn joined in) are compared too, the first this many: each
# statement compared costs a comparison with each of the user's AFTER_READ latest (LoCoMo's block, stop 73: p50 46
# ms comparing the statements found, 50-56 ms with every turn-mate).
AFTER_TURNS = 10

LATER_SQL = """
    WITH kinds AS (SELECT * FROM unnest(%s::text[], %s::text[]) AS k(attribute, alike)),
    shown AS (
        SELECT id, kb_id, end_user_id, embedding, multilingual_embedding, language = ANY(%s) AS english,
               coalesce(valid_from, created_at) AS said,
               ARRAY(SELECT a FROM jsonb_object_keys(coalesce(reading -> 'slots', '{{}}'::jsonb)) AS a
                     UNION SELECT k.alike FROM jsonb_object_keys(coalesce(reading -> 'slots', '{{}}'::jsonb)) AS a
                     JOIN kinds k ON k.attribute = a) AS attributes
        FROM memories_memory WHERE id = ANY(%s) AND end_user_id = %s
    ), theirs AS (
        SELECT o.id, o.kb_id, o.embedding, o.multilingual_embedding, o.language = ANY(%s) AS english, o.reading,
               coalesce(o.valid_from, o.created_at) AS said
        FROM memories_memory o
        WHERE o.end_user_id = %s AND o.kb_id IN (SELECT kb_id FROM shown)
          AND {live} NOT o.quarantined AND {fresh}
        ORDER BY coalesce(o.valid_from, o.created_at) DESC LIMIT %s
    ), pairs AS MATERIALIZED (  -- narrow rows: grouped and filtered, not the statements' vectors and readings
        SELECT s.id AS shown_id, o.id AS later_id, o.said,
               CASE WHEN NOT (s.english AND o.english) AND s.multilingual_embedding IS NOT NULL
                         AND o.multilingual_embedding IS NOT NULL
                    THEN (1 - (o.multilingual_embedding <=> s.multilingual_embedding) - %s) / %s
                    WHEN s.embedding IS NULL OR o.embedding IS NULL THEN NULL
                    ELSE (1 - (o.embedding <=> s.embedding) - %s) / %s END AS similarity,
               (o.reading -> 'slots') ?| s.attributes AS same_attribute
        FROM shown s JOIN theirs o ON o.kb_id = s.kb_id AND o.id <> s.id AND o.said {direction} s.said
    ), usual AS (  -- how close the user's later statements usually are to each shown one
        SELECT shown_id, avg(similarity) AS mean, coalesce(stddev_pop(similarity), 0) AS spread, count(*) AS compared
        FROM pairs GROUP BY shown_id
    )
    SELECT p.shown_id, p.later_id, p.said::date, coalesce(p.same_attribute, false)
    FROM pairs p JOIN usual u ON u.shown_id = p.shown_id
    WHERE p.same_attribute OR (p.similarity >= %s AND (u.compared < %s OR p.similarity >= u.mean + %s * u.spread))
    ORDER BY p.shown_id, p.said DESC, p.later_id DESC
"""


def later_statements(
    shown: list[Hit], end_user_id: int | None, kb_names: dict[int, str], elsewhere: frozenset[int] = frozenset()
) -> dict[int, Hit | int]:
    """For each shown memory of the end user (by the shown hit's id), the latest of their live memories said after
    it about the same thing (or, when none was, after the first statement of its turn joined to it that has one):
    its id when it is shown already, else a hit of it (at most AFTER_MOST of those); one shown ``elsewhere`` in the
    block (the profile) comes again neither. None for shared facts: they are about anyone."""
    return _statements_about(shown, end_user_id, kb_names, elsewhere, before=False)


def earlier_statements(shown: list[Hit], end_user_id: int | None, kb_names: dict[int, str]) -> dict[int, Hit | int]:
    """For each shown memory of the end user, the latest of their memories said before it about the same thing, as
    :func:`later_statements` finds it, a retired one too (what held before a change): asked how things were before
    ("Where did she work before the startup?"), that is what answers."""
    return _statements_about(shown, end_user_id, kb_names, frozenset(), before=True)


def _statements_about(
    shown: list[Hit], end_user_id: int | None, kb_names: dict[int, str], elsewhere: frozenset[int], *, before: bool
) -> dict[int, Hit | int]:
    # Every statement a hit shows (its turn's joined in), of the first AFTER_TURNS hits: the block shows the whole
    # turn, and what came after a part of it is what the reader needs when nothing came after the statement it was
    # found by ("Notre Clio a plus de douze ans" was joined to the kilometres it matched).
    memories = [h for h in shown if h.type == "memory"]
    ids = list(dict.fromkeys([pk for h in memories[:AFTER_TURNS] for pk in h.ids] + [h.id for h in memories]))
    if end_user_id is None or not ids:
        return {}
    fresh, fresh_params = stale_clause("memories_memory", "o")  # vectors of one model only (re-embedding)
    floor, span = embeddings.pair_scale()  # two statements compared, not a question and a statement
    second_floor, second_span = embeddings.pair_scale_multilingual()
    english = list(languages.ENGLISH)
    with reads.cursor() as cursor:
        cursor.execute(
            LATER_SQL.format(
                fresh=fresh, live="" if before else "o.retired_at IS NULL AND", direction="<" if before else ">"
            ),
            [
                *same_thing_pairs(),
                english,
                ids,
                end_user_id,
                english,
                end_user_id,
                *fresh_params,
                AFTER_READ,
                second_floor,
                second_span,
                floor,
                span,
                AFTER_SIMILARITY,
                AFTER_SPREAD_FROM,
                AFTER_SPREAD,
            ],
        )
        by_part = _latest_day(cursor.fetchall(), elsewhere)
    options = {}
    for hit in memories:
        if (part := next((pk for pk in hit.ids if by_part.get(pk)), None)) is not None:
            options.setdefault(hit.id, by_part[part])
    have = {pk for h in memories for pk in h.ids}
    found: dict[int, Hit | int] = {}
    wanted: dict[int, int] = {}
    for shown_id, ids in options.items():
        new = next((pk for pk in ids if pk not in have and pk not in wanted.values()), None)
        if new is not None and len(wanted) < AFTER_MOST:
            wanted[shown_id] = new
        elif (old := next((pk for pk in ids if pk in have), None)) is not None:
            found[shown_id] = old
    rows = {row["id"]: row for row in hit_rows(Memory.objects.filter(pk__in=wanted.values()))}
    later = {shown_id: memory_hit(rows[pk], kb_names) for shown_id, pk in wanted.items() if pk in rows}
    for hit in later.values():
        hit.signals = ["before" if before else "after"]
    sources_attach(list(later.values()))
    return found | later


def _latest_day(rows: list[tuple[int, int, object, bool]], elsewhere: frozenset[int]) -> dict[int, list[int]]:
    """Of each shown statement's later ones about the same thing (``rows``: shown, later, day said, whether it states
    an attribute the shown one states; latest first), those of the day the latest was said, not shown ``elsewhere``,
    latest first: a change is often told over a few turns ("Slowly, I need lunches I can eat in a lab" after "the
    sixth form college in Sutton is a whole different beast"), and one of them shown already, or with another
    statement, must not hide the others. Where some state an attribute the shown one states, those alone: the
    attribute tells the same thing surely, meaning only nearly ("ich bin barista im café…" is what held before "ich
    hab die stelle als ux-designerin bekommen", not a later chat about coffee)."""
    attributed = {shown_id for shown_id, _, _, same in rows if same}
    days: dict[int, list[int]] = {}
    latest: dict[int, object] = {}
    for shown_id, later_id, day, same in rows:
        if shown_id in attributed and not same:
            continue
        if latest.setdefault(shown_id, day) == day and later_id not in elsewhere:
            days.setdefault(shown_id, []).append(later_id)
    return days


def with_later(
    hits: list[Hit], end_user_id: int | None, kb_names: dict[int, str], elsewhere: frozenset[int] = frozenset()
) -> list[Hit]:
    """``hits`` with each shown memory's later statement about the same thing right after it (one shown already
    stays where it is; one shown ``elsewhere`` is not added), each knowing which it follows."""
    later = later_statements(hits, end_user_id, kb_names, elsewhere)
    if not later:
        return hits
    by_id = {pk: h for h in hits if h.type == "memory" for pk in h.ids}
    out: list[Hit] = []
    for hit in hits:
        out.append(hit)
        after = later.get(hit.id) if hit.type == "memory" else None
        if isinstance(after, Hit):
            after.follows = hit.id
            out.append(after)
        elif after is not None and by_id[after].follows is None and by_id[after] is not hit:
            by_id[after].follows = hit.id
    return out
