"""Whether an LLM's extraction reply can be trusted: every fact cites turns of its batch and shares words with them.

A small or confused model answers with the prompt's own placeholder ("..."), with turn or memory ids it was never
shown, or without the keys asked for; taken as it came, its turns would be marked extracted with nothing, or
something made up, stored. Such a reply is malformed: it is retried, then the run fails with the reason and the
turns stay for a retry. A fact that cites its turns but shares no word with them is dropped and counted (rejected).
"""

from __future__ import annotations

from kbsite import languages
from kbsite.ai import llm
from memories.text import content_words, stems


class Grounding:
    """The batch an extraction reply must be grounded in: its turns (by ref, with their words and speakers) and the
    live facts the model was shown."""

    def __init__(self, turns: list, live_ids: set[int]):
        self.refs = [t.ref for t in turns]
        self.words = {t.ref: stems(content_words(f"{t.speaker} {t.text}")) for t in turns}
        self.live_ids = live_ids

    def cited(self, n: int, text: str, cites: list[str]) -> list[str]:
        """The turns fact ``n`` cites (a batch of one turn is cited by a fact that names none); raises LLMBadReply
        for placeholder text, or a citation of no turn of the batch."""
        if languages.current().words.PLACEHOLDER.match(text.strip()):
            raise llm.LLMBadReply(f"fact {n} is a placeholder, not a fact: {text[:60]!r}")
        unknown = [ref for ref in cites if ref not in self.words]
        if unknown:
            raise llm.LLMBadReply(f"fact {n} cites turns not in this batch: {unknown[:5]}")
        if not cites and len(self.refs) != 1:
            raise llm.LLMBadReply(f"fact {n} cites none of the batch's turns (source_turns is empty)")
        return list(dict.fromkeys(cites)) or self.refs

    def superseded(self, n: int, memory_id: int) -> int:
        """The live fact a superseding fact replaces; raises LLMBadReply for an id the model was not shown."""
        if memory_id not in self.live_ids:
            raise llm.LLMBadReply(f"supersede {n} names fact {memory_id}, which is not among the live facts shown")
        return memory_id

    def shares_words(self, text: str, refs: list[str]) -> bool:
        """Whether the fact shares a word (its first five letters) with the turns it cites, their speakers included."""
        said = set().union(*(self.words[ref] for ref in refs))
        return bool(stems(content_words(text)) & said)


def required_keys(data: dict) -> None:
    """A reply without the list of facts to add is not "nothing to save": it is malformed."""
    if not isinstance(data, dict) or "add" not in data:
        raise llm.LLMBadReply("extraction reply has no 'add' list (write \"add\": [] when nothing is worth saving)")
