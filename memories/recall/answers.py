"""Ask: an answer drawn from recalled memories, citing the ids it used."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from kbsite import budgets, languages
from kbsite.ai import llm
from kbsite.caller import Caller
from kbsite.languages import dates
from kbsite.languages.detection import query_language
from kbsite.languages.reading import of_a_kind, speaker_name
from kbsite.models import KnowledgeBase
from kbsite.stats import stats_add
from memories.recall.after import earlier_statements, later_statements
from memories.recall.answer_ranking import Candidate, Question, asking, ranked, said
from memories.recall.context import block_retrieve
from memories.recall.current import held_earlier
from memories.recall.hits import Hit, joined_text
from memories.recall.relatives import relatives_named
from memories.recall.vector import multilingual_similarities, similarities
from memories.text import content_words, stems

ASK_SYSTEM = """You answer questions about a user and their world from the memories you are given, and nothing else.
Each memory has an id. Cite the ids of the memories your answer relies on. A memory marked "(shared)" was said in a
chat of no particular user: it is about anyone, not the user you are asked about unless it names them. If the
memories do not contain the answer, say you do not know and cite nothing. Answer in the language of the question.
Return STRICT JSON: {"answer": "...", "citations": [<memory id>, ...]}"""


# The memories found that ask reads (each with what comes with it: memories.recall.after), the block's first. On the
# development sets (read while tuning: in-sample), each measured with weights fitted on the others, ask named the
# fact for 464 of 624 questions reading 8, 475 reading 16, 474 reading 24 (stop 52).
ASK_K = 16


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
    question: str,
    hits: list[Hit],
    vector=None,
    names: list[str] = (),
    end_user_id: int | None = None,
    profile: frozenset[int] = frozenset(),
    second=None,
    user_id: str | None = None,
) -> tuple[str, list[int]]:
    """Offline: the statements of the block that answer the question best, as memories.recall.answer_ranking
    scores them (the words and the attribute they share with it, their closeness in meaning, when they were said,
    their place in the block...); with it, up to two more that score near it or answer a part it does not ("where
    does she live and what can she not eat?"). Each is quoted with the other statements of its turn found
    with it ("We cancelled the cruise. Going to Cornwall instead."), with its date when it says "today" or "last
    week", and after what the end user said later about the same thing (memories.recall.after), each dated when
    they were said on different days, so that the newer is read first whatever words it was said in. Asked about a
    person ("What should I cook for her?", "Where does alice live?") for an end user, their own statements answer
    when any does: a shared one is about anyone ("I'm allergic to nuts", said in a chat of no end user). Of facts
    restated otherwise by a newer one, only the newer. Only a statement that answers at all is quoted: one sharing
    a word with the question or its subject, stating what it asks, naming a time asked for, or close to it in
    meaning (as close as the context block asks of a memory found by meaning alone), or one the ranking puts clearly
    above every such one; the block's small talk is not an answer. None: "I don't remember" (in the question's
    language). ``names`` are those of the people the question asks about by relation ("his wife": priya), words of
    the answer as the block searched them; ``end_user_id``, whose later statements come with those quoted (none:
    shared facts only), ``user_id`` as the bot names them; ``profile``, the ids of the profile's hits; ``vector`` and
    ``second``, the question's embedding and its multilingual one."""
    asked, earlier, candidates = _ranked(question, hits, vector, names, profile, second, user_id)
    # Only a statement that answers at all: the block's small talk is not an answer.
    scored = [c for c in candidates if c.answers]
    if asked.person and end_user_id is not None:  # about a person: the end user's own before the shared (anyone's)
        scored = [c for c in scored if c.hit.end_user == end_user_id] or scored
    if not scored:
        return languages.current().words.NOT_REMEMBERED, []
    if asked.now:  # asked how things stand now: what was said later of the same thing goes before what it came with
        scored = sorted(_later_first(scored, asked.slots), key=lambda c: -c.score)
    chosen = [c.hit for c in _chosen(scored, asked_now=asked.now)]
    return _answer(
        chosen, earlier, end_user_id, asked_before=asked.before, asked_when=asked.when, answers=_answering(asked)
    )


