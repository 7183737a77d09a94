"""The fit of offline ask's ranking weights (benchmarks/ask_weights.py): statements that name the fact come to score
above the others of their question, and only statements that answer at all are weighed."""

from __future__ import annotations

from benchmarks.ask_weights import best_names, fit


def _statement(named: float, close: float, names: bool, answers: bool = True) -> dict:
    return {"m": {"named": named, "close": close}, "answers": answers, "names": names}


def test_the_fit_weighs_the_measure_that_tells_the_fact_apart():
    """In each question the statement naming the fact names someone or something, and is not the closest in meaning:
    the fit weighs naming, and its best statement names the fact every time (by closeness alone, never)."""
    questions = [
        [_statement(1, 0.3, True), _statement(0, 0.4, False), _statement(0, 0.2, False)],
        [_statement(2, 0.2, True), _statement(0, 0.5, False)],
        [_statement(0, 0.6, False), _statement(1, 0.4, True), _statement(0, 0.1, False)],
    ]
    weights = fit(questions, ["named", "close"])
    assert weights["named"] > 0
    assert best_names(questions, weights) == 3
    assert best_names(questions, {"named": 0.0, "close": 1.0}) == 0


def test_a_statement_that_answers_nothing_is_never_the_best():
    """A statement ask would not quote (it answers nothing the question asks) is left out of the fit and of the
    count, however it scores."""
    questions = [[_statement(3, 0.9, True, answers=False), _statement(0, 0.1, False)]]
    assert best_names(questions, {"named": 1.0, "close": 1.0}) == 0
