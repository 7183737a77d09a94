"""Ask: an answer drawn from recalled memories, citing the ids it used."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from kbsite import budgets, languages
from kbsite.ai import llm
from kbsite.caller import Caller
from kbsite.languages.detection import query_language
from kbsite.models import KnowledgeBase
from kbsite.stats import stats_add
from memories.ingest.changes import names_a_time
from memories.ingest.statements import statement_read
from memories.recall.after import earlier_statements, later_statements
from memories.recall.concepts import concept_words, slots_asked
from memories.recall.context import block_retrieve
from memories.recall.current import held_earlier
from memories.recall.hits import Hit, joined_text
from memories.recall.relatives import relatives_named
from memories.recall.vector import similarities
from memories.text import SENTENCE, content_words, stems

ASK_SYSTEM = """You answer questions about a user and their world from the memories you are given, and nothing else.
Each memory has an id. Cite the ids of the memories your answer relies on. If the memories do not contain the
answer, say you do not know and cite nothing. Answer in the language of the question.
Return STRICT JSON: {"answer": "...", "citations": [<memory id>, ...]}"""


@dataclass
class Answer:
    answer: str
    citations: list[int]
    mode: str
    memories: list[Hit]


def _first(memories: list[Hit], k: int) -> list[Hit]:
    """The block's first ``k`` memories found for the question, each with what came with it: the later statement
    about the same thing, and (asked how things were before) the facts it replaced."""
    out, found = [], 0
    for hit in memories:
        if not {"after", "replaced"} & set(hit.signals):
            if found == k:
                break
            found += 1
        out.append(hit)
    return out


def _extractive(
    question: str, hits: list[Hit], vector=None, names: list[str] = (), end_user_id: int | None = None
) -> tuple[str, list[int]]:
    """Offline: the statements of the block that answer the question best: one stating an attribute it asks for
    ("where does she live": where she lives), else the one sharing most words with it and with the subject it
    asks about (words every statement has, such as whom they are about, do not count), the closest to it in meaning
    (naming a time, when it asks when; said later, when it asks how things stand now), the higher in the block and
    the more informative first (up to six words: a long statement matching as much is no better answer); a second
    one when it answers a part the first does not ("where does she live and what can she not eat?") or scores near
    it. Each is quoted with the other statements of its turn found with it ("We cancelled the cruise. Going to
    Cornwall instead."), with its date when it says "today" or "last week", and after what the end user said later
    about the same thing (memories.recall.after), each dated when they were said on different days, so that the
    newer is read first whatever words it was said in. Of facts restated otherwise by a newer one, only the newer.
    Only a statement that answers at all is quoted: one sharing a word with the question or its subject, stating
    what it asks, naming a time asked for, or close to it in meaning (as close as the context block asks of a memory
    found by meaning alone); the block's small talk is not an answer. None: "I don't remember". ``names`` are those
    of the people the question asks about by relation ("his wife": priya), words of the answer as the block
    searched them; ``end_user_id``, whose later statements come with those quoted (none: shared facts only)."""
    lang = languages.current().words
    asked_before = lang.BEFORE.search(question) is not None
    # What a newer fact says otherwise held earlier: left out, unless the question asks how things were before.
    earlier = {} if asked_before else held_earlier(hits)
    # Each statement not held earlier (a newer fact says otherwise), with the rank of its hit.
    candidates = [
        (rank, hit, pk, text)
        for rank, hit in enumerate(h for h in hits if h.type == "memory")
        for pk, text in hit.parts or [(hit.id, hit.text)]
        if ("memory", pk) not in earlier  # held earlier: a newer fact says otherwise
    ]
    close = similarities(vector, [pk for _, _, pk, _ in candidates])
    floor = _meaning_floor(close)
    # Asked how things stand now ("where does he work these days?"): the later said, the likelier it answers.
    dates = sorted({_said(hit) for _, hit, _, _ in candidates})
    newer = {when: n / max(1, len(dates) - 1) for n, when in enumerate(dates)} if lang.NOW.search(question) else {}
    wanted = stems(content_words(question) + concept_words(question) + list(names))
    wanted -= _common([t for _, _, _, t in candidates])
    asked = slots_asked(question)
    when_asked = lang.WHEN.search(question) is not None
    scored: list[tuple[float, Hit, int, frozenset]] = []
    for rank, hit, pk, text in candidates:
        words = stems(content_words(text))
        matched = wanted & words
        stated = asked & set(_stated(hit, pk, text).slots)
        asking = _asking(text)  # a question states little
        timed = when_asked and (names_a_time(text) or lang.RELATIVE_TIME.search(text) is not None)
        replaces = pk == hit.id and "replaces" in hit.signals  # replaced a fact the question matched
        if not (matched or stated or timed or replaces) and close.get(pk, 0.0) < floor:
            continue  # it answers nothing the question asks: small talk of the block
        score = (
            len(matched)
            + 3 * len(stated)
            + timed
            + replaces
            + MEANING_WEIGHT * close.get(pk, 0.0)
            + newer.get(_said(hit), 0.0)
            + 0.05 * min(len(words), 6)
            - 0.1 * rank
            - 0.5 * asking
        )
        scored.append((score, hit, pk, frozenset(matched | stated)))
    if not scored:
        return "I don't remember anything about that.", []
    if newer:  # asked how things stand now: what was said later of the same thing goes before what it came with
        scored = _later_first(scored)
    scored.sort(key=lambda row: -row[0])
    best = scored[0]
    second = _second(scored, asked_now=bool(newer))
    chosen = [best[1], second[1]] if second else [best[1]]
    return _answer(chosen, earlier, end_user_id, asked_before=asked_before)


def _answer(
    chosen: list[Hit], earlier: dict, end_user_id: int | None, *, asked_before: bool = False
) -> tuple[str, list[int]]:
    """The chosen statements quoted, each after what the end user said later of the same thing (one that only asks,
    "So is it fast?", states no newer value), each dated when they were said on different days; and the ids. Asked
    how things were before, each comes after what the end user said before it of the same thing too (a retired
    statement included: what held before the change)."""
    later = {
        shown: after
        for shown, after in later_statements(chosen, end_user_id, {}).items()
        if isinstance(after, int) or not _asking(after.text)
    }
    quoted = [hit for hit in _with_later(chosen, later) if any(("memory", pk) not in earlier for pk in hit.ids)]
    if asked_before:  # in the order they were said: what came before reads first
        quoted = sorted(_with_before(quoted, earlier_statements(quoted, end_user_id, {})), key=_said)
    dated = len({_said(hit).date() for hit in quoted}) > 1  # said on different days: each says when
    texts, cited = [], []
    for hit in quoted:
        text, ids = _quoted(hit, earlier, dated=dated)
        texts.append(text)
        cited += ids
    return " ".join(texts), cited


def _with_later(chosen: list[Hit], later: dict[int, Hit | int]) -> list[Hit]:
    """The statements to quote: each chosen one with the end user's later statement about the same thing
    (``later``: memories.recall.after's, by the chosen hit's id) before it, so that whoever reads the answer reads
    the newer first and sees the older beside it, whatever words the change was said in."""
    by_id = {hit.id: hit for hit in chosen}
    out: list[Hit] = []
    for hit in chosen:
        if any(hit is other for other in out):
            continue
        after = later.get(hit.id)
        after = by_id.get(after) if isinstance(after, int) else after
        at = next((i for i, other in enumerate(out) if other is after), None)
        if after is None or after is hit:
            out.append(hit)
        elif at is not None:
            out.insert(at + 1, hit)
        else:
            out += [after, hit]
    return out


def _with_before(quoted: list[Hit], before: dict[int, Hit | int]) -> list[Hit]:
    """The statements to quote with, before each, the end user's earlier statement about the same thing (``before``:
    memories.recall.after's, by the quoted hit's id), unless it is quoted already."""
    have = {pk for hit in quoted for pk in hit.ids}
    out: list[Hit] = []
    for hit in quoted:
        then = before.get(hit.id)
        if isinstance(then, Hit) and then.id not in have and not _asking(then.text):
            out.append(then)
            have.add(then.id)
        out.append(hit)
    return out


# A statement sharing no word with the question, stating nothing it asks, is an answer only this close in meaning:
# on sentences of our own, chat about toast, rain or tidying is 0.17-0.24 similar to a question it does not answer,
# "I'm a self-employed plumber" 0.30 to "How does she make a living?" (all-MiniLM-L6-v2; the truth sets' figures
# before and after are in benchmarks/truth.py's history in docs/benchmarks/truth-history.md).
ANSWER_MEANING_FLOOR = 0.25
# ... and this much closer than the median statement of the block, where it holds enough to tell.
ANSWER_MEANING_MARGIN = 0.1
ANSWER_USUAL_FROM = 8
# A second statement scoring this share of the best's is quoted with it: offline, the best by words and meaning is
# often a neighbour of the answer. Ask names the fact, 0.711 (none) -> 0.747 (0.8) -> 0.771 (0.7) on the unseen truth
# cases, 0.862 -> 0.877 -> 0.862 on fresh, 0.671 -> 0.747 -> 0.785 on novel (its figures, not its cases, were looked
# at in choosing, so novel is no longer a clean measure of this); replaced values given as current 12 -> 13 on novel,
# unchanged on the others.
SECOND_RATIO = 0.7


def _meaning_floor(close: dict[int, float]) -> float:
    """How close in meaning a statement must be to answer: above the floor, and well above the block's usual (a
    user's statements all open on their name, which makes each somewhat like any question about them)."""
    usual = statistics.median(close.values()) if len(close) >= ANSWER_USUAL_FROM else 0.0
    return max(ANSWER_MEANING_FLOOR, usual + ANSWER_MEANING_MARGIN)