def _ranked(
    question: str,
    hits: list[Hit],
    vector,
    names: list[str],
    profile: frozenset[int],
    second=None,
    user_id: str | None = None,
) -> tuple[Question, dict, list[Candidate]]:
    """The question as read, the statements held earlier (what a newer fact says otherwise: left out, unless it
    asks how things were before), and the block's other statements ranked (memories.recall.answer_ranking)."""
    asked = Question.read(question, names, also={h.language for h in hits if h.type == "memory"}, user_id=user_id)
    earlier = {} if asked.before else held_earlier(hits)
    statements = [
        (rank, hit, pk, text)
        for rank, hit in enumerate(h for h in hits if h.type == "memory")
        for pk, text in hit.parts or [(hit.id, hit.text)]
        if ("memory", pk) not in earlier
    ]
    close = _closeness(vector, second, statements)
    return asked, earlier, ranked(asked, statements, close, set(profile))


def _closeness(vector, second, statements: list[tuple[int, Hit, int, str]]) -> dict[int, float]:
    """Each statement's closeness in meaning to the question: by the question's multilingual embedding (``second``:
    the block computes it where the KBs hold a language other than English) for a statement that has a multilingual
    vector (memories.multilingual: one in another language), else by the first (``vector``)."""
    pks = [pk for _, _, pk, _ in statements]
    return similarities(vector, pks) | multilingual_similarities(second, pks)


def ask_candidates(*, kb: KnowledgeBase, question: str, caller: Caller, k: int = ASK_K) -> list[Candidate]:
    """Every statement offline ask weighs for ``question``, ranked, whether it answers at all or not (for
    benchmarks.ask_weights, which fits the ranking's weights)."""
    with languages.override(query_language(question, [kb])):
        got, hits = _block(kb=kb, question=question, k=k, budget_chars=4000, caller=caller)
        names = relatives_named(question, caller.end_user_id, kb.languages)
        profile = frozenset(h.id for h in got.profile)
        return _ranked(question, hits, got.vector, names, profile, got.multilingual_vector, caller.user_id)[2]


def _block(*, kb: KnowledgeBase, question: str, k: int, budget_chars: int, caller: Caller):
    """What the context block holds for ``question``, and the hits ask reads of it: its first ``k`` memories found,
    its profile (what the block shows first) and its insights."""
    got = block_retrieve(caller=caller, kbs=[kb], query=question, budget_chars=budget_chars)
    return got, list({(h.type, h.id): h for h in _first(got.memories, k) + got.profile + got.insights}.values())


def _answering(asked: Question) -> Callable[[Hit], bool]:
    """Whether a statement answers ``asked`` by what it says (a word or attribute it shares with it, a time or place
    asked for), as :func:`ranked` tells it of a statement outside the block; the name of the speaker it opens with
    ("Larissa: o Timão perdeu de novo", as ingest writes a turn's speaker) is no word it shares (every statement of
    the speaker opens with it). An opening that is no name ("New address: 12 Park Lane") is read as said."""

    def answers(hit: Hit) -> bool:
        label = speaker_name(hit.text)
        unnamed = replace(asked, wanted=asked.wanted - stems(content_words(label[0]))) if label else asked
        return ranked(unnamed, [(0, hit, hit.id, hit.text)], {}, set())[0].answers

    return answers


def _answer(
    chosen: list[Hit],
    earlier: dict,
    end_user_id: int | None,
    *,
    asked_before: bool = False,
    asked_when: bool = False,
    answers: Callable[[Hit], bool] = lambda hit: True,
) -> tuple[str, list[int]]:
    """The chosen statements quoted, a line each, each after what the end user said later of the same thing (one that
    only asks, "So is it fast?", states no newer value; one that does not ``answers`` the question, after it), each
    dated when they were said on different days; and the ids. Asked how things were before, each comes after what
    the end user said before it of the same thing too (a retired statement included: what held before the
    change). Asked when, each is dated, in words of the question's language: when it was said is the answer, or
    how to tell it ("(14 September 2024) Rosa: I started at the bakery today")."""
    later = {
        shown: after
        for shown, after in later_statements(chosen, end_user_id, {}).items()
        if isinstance(after, int) or not asking(after.text)
    }
    quoted = [
        hit for hit in _with_later(chosen, later, answers) if any(("memory", pk) not in earlier for pk in hit.ids)
    ]
    if asked_before:  # in the order they were said: what came before reads first
        quoted = sorted(_with_before(quoted, earlier_statements(quoted, end_user_id, {})), key=said)
    dated = len({said(hit).date() for hit in quoted}) > 1  # said on different days: each says when
    texts, cited = [], []
    for hit in quoted:
        text, ids = _quoted(hit, earlier, dated=dated, in_words=asked_when)
        texts.append(text)
        cited += ids
    return "\n".join(text for text in texts if text), cited  # a quote a line: its date is plainly its own


