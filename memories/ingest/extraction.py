"""Turning turns and text into atomic facts: the LLM and offline extractors.

The one-call LLM extractor (seed 003's prompt) with a validated reply, and the offline heuristic extractor (salient
turns kept whole, through the salience gate of :mod:`memories.text`). Nothing here writes to the database; see
ingest/apply.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, Field, ValidationError, field_validator

from kbsite import languages
from kbsite.ai import llm, splitting
from knowledge import files
from memories.ingest import grounding
from memories.ingest.statements import one_each, slots_of
from memories.text import ANSWERING, SENTENCE, content_words, entities_guess, is_salient, statements_of, topics_guess

KINDS = ["user_profile", "preference", "project", "fact", "env", "event"]

# A long turn becomes several memories of at most this many characters.
SEGMENT_CHARS = 600


@dataclass
class Turn:
    """One unit fed to extraction: a chat message, or a segment of ingested text."""

    ref: str
    text: str
    speaker: str = ""
    role: str = "user"
    when: datetime | None = None
    message_id: int | None = None
    metadata: dict = field(default_factory=dict)
    language: str = ""  # its code as told ("es"); empty: the language in force


@dataclass
class Fact:
    text: str
    kind: str = "fact"
    entities: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    importance: float = 0.5
    valid_from: datetime | None = None
    turn_refs: list[str] = field(default_factory=list)
    supersedes: int | None = None
    own: bool = False  # the text is its speaker's own words (offline, from a user's turn): read in the first person


@dataclass
class Extraction:
    facts: list[Fact]
    edges: list[tuple[str, str, str]]
    mode: str
    tokens_in: int = 0
    tokens_out: int = 0
    rejected: int = 0


# --- Heuristic (offline) extractor -----------------------------------------------


def _kind(text: str, own: bool | None = None) -> str:
    """A preference or a fact of the speaker's profile as its sentences state them (not as they ask: "Remind me
    what I'm allergic to?"), in the language in force: a wording of the language's own, or an attribute its reader
    finds (where one lives, works, as what). Saying how one is ("I'm so tired today") is not a profile, nor liking
    what was just said ("Short and to the point, I like it."): a clause that is only that is left out."""
    words = languages.current().words
    stated = " ".join(s for s in words.ANY_SENTENCE.split(text) if not s.rstrip().endswith("?"))
    stated = CLAUSE.sub(lambda m: "" if words.REACTION.fullmatch(m[0].strip()) else m[0], stated)
    if words.PREFERENCE.search(stated):
        return "preference"
    if words.PROFILE.search(stated) or any(not slot.startswith(GENERIC_SLOTS) for slot in slots_of(stated, own=own)):
        return "user_profile"
    return "fact"


# A clause: the words between two marks of punctuation (an opening "¡" or "¿" too).
CLAUSE = re.compile(r"[^.,;:!?¡¿…]+")
# A reader's attributes that say no more than a wording does ("is tired", "likes tea"): not a profile by themselves.
GENERIC_SLOTS = ("is ", "likes ", "favourite ")


# The most content words of an answer that keeps the question it answers.
ANSWER_WORDS = 8


def _question_of(text: str) -> str:
    """The question a bot's turn ends on, if it does and it is short ("Any allergies I should know about?")."""
    last = SENTENCE.split(text.strip())[-1].strip() if text.strip() else ""
    return last if last.endswith("?") and len(last) <= 120 else ""


