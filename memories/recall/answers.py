"""Ask: an answer drawn from recalled memories, citing the ids it used."""

from __future__ import annotations

from dataclasses import dataclass

from kbsite.ai import llm
from kbsite.caller import Caller
from kbsite.models import KnowledgeBase
from kbsite.stats import stats_add
from memories.recall import Hit, RecallQuery, recall
from memories.text import SENTENCE, content_words

ASK_SYSTEM = """You answer questions about a user and their world from the memories you are given, and nothing else.
Each memory has an id. Cite the ids of the memories your answer relies on. If the memories do not contain the
answer, say you do not know and cite nothing.
Return STRICT JSON: {"answer": "...", "citations": [<memory id>, ...]}"""


@dataclass
class Answer:
    answer: str
    citations: list[int]
    mode: str
    memories: list[Hit]


def _extractive(question: str, hits: list[Hit]) -> tuple[str, list[int]]:
    """Offline: the sentence of the top memories that shares most words with the question."""
    wanted = set(content_words(question))
    best: tuple[float, str, int] | None = None
    for rank, hit in enumerate(h for h in hits if h.type == "memory"):
        if rank >= 3:
            break
        for sentence in SENTENCE.split(hit.text):
            overlap = len(wanted & set(content_words(sentence)))
            score = overlap - rank * 0.5
            if best is None or score > best[0]:
                best = (score, sentence.strip(), hit.id)
    if best is None:
        return "I don't remember anything about that.", []
    return best[1], [best[2]]


def kb_ask(
    *,
    kb: KnowledgeBase,
    question: str,
    k: int = 8,
    budget_chars: int = 4000,
    session_id: str | None = None,
    caller: Caller,
) -> Answer:
    """An answer from the memories the caller's end user may see (their own and the shared ones), citing them."""
    hits = recall(
        RecallQuery(kbs=(kb,), text=question, k=k, budget_chars=budget_chars, end_user_id=caller.end_user_id)
    )
    given = {h.id for h in hits if h.type == "memory"}
    if not llm.is_configured() or not given:
        answer, citations = _extractive(question, hits)
        return Answer(answer=answer, citations=citations, mode="extractive", memories=hits)
    listing = "\n".join(
        f"[{h.id}] {h.text}" if h.type == "memory" else f"[insight, not citable] {h.text}" for h in hits
    )
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
        answer, citations = _extractive(question, hits)
        return Answer(answer=answer, citations=citations, mode=f"extractive (LLM failed: {exc})", memories=hits)
    # Only memories that were actually given to the model can be cited.
    citations = [c for c in (_as_int(x) for x in cited) if c in given]
    return Answer(answer=answer.strip(), citations=sorted(set(citations)), mode="llm", memories=hits)


def _as_int(value) -> int | None:
    try:
        return int(str(value).strip().lstrip("[m").rstrip("]"))
    except (TypeError, ValueError):
        return None