def _later_first(scored: list[tuple[float, Hit, int, frozenset]]) -> list[tuple[float, Hit, int, frozenset]]:
    """Each later statement that came with a shown one (memories.recall.after) scored above it, with what it
    answers: how things stand now is what was said last of the same thing."""
    best_of = {}
    for score, hit, _, answered in scored:
        best_of[hit.id] = max(best_of.get(hit.id, (score, answered)), (score, answered), key=lambda row: row[0])
    out = []
    for score, hit, pk, answered in scored:
        if hit.follows in best_of and best_of[hit.follows][0] >= score:
            score, answered = best_of[hit.follows][0] + 0.1, answered | best_of[hit.follows][1]
        out.append((score, hit, pk, answered))
    return out


def _stated(hit: Hit, pk: int, text: str):
    """What a statement of ``hit`` states: the hit's stored reading for the hit itself, else read now."""
    return statement_read(text, hit.language, hit.reading if pk == hit.id else None)


def _second(scored: list[tuple[float, Hit, int, frozenset]], *, asked_now: bool):
    """The statement, after the best, that answers a part of the question the best does not or scores near it
    (``SECOND_RATIO``; of another hit, worth a word at least); asked how things stand now, none said before the
    best."""
    best = scored[0]
    return next(
        (
            row
            for row in scored[1:]
            if row[0] >= 1
            and (row[3] - best[3] or row[0] >= SECOND_RATIO * best[0])
            and row[1] is not best[1]
            and not (asked_now and _said(row[1]) < _said(best[1]))
        ),
        None,
    )


