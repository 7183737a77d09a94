"""The truth benchmark's padding (benchmarks/truth_cases.py): each user's history made longer than the block with
everyday chat that can neither hold a fact nor present a stale one."""

from __future__ import annotations

import json

from benchmarks.truth_cases import padded, user_chars

CASES = {
    "users": [
        {
            "user_id": "rosa",
            "sessions": [
                {"date": "2025-01-01T10:00:00Z", "turns": [{"role": "user", "text": "I rent a flat in Leeds."}]},
                {"date": "2025-05-01T10:00:00Z", "turns": [{"role": "user", "text": "Got the keys in Glasgow!"}]},
            ],
        }
    ],
    "questions": [{"user_id": "rosa", "question": "Where?", "expect": ["Glasgow"], "stale": ["Leeds"]}],
}


def _filler(tmp_path):
    conversations = [
        {
            "turns": [
                {"role": "user", "text": f"Rainy day number {n}, tea and a film."},
                {"role": "assistant", "text": "Nice."},
            ]
        }
        for n in range(200)
    ] + [{"turns": [{"role": "user", "text": "Leeds looks grey on the news."}]}] * 50
    path = tmp_path / "filler.json"
    path.write_text(json.dumps({"conversations": conversations}))
    return path


def test_each_user_is_padded_past_the_budget_before_their_own_turns_and_always_alike(tmp_path):
    """The user says at least the asked characters; the case's own turns stay last in each session, in order;
    the same user gets the same padding twice."""
    out = padded(CASES, _filler(tmp_path), chars=1500)
    (user,) = out["users"]
    assert user_chars(user) >= 1500
    assert [s["turns"][-1]["text"] for s in user["sessions"]] == ["I rent a flat in Leeds.", "Got the keys in Glasgow!"]
    assert all(len(s["turns"]) > 1 for s in user["sessions"])
    assert out == padded(CASES, _filler(tmp_path), chars=1500)
    assert user_chars(CASES["users"][0]) < 100  # the cases themselves are untouched


def test_padding_never_names_a_value_a_question_expects_or_replaced(tmp_path):
    """A padding turn naming a question's stale or expected value is left out."""
    out = padded(CASES, _filler(tmp_path), chars=5000)
    padding = [t["text"] for s in out["users"][0]["sessions"] for t in s["turns"][:-1]]
    assert padding and not [text for text in padding if "Leeds" in text]
