"""The truth benchmark's case files: which there are, loading and checking one, and padding each user's history with
everyday chat so that it is longer than the context block and the block must choose.

A case file (``truth_cases*.json``) holds end users, each with dated sessions of turns (``facts`` on a user turn are
what a good extractor writes for it, ``supersedes`` naming the earlier fact a new one replaces), and questions with
``expect`` (the needed fact) and ``stale`` (values replaced since). A file with ``"sealed": true`` was never read by
the team: the benchmark prints its figures and nothing of its cases.

The padding (``truth_filler.json``, everyday chat of our own that states no lasting fact) goes before each session's
own turns until a user has said ``FILL_CHARS`` characters; a padding turn that names any value a question of the file
expects or replaces is left out, so the padding can neither hold a fact nor present a stale one.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from benchmarks.truth_score import names_any

HERE = Path(__file__).parent
CASES = HERE / "truth_cases.json"
CASE_FILES = {
    "default": CASES,
    "heldout": HERE / "truth_cases_heldout.json",
    "fresh": HERE / "truth_cases_fresh.json",
    "unseen": HERE / "truth_cases_unseen.json",
    "novel": HERE / "truth_cases_novel.json",
    "sealed": HERE / "truth_cases_sealed.json",
    "probe": HERE / "truth_cases_probe.json",
    "blind": HERE / "truth_cases_blind.json",
    "sealed2": HERE / "truth_cases_sealed2.json",
    "sealed3": HERE / "truth_cases_sealed3.json",
    "probe2": HERE / "truth_cases_probe2.json",
    "probe3": HERE / "truth_cases_probe3.json",
    "sealed4": HERE / "truth_cases_sealed4.json",
    "sealed5": HERE / "truth_cases_sealed5.json",
    "sealed6": HERE / "truth_cases_sealed6.json",
    "probe4": HERE / "truth_cases_probe4.json",
    "sealed7": HERE / "truth_cases_sealed7.json",
    "sealed8": HERE / "truth_cases_sealed8.json",
    "sealed9": HERE / "truth_cases_sealed9.json",
    "sealed10": HERE / "truth_cases_sealed10.json",
    "sealed11": HERE / "truth_cases_sealed11.json",
}
FILLER = HERE / "truth_filler.json"
# What each user has said, padding included, at least: more than the 4,000-character block can hold.
FILL_CHARS = 6000


def load(path: Path = CASES) -> dict:
    """The case file, checked: every question's user exists, every ``supersedes`` names an earlier fact of the same
    user, and a turn that carries facts says something no other such turn says (the replay finds facts by text)."""
    data = json.loads(path.read_text())
    users = {u["user_id"]: u for u in data["users"]}
    texts: set[str] = set()
    for user in data["users"]:
        seen: set[str] = set()
        dates = [s["date"] for s in user["sessions"]]
        assert dates == sorted(dates), f"{user['user_id']}: sessions out of order"
        for session in user["sessions"]:
            for turn in session["turns"]:
                if turn.get("facts"):
                    assert turn["text"] not in texts, f"two turns with facts say {turn['text']!r}"
                    texts.add(turn["text"])
                for fact in turn.get("facts", []):
                    old = fact.get("supersedes")
                    assert old is None or old in seen, f"{fact['id']} supersedes {old}, not an earlier fact"
                    assert fact["id"] not in seen, f"fact id {fact['id']} twice"
                    seen.add(fact["id"])
    for question in data["questions"]:
        assert question["user_id"] in users, question
        assert question["expect"], question
    return data


def sealed(cases: dict) -> bool:
    return bool(cases.get("sealed"))


def user_chars(user: dict) -> int:
    return sum(len(t["text"]) for s in user["sessions"] for t in s["turns"] if t["role"] == "user")


def padded(cases: dict, filler_path: Path = FILLER, chars: int = FILL_CHARS) -> dict:
    """``cases`` with each user's sessions preceded by everyday chat until the user has said ``chars`` characters;
    the same file and user always get the same padding."""
    values = [v for q in cases["questions"] for v in q["expect"] + q.get("stale", [])]
    conversations = [
        [t for t in c["turns"] if not names_any(t["text"], values)]
        for c in json.loads(filler_path.read_text())["conversations"]
    ]
    out = {**cases, "users": []}
    for user in cases["users"]:
        need = chars - user_chars(user)
        chosen: list[list[dict]] = []
        order = list(conversations)
        random.Random(hashlib.sha256(user["user_id"].encode()).digest()).shuffle(order)
        for turns in order:
            if need <= 0:
                break
            chosen.append(turns)
            need -= sum(len(t["text"]) for t in turns if t["role"] == "user")
        sessions = [dict(s, turns=list(s["turns"])) for s in user["sessions"]]
        for n, turns in enumerate(chosen):
            session = sessions[n % len(sessions)]
            session["turns"] = [*turns, *session["turns"]]
        out["users"].append({**user, "sessions": sessions})
    return out