def extract_heuristic(turns: list[Turn]) -> Extraction:
    """Keep each statement of a salient turn (a sentence, or a clause with a subject of its own; of a user's, each
    part stating an attribute of its own: memories.ingest.statements.one_each) as a memory,
    attributed, dated and citing its turn: one statement can be retired (the user moved) without the others (their
    allergy). A short answer to the bot's question keeps the question with it ("Kiwi fruit, weirdly (answering: Any
    allergies I should know about?)"): alone it says nothing of what it answers."""
    facts: list[Fact] = []
    asked = ""
    for turn in turns:
        # The bot's own replies ("Happy birthday!", "Want a training plan?") echo or ask: offline they are not
        # memories of the user (they stay stored as turns); an LLM reads them for what they establish.
        if turn.role == "assistant":
            asked = _question_of(turn.text)
            continue
        question, asked = asked, ""
        with languages.override(turn.language):  # read in the turn's own language
            facts += _turn_facts(turn, question)
    return Extraction(facts=facts, edges=[], mode="heuristic")


def _turn_facts(turn: Turn, question: str) -> list[Fact]:
    """The statements of one user turn, each a fact (the first with the bot's question it answers, if short)."""
    facts: list[Fact] = []
    if not kept(turn):
        return facts
    parts = _sections(turn.text) if turn.role == "document" else [("", turn.text)]
    segments = [
        f"{heading}: {s}" if heading else s
        for heading, body in parts
        for piece in splitting.pieces(body, SEGMENT_CHARS)
        for said in statements_of(piece)
        for s in (one_each(said, own=True) if turn.role == "user" else [said])
    ]
    for n, segment in enumerate(segment for segment in segments if kept(turn, segment)):
        kind = _kind(segment, own=turn.role == "user" or None)
        if n == 0 and question and len(content_words(segment)) <= ANSWER_WORDS:
            segment = f"{segment}{ANSWERING}{question})"
        facts.append(
            Fact(
                text=f"{turn.speaker}: {segment}" if turn.speaker else segment,
                kind=kind,
                entities=entities_guess(segment, turn.speaker),
                topics=topics_guess(segment),
                importance=0.6 if kind != "fact" else 0.5,
                valid_from=turn.when,
                turn_refs=[turn.ref],
                own=turn.role == "user",
            )
        )
    return facts


def kept(turn: Turn, text: str | None = None) -> bool:
    """Whether ``turn`` (or ``text`` of it) is read for memories, by the LLM or offline: it is salient (memories.text),
    or, a user's, it states an attribute of theirs however few its words ("Work as a paramedic now."). Read in the
    turn's language."""
    text = turn.text if text is None else text
    if is_salient(text, turn.language):
        return True
    with languages.override(turn.language):
        return turn.role == "user" and bool(slots_of(text, own=True))


def _sections(text: str) -> list[tuple[str, str]]:
    """A document's text as (heading, what it heads; knowledge.files.heading): a heading is the context of the
    sentences under it, not a part of the first of them."""
    out: list[tuple[str, list[str]]] = [("", [])]
    lines = text.splitlines()
    for n, line in enumerate(lines):
        if title := files.heading(lines, n):
            out.append((title, []))
        else:
            out[-1][1].append(line)
    return [(heading, "\n".join(body).strip()) for heading, body in out if "\n".join(body).strip()]


# --- LLM extractor -------------------------------------------------------------------

