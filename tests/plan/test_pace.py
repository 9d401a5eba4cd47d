"""The learner's pace the plan counts questions by: their own median, weighed against the typical time so
that a few quick first answers do not turn a 30-minute day into a hundred questions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from quizzer.learning.mastery import GradedAttempt
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.review import TYPICAL_SECONDS

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Question:
    topics: tuple[str, ...] = ("softmax",)
    answered_kind: str = "choice"
    option_count: int | None = 4


def answered(seconds: list[float]) -> LearnerState:
    templates = {f"q{i}": Question() for i in range(len(seconds))}
    return LearnerState.of(templates, [GradedAttempt(f"q{i}", 1, "correct", 1.0, s, START + timedelta(minutes=i))
                                       for i, s in enumerate(seconds)])


def test_no_answers_of_a_kind_is_the_typical_time() -> None:
    assert answered([]).seconds_for("choice") == TYPICAL_SECONDS["choice"] == 30
    assert answered([5.0]).seconds_for("number") == TYPICAL_SECONDS["number"]  # another kind's answers


def test_three_quick_answers_move_the_estimate_only_part_of_the_way() -> None:
    # Three answers of 5 s against the typical 30 s counted as five answers: (3·5 + 5·30) / 8.
    assert answered([5.0, 4.0, 6.0]).seconds_for("choice") == (3 * 5 + 5 * 30) / 8 == 20.625


def test_thirty_answers_make_the_learners_own_pace_most_of_it() -> None:
    own = [10.0] * 30
    assert answered(own).seconds_for("choice") == (30 * 10 + 5 * 30) / 35
    assert answered(own).seconds_for("choice") < 13  # within a third of their own 10 s


def test_a_slow_learner_is_counted_slower_too() -> None:
    assert answered([120.0] * 10).seconds_for("choice") == (10 * 120 + 5 * 30) / 15 == 90
