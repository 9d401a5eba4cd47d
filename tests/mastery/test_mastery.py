"""BKT mastery: hand-computed updates, guess by kind, partial credit, replay, bounds."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzer.learning.mastery import (
    BKTParams,
    GradedAttempt,
    TopicMastery,
    guess_probability,
    mastered,
    posterior,
    replay,
    update,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
# p_init 0.2, learn 0.15, slip 0.1 and guess 0.25 (a four-option choice) throughout the hand arithmetic.
P = BKTParams(p_init=0.2, p_learn=0.15, p_slip=0.1, p_guess=0.25)


def attempt(key: str, verdict: str, score: float, minutes: int) -> GradedAttempt:
    return GradedAttempt(key=key, seed=1, verdict=verdict, score=score, seconds=30.0,
                         at=T0 + timedelta(minutes=minutes))


def test_correct_update_by_hand() -> None:
    # posterior = 0.2*0.9 / (0.2*0.9 + 0.8*0.25) = 0.18 / 0.38 = 0.473684...
    # learned   = 0.473684 + (1 - 0.473684) * 0.15 = 0.552632
    assert posterior(0.2, True, P) == pytest.approx(0.18 / 0.38)
    assert update(0.2, 1.0, P) == pytest.approx(0.18 / 0.38 + (1 - 0.18 / 0.38) * 0.15)
    assert update(0.2, 1.0, P) == pytest.approx(0.552632, abs=1e-6)


def test_incorrect_update_by_hand() -> None:
    # posterior = 0.2*0.1 / (0.2*0.1 + 0.8*0.75) = 0.02 / 0.62 = 0.032258...
    # learned   = 0.032258 + (1 - 0.032258) * 0.15 = 0.177419
    assert posterior(0.2, False, P) == pytest.approx(0.02 / 0.62)
    assert update(0.2, 0.0, P) == pytest.approx(0.177419, abs=1e-6)


def test_partial_score_mixes_the_two_posteriors() -> None:
    # mix     = 0.5 * 0.18/0.38 + 0.5 * 0.02/0.62 = 0.5 * 0.473684 + 0.5 * 0.032258 = 0.252971
    # learned = 0.252971 + (1 - 0.252971) * 0.15 = 0.365026
    assert update(0.2, 0.5, P) == pytest.approx(0.365026, abs=1e-6)
    # s = 0.25 weighs the incorrect posterior three times as much.
    mix = 0.25 * (0.18 / 0.38) + 0.75 * (0.02 / 0.62)
    assert update(0.2, 0.25, P) == pytest.approx(mix + (1 - mix) * 0.15)


def test_updates_move_the_right_way() -> None:
    assert update(0.5, 1.0, P) > 0.5
    assert update(0.5, 0.0, P) < 0.5
    assert update(0.5, 0.0, P) < update(0.5, 0.3, P) < update(0.5, 0.7, P) < update(0.5, 1.0, P)


@pytest.mark.parametrize(("kind", "n", "expected"), [
    ("choice", 4, 0.25), ("choice", 2, 0.5), ("bool", None, 0.5),
    ("multi", 3, 0.125), ("multi", 12, 0.1),  # 1/4096 is floored at 0.1
    ("number", None, 0.1), ("integer", None, 0.1), ("vector", None, 0.1), ("matrix", None, 0.1),
    ("shape", None, 0.1), ("expression", None, 0.1), ("text", None, 0.2),
])
def test_guess_by_kind(kind: str, n: int | None, expected: float) -> None:
    assert guess_probability(kind, n) == pytest.approx(expected)


@pytest.mark.parametrize(("kind", "n"), [("choice", None), ("choice", 1), ("multi", 0), ("essay", None)])
def test_guess_rejects_bad_kinds(kind: str, n: int | None) -> None:
    with pytest.raises(ValueError):
        guess_probability(kind, n)


def test_a_typed_answer_is_stronger_evidence_than_a_bool() -> None:
    typed = dataclasses.replace(P, p_guess=guess_probability("number"))
    coin = dataclasses.replace(P, p_guess=guess_probability("bool"))
    assert update(0.2, 1.0, typed) > update(0.2, 1.0, coin)


@pytest.mark.parametrize("bad", [
    {"p_slip": 0.0}, {"p_guess": 1.0}, {"p_init": 1.5}, {"p_learn": -0.1}, {"p_slip": 0.5, "p_guess": 0.5},
    {"p_init": float("nan")},
])
def test_params_are_validated(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        BKTParams(**bad)


@pytest.mark.parametrize(("p_known", "score"), [(1.2, 1.0), (0.5, -0.1), (0.5, float("nan"))])
def test_update_rejects_out_of_range(p_known: float, score: float) -> None:
    with pytest.raises(ValueError):
        update(p_known, score, P)


def test_mastered_threshold() -> None:
    assert mastered(0.95) and not mastered(0.9499)
    assert mastered(0.7, threshold=0.6)


def test_replay_multi_topic_history() -> None:
    topics = {"practice/mcq": ["softmax", "sdpa"], "practice/num": ["sdpa"], "practice/gone-later": ["ffn"]}
    kinds = {"practice/mcq": "choice", "practice/num": "number"}
    options = {"practice/mcq": 4}
    history = [  # given out of order: replay sorts by time
        attempt("practice/num", "incorrect", 0.0, minutes=5),
        attempt("practice/mcq", "correct", 1.0, minutes=0),
        attempt("practice/removed", "correct", 1.0, minutes=7),  # not in the bank any more: skipped
    ]
    result = replay(history, topics, kinds, options, BKTParams(p_init=0.2, p_learn=0.15, p_slip=0.1))

    # t=0, choice of 4 (guess 0.25), correct: both topics go 0.2 -> 0.552632 (as in test_correct_update_by_hand).
    softmax = result["softmax"]
    assert softmax.p_known == pytest.approx(0.552632, abs=1e-6)
    assert softmax == TopicMastery(p_known=softmax.p_known, attempts=1, correct=1, last_seen=T0)
    # t=5, number (guess 0.1), incorrect, on sdpa only:
    # posterior = 0.552632*0.1 / (0.552632*0.1 + 0.447368*0.9) = 0.0552632 / 0.4578947 = 0.120690
    # learned   = 0.120690 + 0.879310 * 0.15 = 0.252586
    sdpa = result["sdpa"]
    assert sdpa.p_known == pytest.approx(0.252586, abs=1e-5)
    assert (sdpa.attempts, sdpa.correct, sdpa.last_seen) == (2, 1, T0 + timedelta(minutes=5))
    assert "ffn" not in result  # never attempted: the caller uses p_init


def test_replay_reads_naive_times_as_utc_and_counts_partial_as_not_correct() -> None:
    naive = GradedAttempt("practice/tf", 3, "partial", 0.5, None, datetime(2025, 3, 1, 9, 0))
    result = replay([naive], {"practice/tf": ["softmax"]}, {"practice/tf": "bool"}, {})
    assert result["softmax"].last_seen == T0
    assert (result["softmax"].attempts, result["softmax"].correct) == (1, 0)


def test_replay_rejects_unknown_verdicts() -> None:
    with pytest.raises(ValueError, match="invalid"):
        replay([attempt("practice/num", "invalid", 0.0, 0)], {"practice/num": ["sdpa"]}, {"practice/num": "number"}, {})


def test_replay_of_nothing_is_empty() -> None:
    assert replay([], {}, {}, {}) == {}


probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
params = st.builds(BKTParams, p_init=probabilities, p_learn=probabilities,
                   p_slip=st.floats(min_value=1e-6, max_value=0.45), p_guess=st.floats(min_value=1e-6, max_value=0.5))


@given(p_known=probabilities, score=probabilities, bkt=params)
def test_update_stays_a_probability(p_known: float, score: float, bkt: BKTParams) -> None:
    assert 0.0 <= update(p_known, score, bkt) <= 1.0


@given(scores=st.lists(probabilities, max_size=40), bkt=params)
def test_long_histories_stay_probabilities(scores: list[float], bkt: BKTParams) -> None:
    p = bkt.p_init
    for score in scores:
        p = update(p, score, bkt)
        assert 0.0 <= p <= 1.0


def test_default_parameters_need_three_right_typed_answers_in_a_row_for_mastery() -> None:
    # p_init 0.1, learn 0.1, slip 0.1, typed guess 0.1:
    # 1st: 0.1*0.9 / (0.09 + 0.9*0.1) = 0.5,    + 0.5*0.1    = 0.55
    # 2nd: 0.55*0.9 / (0.495 + 0.45*0.1) = 0.916667, + 0.083333*0.1 = 0.925
    # 3rd: 0.925*0.9 / (0.8325 + 0.075*0.1) = 0.991071, + 0.008929*0.1 = 0.991964
    defaults = BKTParams(p_guess=guess_probability("number", None))
    seen = [BKTParams().p_init]
    for _ in range(3):
        seen.append(update(seen[-1], 1.0, defaults))
    assert seen == pytest.approx([0.1, 0.55, 0.925, 0.991964], abs=1e-6)
    assert [mastered(p) for p in seen] == [False, False, False, True]