def _with_later(
    chosen: list[Hit], later: dict[int, Hit | int], answers: Callable[[Hit], bool] = lambda hit: True
) -> list[Hit]:
    """The statements to quote: each chosen one with the end user's later statement about the same thing
    (``later``: memories.recall.after's, by the chosen hit's id) before it, so that whoever reads the answer reads
    the newer first and sees the older beside it, whatever words the change was said in. A later statement that
    does not answer the question by what it says (``answers``: "o Timão perdeu de novo", judged the same thing as a
    statement about lessons) comes after the chosen one (dated when said on another day): the answer opens with what
    answers it."""
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
        elif answers(after):
            out += [after, hit]
        else:
            out += [hit, after]
    return out


def _with_before(quoted: list[Hit], before: dict[int, Hit | int]) -> list[Hit]:
    """The statements to quote with, before each, the end user's earlier statement about the same thing (``before``:
    memories.recall.after's, by the quoted hit's id), unless it is quoted already."""
    have = {pk for hit in quoted for pk in hit.ids}
    out: list[Hit] = []
    for hit in quoted:
        then = before.get(hit.id)
        if isinstance(then, Hit) and then.id not in have and not asking(then.text):
            out.append(then)
            have.add(then.id)
        out.append(hit)
    return out


# A statement of another hit scoring this close to the best is quoted with it (offline, the best is often a neighbour
# of the answer), or this close when it answers a part of the question the best does not; chosen as WEIGHTS were.
NEAR_MARGIN = 1.5
NEAR_PART_MARGIN = 3.0
# Asked how things stand now, a statement said before the best is quoted with it only this close: the best is
# likely the newer value, but not so surely that an earlier statement scoring as well is left unsaid. On six read
# English truth sets (464 questions, stop 70), with the ranking's margin: never 351 named (17 replaced values given as
# current), 0.75: 364 (21), 1.0: 365 (21), 1.5: 367 (22), always (within NEAR_MARGIN) 371 (24). Leaving out a shown
# statement whose later one is chosen: 8 fewer.
EARLIER_MARGIN = 1.0
# At most this many statements are quoted (each with what came with it). On the development sets (in-sample), the
# best-ranked statement names the fact for 370 of 624 questions; with those near it, 438 quoting at most two, 463
# three, 471 four (stop 55).
QUOTED = 3


def _later_first(scored: list[Candidate], slots: frozenset[str]) -> list[Candidate]:
    """Each later statement that came with a shown one (memories.recall.after) scored above it, with what it
    answers: how things stand now is what was said last of the same thing. Not one that states none of the asked
    attributes (``slots``) the shown one states: the reading says what the shown one is about, and a later statement
    of another thing ("lea kommt aufs gymnasium" after "ich bin seit april teamlead") is no newer value of it."""
    best_of: dict[int, Candidate] = {}
    for c in scored:
        if c.hit.id not in best_of or c.score > best_of[c.hit.id].score:
            best_of[c.hit.id] = c
    for c in scored:
        shown = best_of.get(c.hit.follows)
        if shown is None or shown.score < c.score:
            continue
        if (stated := shown.answered & slots) and not of_a_kind(c.answered & slots, stated):
            continue
        c.score, c.answered = shown.score + 0.1, c.answered | shown.answered
    return scored


def _chosen(scored: list[Candidate], *, asked_now: bool) -> list[Candidate]:
    """The best, and up to ``QUOTED`` - 1 statements of other hits after it that score near it or answer a part of
    the question it does not (``NEAR_MARGIN``, ``NEAR_PART_MARGIN``); asked how things stand now, one said before
    the best only when it scores as near as ``EARLIER_MARGIN``: unsure which is current, ask quotes both (each dated
    where they were said on different days). A shown statement whose later one was put just above it
    (:func:`_later_first`) is so quoted beside it: the older after the newer."""
    best = scored[0]
    out = [best]
    for c in scored[1:]:
        if len(out) == QUOTED:
            break
        if (
            all(c.hit is not other.hit for other in out)
            and c.score >= best.score - (NEAR_PART_MARGIN if c.answered - best.answered else NEAR_MARGIN)
            and not (asked_now and said(c.hit) < said(best.hit) and c.score < best.score - EARLIER_MARGIN)
        ):
            out.append(c)
    return out