SYSTEM_PROMPT = """You maintain a long-term memory of durable facts about the people in a conversation and their world.
You will see new conversation turns (or a piece of a document) and the facts already in memory.

Extract only DURABLE facts worth remembering across sessions:
  - identity, preferences, relationships, plans, events with their dates, recurring corrections
  - stable project/environment conventions and tool quirks
Write each as ONE atomic declarative fact in the third person, naming the person (never "I" or "the user" when a name
is known). Resolve relative dates ("yesterday", "last week") against the turn's date and write the absolute date.
Write each fact in the language of the turns it comes from (a Spanish turn gives a Spanish fact): never translate.
  GOOD: "Alice prefers concise answers without preamble."   GOOD: "Bob adopted a dog named Rex in May 2023."
  BAD (imperative): "Always answer concisely."   BAD (procedure): "Run tests with pytest -n 4."
  BAD (stale artifact): "Fixed bug #4821."  "Opened PR 90."
Procedures, greetings and small talk are NOT memory. Never store passwords, API keys or tokens.

SUPERSEDE: if a new fact CONTRADICTS an existing one (same subject, changed value), emit it under "supersede" with the
id of the fact it replaces. Prefer the newer information. Never supersede a fact that is merely related.
Tag each fact with 1-4 lowercase entity keywords (people, places, tools, projects) and 1-3 lowercase topics.
"source_turns" lists the ids of the turns (e.g. "m12") the fact comes from.

EDGES (optional, light): if a turn states a clear RELATIONSHIP between two entities you tagged, emit it under
"edges" as {"src","relation","dst"} with a short lowercase relation (e.g. uses, works_at, lives_in, married_to).
Omit when unsure.

Return STRICT JSON, no prose:
{ "add": [ {"text": "...", "kind": "user_profile|preference|project|fact|env|event", "entities": ["..."],
            "topics": ["..."], "importance": 0.0-1.0, "valid_from": "<ISO8601 or null>", "source_turns": ["m1"]} ],
  "supersede": [ {"id": <existing fact id>, "by_text": "...", "kind": "...", "entities": ["..."],
                  "topics": ["..."], "source_turns": ["m1"]} ],
  "edges": [ {"src": "...", "relation": "...", "dst": "..."} ] }
If nothing is worth saving, return {"add": [], "supersede": [], "edges": []}."""


def _clean_tags(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        tag = re.sub(r"\s+", " ", str(value)).strip().lower()[:200]
        if tag and tag not in out:
            out.append(tag)
    return out[:8]


class _AddItem(BaseModel):
    text: str = Field(min_length=3, max_length=2000)
    kind: str = "fact"
    entities: list[str] = []
    topics: list[str] = []
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    valid_from: datetime | None = None
    source_turns: list[str] = []

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value):
        value = str(value or "fact").strip().lower()
        return value if value in KINDS else "fact"

    @field_validator("valid_from", mode="before")
    @classmethod
    def _date(cls, value):
        # Models write "null", "", or unparsable dates; a missing date is fine, a wrong one is dropped.
        if value in (None, "", "null", "unknown"):
            return None
        try:
            from django.utils.dateparse import parse_date, parse_datetime

            parsed = parse_datetime(str(value))
            if parsed is None and (day := parse_date(str(value))):
                parsed = datetime(day.year, day.month, day.day)
            return parsed
        except (TypeError, ValueError):
            return None

    @field_validator("entities", "topics", "source_turns", mode="before")
    @classmethod
    def _list(cls, value):
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value if v is not None]


class _SupersedeItem(_AddItem):
    id: int
    text: str = Field(default="", alias="by_text", max_length=2000)

    model_config = {"populate_by_name": True}


class _Edge(BaseModel):
    src: str = Field(min_length=1, max_length=200)
    relation: str = Field(min_length=1, max_length=100)
    dst: str = Field(min_length=1, max_length=200)


class _Reply(BaseModel):
    add: list[_AddItem] = []
    supersede: list[_SupersedeItem] = []
    edges: list[_Edge] = []