def _asking(text: str) -> bool:
    """Whether every sentence of ``text`` asks (a short answer keeps its question after it, and states)."""
    return all(sentence.rstrip().endswith("?") for sentence in SENTENCE.split(text))


def _said(hit: Hit) -> datetime:
    return hit.valid_from or hit.created_at or datetime.min.replace(tzinfo=UTC)


def _common(texts: list[str]) -> frozenset[str]:
    """The words in more than half of four or more statements (the name of whom they are about): they tell none
    of them apart."""
    if len(texts) < 4:
        return frozenset()
    counts = Counter(word for text in texts for word in stems(content_words(text)))
    return frozenset(word for word, n in counts.items() if n > len(texts) / 2)


def _quoted(hit: Hit, earlier: dict, dated: bool = False) -> tuple[str, list[int]]:
    """A hit's statements that are not held earlier (those of one turn found together, in the turn's order), dated
    when they speak of a time relative to when they were said, or ``dated`` (one of several quoted, said on other
    days); and their ids (none: nothing to quote)."""
    parts = [(pk, text) for pk, text in hit.parts or [(hit.id, hit.text)] if ("memory", pk) not in earlier]
    if not parts:
        return "", []
    text = joined_text(parts).strip()[:ANSWER_CHARS]
    when = hit.valid_from or hit.created_at
    if when and (dated or languages.current().words.RELATIVE_TIME.search(text)):
        text = f"({when:%Y-%m-%d}) {text}"  # as the context block dates a fact, in any language
    return text, [pk for pk, _ in parts]