def _quoted(hit: Hit, earlier: dict, dated: bool = False, in_words: bool = False) -> tuple[str, list[int]]:
    """A hit's statements that are not held earlier (those of one turn found together, in the turn's order), dated
    when they speak of a time relative to when they were said, or ``dated`` (one of several quoted, said on other
    days), or ``in_words`` (asked when: the date in words of the question's language); and their ids (none: nothing
    to quote)."""
    parts = [(pk, text) for pk, text in hit.parts or [(hit.id, hit.text)] if ("memory", pk) not in earlier]
    if not parts:
        return "", []
    text = joined_text(parts).strip()[:ANSWER_CHARS]
    when = hit.valid_from or hit.created_at
    if when and in_words:
        text = f"({dates.in_words(when.date(), languages.current_code())}) {text}"
    elif when and (dated or languages.current().words.RELATIVE_TIME.search(text)):
        text = f"({when:%Y-%m-%d}) {text}"  # as the context block dates a fact, in any language
    return text, [pk for pk, _ in parts]


# The longest statement an extractive answer quotes.
ANSWER_CHARS = 400


def kb_ask(
    *,
    kb: KnowledgeBase,
    question: str,
    k: int = ASK_K,
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
    got, hits = _block(kb=kb, question=question, k=k, budget_chars=budget_chars, caller=caller)
    given = {pk for h in hits if h.type == "memory" for pk in h.ids}
    state = budgets.llm_state(kb.bot_id) if given else budgets.OFFLINE
    if state != budgets.LLM:
        # One query a language the KB holds, and only if it names a relation.
        names = relatives_named(question, caller.end_user_id, kb.languages)
        profile = frozenset(h.id for h in got.profile)
        answer, citations = _extractive(
            question, hits, got.vector, names, caller.end_user_id, profile, got.multilingual_vector, caller.user_id
        )
        why = f"extractive ({budgets.SPENT})" if given and budgets.held(state) else "extractive"
        return Answer(answer=answer, citations=citations, mode=why, memories=hits)
    # What the block's facts replaced (asked how things were before) is listed as no longer true.
    earlier = held_earlier(hits) | {("memory", h.id): None for h in hits if "replaced" in h.signals}
    listing = "\n".join(_listed(h, earlier, shared=caller.user_id is not None and h.end_user is None) for h in hits)
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
        profile = frozenset(h.id for h in got.profile)
        answer, citations = _extractive(
            question,
            hits,
            got.vector,
            end_user_id=caller.end_user_id,
            profile=profile,
            second=got.multilingual_vector,
            user_id=caller.user_id,
        )
        return Answer(answer=answer, citations=citations, mode=f"extractive (LLM failed: {exc})", memories=hits)
    # Only memories that were actually given to the model can be cited.
    citations = [c for c in (_as_int(x) for x in cited) if c in given]
    return Answer(answer=answer.strip(), citations=sorted(set(citations)), mode="llm", memories=hits)


def _listed(hit: Hit, earlier: dict, shared: bool = False) -> str:
    """A memory for the model: each statement of a turn with its own id (so the one relied on is cited), one held
    earlier said so, and one ``shared`` (of no end user, asked for one) said so; an insight, not citable."""
    if hit.type != "memory":
        return f"[{'conversation turn' if hit.type == 'turn' else 'insight'}, not citable] {hit.text}"
    return "\n".join(
        f"[{pk}] {'(shared) ' if shared else ''}{'(earlier, no longer true) ' if ('memory', pk) in earlier else ''}"
        f"{text}"
        for pk, text in hit.parts or [(hit.id, hit.text)]
    )


def _as_int(value) -> int | None:
    try:
        return int(str(value).strip().lstrip("[m").rstrip("]"))
    except (TypeError, ValueError):
        return None