def _strict(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_TAGS = {"type": "array", "items": {"type": "string"}}
_FACT = {
    "text": {"type": "string"},
    "kind": {"type": "string", "enum": KINDS},
    "entities": _TAGS,
    "topics": _TAGS,
    "importance": {"type": "number"},
    "valid_from": {"type": ["string", "null"]},
    "source_turns": _TAGS,
}
# The reply asked of the model, as a strict JSON schema (where the endpoint takes one; see kbsite.ai.llm).
REPLY_SCHEMA = _strict(
    {
        "add": {"type": "array", "items": _strict(_FACT)},
        "supersede": {
            "type": "array",
            "items": _strict(
                {
                    "id": {"type": "integer"},
                    "by_text": {"type": "string"},
                    **{k: v for k, v in _FACT.items() if k != "text"},
                }
            ),
        },
        "edges": {
            "type": "array",
            "items": _strict({"src": {"type": "string"}, "relation": {"type": "string"}, "dst": {"type": "string"}}),
        },
    }
)


def render_user_message(*, turns: list[Turn], live_facts: list[tuple[int, str, str]], now: datetime) -> str:
    live = "\n".join(f"{pk} | {kind} | {text}" for pk, kind, text in live_facts) or "(none)"
    lines = []
    for turn in turns:
        when = f" ({turn.when:%Y-%m-%d %H:%M})" if turn.when else ""
        who = f"{turn.speaker} [{turn.role}]" if turn.speaker else turn.role
        lines.append(f"[{turn.ref}] {who}{when}: {turn.text}")
    return (
        f"Reference timestamp: {now.isoformat()}\n"
        f"Existing live facts (id | kind | text):\n{llm.untrusted('memory', live)}\n\n"
        f"New turns:\n{llm.untrusted('conversation', chr(10).join(lines))}"
    )


def parse_reply(data: dict, *, turns: list[Turn], live_ids: set[int]) -> tuple[list[Fact], list, int]:
    """Validate the model's JSON. Raises LLMBadReply when its shape is wrong or it is not grounded in the batch
    (a placeholder, a turn or fact id it was not shown, no 'add' list: see ingest.grounding); a fact sharing no
    word with the turns it cites is dropped and counted as rejected."""
    grounding.required_keys(data)
    try:
        reply = _Reply.model_validate(data)
    except ValidationError as exc:
        raise llm.LLMBadReply(f"extraction reply does not match the schema: {exc.errors()[:3]}") from exc
    ground = grounding.Grounding(turns, live_ids)
    when = {t.ref: t.when for t in turns if t.when}
    default_when = max(when.values(), default=None)
    facts: list[Fact] = []

    def fact_from(n: int, item: _AddItem, supersedes: int | None = None) -> Fact:
        turn_refs = ground.cited(n, item.text, item.source_turns)
        # Without a date from the model, the fact is as old as its own source turns (the last of them).
        own_when = max((when[r] for r in turn_refs if r in when), default=default_when)
        return Fact(
            text=item.text.strip(),
            kind=item.kind,
            entities=_clean_tags(item.entities),
            topics=_clean_tags(item.topics),
            importance=item.importance,
            valid_from=item.valid_from or own_when,
            turn_refs=turn_refs,
            supersedes=supersedes,
        )

    for n, item in enumerate(reply.add):
        facts.append(fact_from(n, item))
    for n, item in enumerate(reply.supersede):
        facts.append(fact_from(n, item, supersedes=ground.superseded(n, item.id)))
    grounded = [f for f in facts if ground.shares_words(f.text, f.turn_refs)]
    edges = [
        (e.src.strip().lower(), e.relation.strip().lower().replace(" ", "_"), e.dst.strip().lower())
        for e in reply.edges
    ]
    return grounded, edges, len(facts) - len(grounded)


def extract_llm(*, turns: list[Turn], live_facts: list[tuple[int, str, str]], now: datetime) -> Extraction:
    """One LLM call for the whole batch, retried a bounded number of times with backoff.

    The tokens of every attempt are counted: on the Extraction, or on the error that ends the retries.
    """
    user = render_user_message(turns=turns, live_facts=live_facts, now=now)
    live_ids = {pk for pk, _, _ in live_facts}
    spent = [0, 0]

    def count(tokens_in: int, tokens_out: int) -> None:
        spent[0] += tokens_in
        spent[1] += tokens_out

    try:
        facts, edges, rejected = llm.complete_validated(
            system=SYSTEM_PROMPT,
            user=user,
            validate=lambda data: parse_reply(data, turns=turns, live_ids=live_ids),
            schema=REPLY_SCHEMA,
            usage=count,
        )
    except llm.LLMError as exc:
        exc.tokens = tuple(spent)
        raise
    return Extraction(facts=facts, edges=edges, mode="llm", tokens_in=spent[0], tokens_out=spent[1], rejected=rejected)
