"""`python -m benchmarks ask_weights [--cached]`: fit the weights of offline ask's ranking
(memories/recall/answer_ranking.py) on the development sets, and measure each set with weights fitted on the others.

Each development set (the truth sets read while tuning, padded with everyday chat as the truth benchmark pads them,
and the language sets read while tuning: the development sets, and those sealed sets read once newer ones replaced
them) is posted to a fresh product offline, as the truth benchmark does. Then, for each
question, every statement ask weighs is measured by the product's own code (memories.recall.answers.ask_candidates)
and labelled by whether it names the needed fact. ``--cached`` reuses the measures of an earlier run
(var/ask_weights/), to fit again without posting again.

The weights are those of a listwise model: a statement's score is the weighted sum of its measures, and the fit
makes the statements that name the fact score above the others of their question (softmax over each question's
statements, L2-regularised, by gradient descent). What it prints, per set: how often the best-scored statement that
answers at all names the fact (a lower bound of what ask names: ask quotes a second statement and later ones too),
with the product's weights (in-sample for every set) and with weights fitted on the other sets (held out: the
honest figure), and how often it names instead a value the fact replaced (the question's ``stale``: a measure that
names more facts may name more replaced values too; 0 from a cache written before stop 75, which did not label
them). Then the weights fitted on all sets, to write into answer_ranking.WEIGHTS. The sealed sets are never used.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from benchmarks import harness, truth
from benchmarks.truth_cases import CASE_FILES, load, padded, sealed
from benchmarks.truth_score import COMPOUNDING, holds

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).parent
# Every set read while tuning (not sealed).
SETS = {name: path for name, path in CASE_FILES.items() if not sealed(load(path))} | {
    f"lang-{folder.name.removeprefix('language_cases_')}-{code}": folder / f"{code}.json"
    for folder in sorted(HERE.glob("language_cases_*"))
    for code in ("es", "de", "fr", "pt")
    if (folder / f"{code}.json").exists() and not sealed(load(folder / f"{code}.json"))
}
CACHE = ROOT / "var" / "ask_weights"
# The fit: L2 weight, steps and rate of gradient descent on standardised measures.
L2, STEPS, RATE = 1e-2, 500, 0.3


def run() -> dict:
    env = harness.configure("kbsite_ask_weights")
    from memories.recall.answer_ranking import WEIGHTS

    CACHE.mkdir(parents=True, exist_ok=True)
    measured = {}
    for name, path in SETS.items():
        cached = CACHE / f"{name}.json"
        if "--cached" not in sys.argv[1:] or not cached.exists():
            print(f"\n==== {name} ====", flush=True)
            cached.write_text(json.dumps(_measure(path, env)))
        measured[name] = json.loads(cached.read_text())
    names = list(WEIGHTS)
    print("\n== ask_weights: the best statement that answers names the fact (questions), or a value it replaced ==")
    width = max(map(len, SETS)) + 2
    print(f"  {'set':<{width}}{'questions':>10}{'product':>10}{'held out':>10}{'replaced':>10}{'held out':>10}")
    totals = np.zeros(5, int)
    for name in SETS:
        fitted = fit([q for other, qs in measured.items() if other != name for q in qs], names)
        qs = measured[name]
        row = np.array(
            [len(qs), best_names(qs, WEIGHTS), best_names(qs, fitted)]
            + [best_replaced(qs, WEIGHTS), best_replaced(qs, fitted)]
        )
        totals += row
        print(f"  {name:<{width}}" + "".join(f"{n:>10}" for n in row))
    print(f"  {'all':<{width}}" + "".join(f"{n:>10}" for n in totals))
    weights = fit([q for qs in measured.values() for q in qs], names)
    print("\nfitted on all sets (answer_ranking.WEIGHTS):\n" + json.dumps(weights, indent=4))
    return {"product": int(totals[1]), "held_out": int(totals[2]), "questions": int(totals[0])}


def _measure(path: Path, env: dict) -> list[dict]:
    """Each question of the set at ``path``: its statements' measures, whether each answers at all, whether each
    names the fact or a value it replaced (the question's ``stale``), and which hit each is of (what it came with,
    how it was found), for measures weighed on the cache before they are built."""
    cases = load(path)
    if path.name.startswith("truth_cases"):  # a language set's own chat is longer than the block
        cases = padded(cases)
    with truth.ingested(cases, env, "offline"):
        from kbsite.caller import Caller
        from kbsite.models import EndUser, KnowledgeBase
        from memories.recall.answers import ask_candidates

        kb = KnowledgeBase.objects.get(name=truth.KB)
        compounds = cases.get("language", "en") in COMPOUNDING
        out = []
        for q in cases["questions"]:
            end_user = EndUser.objects.get(bot_id=kb.bot_id, external_id=q["user_id"])
            caller = Caller(bot=kb.bot, user_id=q["user_id"], end_user=end_user)
            candidates = ask_candidates(kb=kb, question=q["question"], caller=caller)
            out.append(
                [
                    {
                        "m": c.measures,
                        "answers": c.answers,
                        "names": holds(c.text, q["expect"], history=True, compounds=compounds),
                        "text": c.text,
                        "question": q["question"],
                        # for measures weighed on the cache: which hit it is of, what it came with, how it was found
                        "pk": c.pk,
                        "hit": c.hit.id,
                        "follows": c.hit.follows,
                        "signals": list(c.hit.signals),
                        "stale": bool(q.get("stale")) and holds(c.text, q["stale"], history=True, compounds=compounds),
                    }
                    for c in candidates
                ]
            )
        return out


def best_names(questions: list[list[dict]], weights: dict[str, float]) -> int:
    """Of ``questions``, how many have, as their best-scored statement that answers at all, one naming the fact."""
    return sum(best["names"] for best in _bests(questions, weights))


def best_replaced(questions: list[list[dict]], weights: dict[str, float]) -> int:
    """Of ``questions``, how many have, as their best-scored statement that answers at all, one naming a value the
    fact replaced and not the fact (0 for a cache that did not label them)."""
    return sum(best.get("stale", False) and not best["names"] for best in _bests(questions, weights))


def _bests(questions: list[list[dict]], weights: dict[str, float]) -> list[dict]:
    """Each question's best-scored statement that answers at all (none for a question where none does)."""
    out = []
    for statements in questions:
        answering = [s for s in statements if s["answers"]]
        if answering:
            out.append(max(answering, key=lambda s: sum(weights[n] * s["m"][n] for n in weights)))
    return out


def fit(questions: list[list[dict]], names: list[str]) -> dict[str, float]:
    """Weights under which, question by question, the statements naming the fact score above the others (of those
    that answer at all): softmax over each question's statements, the log-likelihood of those naming it."""
    lists = []
    for statements in questions:
        answering = [s for s in statements if s["answers"]]
        labels = np.array([s["names"] for s in answering], float)
        if labels.any():
            lists.append((np.array([[s["m"][n] for n in names] for s in answering], float), labels))
    every = np.vstack([x for x, _ in lists])
    mean, spread = every.mean(0), every.std(0) + 1e-6
    lists = [((x - mean) / spread, labels) for x, labels in lists]
    w = np.zeros(len(names))
    for _ in range(STEPS):
        gradient = np.zeros_like(w)
        for x, labels in lists:
            scores = x @ w
            p = np.exp(scores - scores.max())
            p /= p.sum()
            wanted = p * labels
            gradient += x.T @ (p - wanted / wanted.sum())
        w -= RATE * (gradient / len(lists) + L2 * w)
    return {n: round(float(v), 3) for n, v in zip(names, w / spread, strict=True)}
