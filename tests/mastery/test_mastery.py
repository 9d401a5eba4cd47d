"""Mastery: the skill posterior checked by independent integration, the evidence weights, coverage, replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.learning import mastery
from quizzer.learning.mastery import (
    MASTERY_THRESHOLD,
    SLIP,
    GradedAttempt,
    MasteryParams,
    Tracker,
    guess_probability,
    replay,
    template_counts,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
U = np.linspace(0.5 / 20000, 1 - 0.5 / 20000, 20000)  # midpoints in u = s^a, where the Beta prior is smooth


def attempt(key: str, verdict: str, score: float, minutes: float) -> GradedAttempt:
    return GradedAttempt(key=key, seed=1, verdict=verdict, score=score, seconds=30.0,
                         at=T0 + timedelta(minutes=minutes))


def right(key: str, minutes: float) -> GradedAttempt:
    return attempt(key, "correct", 1.0, minutes)


def wrong(key: str, minutes: float) -> GradedAttempt:
    return attempt(key, "incorrect", 0.0, minutes)


def integrated_mean(observations: list[tuple[float, float, float]], params: MasteryParams = MasteryParams(),
                    fade: float = mastery.FADE) -> float:
    """E[s] under prior × Π (likelihood^weight), faded as the module says, by a 20000-point midpoint rule
    in u = s^a (s^(a-1) ds = du / a), independent of the module's 100-cell grid."""
    s = U ** (1 / params.prior_a)
    log_prior = (params.prior_b - 1) * np.log1p(-s)
    evidence = np.zeros_like(s)
    for score, guess, weight in observations:
        p = s * (1 - SLIP) + (1 - s) * guess
        evidence = fade * evidence + weight * (score * np.log(p) + (1 - score) * np.log(1 - p))
    density = np.exp(log_prior + evidence - (log_prior + evidence).max())
    return float((s * density).sum() / density.sum())


def tracked(history: list[GradedAttempt], topics: dict[str, tuple[str, ...]], kinds: dict[str, str],
            options: dict[str, int] | None = None) -> dict[str, mastery.TopicMastery]:
    return replay(history, topics, kinds, options or {})


def test_prior_mean_and_validation() -> None:
    assert MasteryParams().p_init == pytest.approx(0.2)
    for bad in ({"prior_a": 0.0}, {"prior_b": -1.0}, {"prior_a": float("nan")}):
        with pytest.raises(ValueError):
            MasteryParams(**bad)


@pytest.mark.parametrize(("kind", "n", "expected"), [
    ("choice", 4, 0.25), ("choice", 2, 0.5), ("bool", None, 0.5), ("multi", 3, 0.125),
    ("multi", 12, mastery.TYPED_GUESS), ("order", 3, 1 / 6), ("number", None, mastery.TYPED_GUESS),
    ("matrix", None, mastery.TYPED_GUESS), ("expression", None, mastery.TYPED_GUESS), ("text", None, 0.2),
])
def test_guess_by_kind(kind: str, n: int | None, expected: float) -> None:
    assert guess_probability(kind, n) == pytest.approx(expected)


@pytest.mark.parametrize(("kind", "n"), [("choice", None), ("choice", 1), ("multi", 0), ("essay", None)])
def test_guess_rejects_bad_kinds(kind: str, n: int | None) -> None:
    with pytest.raises(ValueError):
        guess_probability(kind, n)


def test_posterior_mean_matches_independent_quadrature() -> None:
    topics = {"a": ("t",), "b": ("t",), "c": ("t",)}
    kinds = {"a": "number", "b": "choice", "c": "bool"}
    history = [right("a", 0), wrong("b", 30 * 60), attempt("c", "partial", 0.5, 60 * 60)]  # hours apart: fresh
    state = tracked(history, topics, kinds, {"b": 4})["t"]
    expected = integrated_mean([(1.0, 0.05, 1.0), (0.0, 0.25, 1.0), (0.5, 0.5, 1.0)])
    assert state.p_known == pytest.approx(expected, abs=0.005)
    assert (state.attempts, state.correct) == (3, 1)


def test_a_right_typed_answer_is_stronger_evidence_than_a_right_bool() -> None:
    typed = tracked([right("a", 0)], {"a": ("t",)}, {"a": "number"})["t"].p_known
    coin = tracked([right("a", 0)], {"a": ("t",)}, {"a": "bool"})["t"].p_known
    assert typed > coin > MasteryParams().p_init


def test_answers_at_the_guessing_rate_lower_the_estimate() -> None:
    # Right half the time on true/false is what a coin does: no skill shown.
    history = [(right if i % 2 else wrong)(f"q{i}", i * 60 * 24) for i in range(10)]
    state = tracked(history, {f"q{i}": ("t",) for i in range(10)}, {f"q{i}": "bool" for i in range(10)})["t"]
    assert state.p_known < MasteryParams().p_init