# How much a statement's closeness in meaning to the question (its embedding's cosine, about 0.0 to 0.6 with the
# small local model) counts against a word or an attribute in common ("How does she make a living?": "I'm a
# self-employed plumber" shares no word with it, but is the closest). Held-out truth cases, ask: 0.475 with 0,
# 0.525 with 3 or 5, 0.550 with 8 or 12; our own cases 0.982 with 0, 1.000 with 5 or 8.
MEANING_WEIGHT = 8.0
# The longest statement an extractive answer quotes.
ANSWER_CHARS = 400


def kb_ask(
    *,
    kb: KnowledgeBase,
    question: str,
    k: int = 8,
    budget_chars: int = 4000,
    session_id: str | None = None,
    caller: Caller,
) -> Answer:
    """An answer from the memories the caller's end user may see (their own and the shared ones), citing them: the
    memories the context block holds for the question (its profile and relevant facts), so that what the block can
    answer is answered. Extractive offline, and once the bot's LLM budget of the day is spent (whatever it chose for
    its extraction: an answer cannot wait), its mode saying so. The question is read, and answered, in its own
    language."""
    with languages.override(query_language(question, [kb])):
        return _ask(kb=kb, question=question, k=k, budget_chars=budget_chars, caller=caller)


def _ask(*, kb: KnowledgeBase, question: str, k: int, budget_chars: int, caller: Caller) -> Answer:
    got = block_retrieve(caller=caller, kbs=[kb], query=question, budget_chars=budget_chars)
    # The profile always: it is what the block shows first.
    hits = list({(h.type, h.id): h for h in _first(got.memories, k) + got.profile + got.insights}.values())
    given = {pk for h in hits if h.type == "memory" for pk in h.ids}
    state = budgets.llm_state(kb.bot_id) if given else budgets.OFFLINE
    if state != budgets.LLM:
        names = relatives_named(question, caller.end_user_id)  # one query, and only if it names a relation
        answer, citations = _extractive(question, hits, got.vector, names, caller.end_user_id)
        why = f"extractive ({budgets.SPENT})" if given and budgets.held(state) else "extractive"
        return Answer(answer=answer, citations=citations, mode=why, memories=hits)
    # What the block's facts replaced (asked how things were before) is listed as no longer true.
    earlier = held_earlier(hits) | {("memory", h.id): None for h in hits if "replaced" in h.signals}
    listing = "\n".join(_listed(h, earlier) for h in hits)
    user = f"Question: {question}\n\nMemories:\n{llm.untrusted('memories', listing)}"

    def parse(data: dict) -> tuple[str, list]:
        answer, cited = data.get("answer"), data.get("citations") or []
        if not isinstance(answer, str) or not isinstance(cited, list):
            raise llm.LLMBadReply("ask reply must have a string 'answer' and a list 'citations'")
        return answer, cited

    try:
        with llm.metered() as meter:
            try:
                answer, cited = llm.complete_validated(system=ASK_SYSTEM, user=user, validate=parse)
            finally:
                stats_add(kb.pk, llm_calls=meter.calls, tokens_in=meter.tokens_in, tokens_out=meter.tokens_out)
    except llm.LLMError as exc:
        answer, citations = _extractive(question, hits, got.vector, end_user_id=caller.end_user_id)
        return Answer(answer=answer, citations=citations, mode=f"extractive (LLM failed: {exc})", memories=hits)
    # Only memories that were actually given to the model can be cited.
    citations = [c for c in (_as_int(x) for x in cited) if c in given]
    return Answer(answer=answer.strip(), citations=sorted(set(citations)), mode="llm", memories=hits)


def _listed(hit: Hit, earlier: dict) -> str:
    """A memory for the model: each statement of a turn with its own id (so the one relied on is cited), one held
    earlier said so; an insight, not citable."""
    if hit.type != "memory":
        return f"[{'conversation turn' if hit.type == 'turn' else 'insight'}, not citable] {hit.text}"
    return "\n".join(
        f"[{pk}] {'(earlier, no longer true) ' if ('memory', pk) in earlier else ''}{text}"
        for pk, text in hit.parts or [(hit.id, hit.text)]
    )


def _as_int(value) -> int | None:
    try:
        return int(str(value).strip().lstrip("[m").rstrip("]"))
    except (TypeError, ValueError):
        return None