def test_a_repeat_within_the_short_term_window_counts_less() -> None:
    topics, kinds = {"a": ("t",), "b": ("t",)}, {"a": "number", "b": "number"}
    repeated = tracked([right("a", 0), right("a", 20)], topics, kinds)["t"]
    fresh = tracked([right("a", 0), right("b", 20)], topics, kinds)["t"]
    next_day = tracked([right("a", 0), right("a", 60 * 25)], topics, kinds)["t"]
    assert repeated.p_known < fresh.p_known
    assert next_day.p_known == pytest.approx(fresh.p_known)
    assert repeated.p_known == pytest.approx(
        integrated_mean([(1.0, 0.05, 1.0), (1.0, 0.05, mastery.REPEAT_WEIGHT)]), abs=0.005)


def test_secondary_topics_move_half_as_far() -> None:
    state = tracked([right("a", 0)], {"a": ("main", "side")}, {"a": "number"})
    assert state["main"].p_known == pytest.approx(integrated_mean([(1.0, 0.05, 1.0)]), abs=0.005)
    assert state["side"].p_known == pytest.approx(integrated_mean([(1.0, 0.05, mastery.SECONDARY_WEIGHT)]),
                                                  abs=0.005)


def test_self_rated_recall_weighs_less_than_a_computed_answer() -> None:
    rated = tracked([right("a", 0)], {"a": ("t",)}, {"a": "text"})["t"]
    assert rated.p_known == pytest.approx(integrated_mean([(1.0, 0.2, mastery.SELF_RATED_WEIGHT)]), abs=0.005)


def test_one_question_repeated_never_masters_a_topic() -> None:
    topics = {f"q{i}": ("t",) for i in range(5)}
    kinds = {key: "number" for key in topics}
    state = tracked([right("q0", day * 60 * 24) for day in range(30)], topics, kinds)["t"]
    assert state.lower > MASTERY_THRESHOLD  # thirty days right: the evidence is strong ...
    assert not state.covered and not state.mastered  # ... but it is one question
    assert state.level == mastery.UNCOVERED_CAP < MASTERY_THRESHOLD


def test_coverage_needs_three_distinct_questions_and_a_computed_one() -> None:
    topics = {"c1": ("t",), "c2": ("t",), "c3": ("t",), "n": ("t",)}
    kinds = {"c1": "choice", "c2": "choice", "c3": "choice", "n": "number"}
    counts = template_counts(topics, kinds)
    recalled = Tracker(counts)
    for i, key in enumerate(("c1", "c2", "c3")):
        recalled.fold(right(key, i), topics[key], kinds[key], 4)
    assert not recalled.states["t"].covered  # three right, none computed
    recalled.fold(right("n", 3), topics["n"], kinds["n"], None)
    assert recalled.states["t"].covered


def test_a_small_topic_is_covered_by_all_its_questions() -> None:
    topics, kinds = {"only": ("t",)}, {"only": "bool"}
    state = tracked([right("only", 0)], topics, kinds)["t"]
    assert state.covered  # one question, not computed: all the topic has


def test_mastered_exactly_when_the_level_reaches_the_threshold() -> None:
    topics = {f"q{i}": ("t",) for i in range(12)}
    kinds = dict.fromkeys(topics, "number")
    tracker = Tracker(template_counts(topics, kinds))
    for i, key in enumerate(topics):
        tracker.fold(right(key, i * 60 * 24), ("t",), "number", None)
        state = tracker.states["t"]
        assert state.mastered == (state.level >= MASTERY_THRESHOLD)
    assert tracker.states["t"].mastered  # twelve different questions right, days apart


def test_replay_sorts_by_time_skips_removed_questions_and_reads_naive_times_as_utc() -> None:
    topics, kinds = {"a": ("t",), "b": ("t",)}, {"a": "number", "b": "bool"}
    naive = GradedAttempt("b", 3, "partial", 0.5, None, datetime(2025, 3, 1, 9, 30))
    result = replay([naive, right("a", 0), right("gone", 5)], topics, kinds, {})
    assert result["t"].last_seen == T0 + timedelta(minutes=30)
    assert (result["t"].attempts, result["t"].correct) == (2, 1)
    assert replay([], {}, {}, {}) == {}


@pytest.mark.parametrize("bad", [attempt("a", "invalid", 0.0, 0), attempt("a", "correct", 1.5, 0)])
def test_replay_rejects_bad_attempts(bad: GradedAttempt) -> None:
    with pytest.raises(ValueError):
        replay([bad], {"a": ("t",)}, {"a": "number"}, {})


@settings(max_examples=40, deadline=None)
@given(scores=st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=30),
       kind=st.sampled_from(["number", "bool", "text", "choice"]))
def test_long_histories_stay_probabilities(scores: list[float], kind: str) -> None:
    tracker = Tracker()
    for i, score in enumerate(scores):
        verdict = "correct" if score == 1 else "incorrect" if score == 0 else "partial"
        tracker.fold(attempt(f"q{i % 4}", verdict, score, i), ("t",), kind, 4)
        state = tracker.states["t"]
        assert 0.0 <= state.lower <= state.p_known + 0.01 and state.p_known <= 1.0
