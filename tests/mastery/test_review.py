"""FSRS review: ratings, JSON round trip, due dates at fixed UTC instants, the whole-day caveat."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import fsrs
import pytest

from quizzer.learning.review import (
    SCHEDULER,
    Rating,
    ReviewState,
    State,
    expected_seconds_for,
    is_due,
    new_state,
    overdue,
    rating_for,
    retrievability,
    review,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
MIN, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)


def graduated() -> ReviewState:
    """A card that passed both learning steps: Good at T0, Good at T0+10 min."""
    return review(review(new_state(T0), Rating.Good, T0), Rating.Good, T0 + 10 * MIN)


# ------------------------------------------------------------------------------ ratings

@pytest.mark.parametrize(("verdict", "score", "seconds", "kind", "expected"), [
    ("correct", 1.0, 30, "number", Rating.Good),
    ("correct", 1.0, None, "matrix", Rating.Good),         # no timing recorded: not slow
    ("correct", 1.0, 181, "number", Rating.Hard),           # number: typical 90 s, slow beyond 2x = 180 s
    ("correct", 1.0, 180, "number", Rating.Good),           # exactly the limit is not slow
    ("correct", 1.0, 41, "bool", Rating.Hard),              # bool: typical 20 s
    ("incorrect", 0.0, 5, "choice", Rating.Again),
    ("partial", 0.5, 30, "vector", Rating.Hard),
    ("partial", 0.75, 30, "multi", Rating.Hard),
    ("partial", 0.49, 30, "multi", Rating.Again),
])
def test_rating_for_auto_graded(verdict: str, score: float, seconds: float | None, kind: str,
                                expected: Rating) -> None:
    assert rating_for(verdict, score, seconds, kind) == expected


def test_rating_for_honours_an_explicit_expected_time() -> None:
    assert rating_for("correct", 1.0, 50, "number", expected_seconds=40) == Rating.Hard
    assert rating_for("correct", 1.0, 500, "number", expected_seconds=600) == Rating.Good


@pytest.mark.parametrize(("word", "expected"), [
    ("again", Rating.Again), ("hard", Rating.Hard), ("good", Rating.Good), ("Easy ", Rating.Easy),
])
def test_text_self_rating_maps_directly(word: str, expected: Rating) -> None:
    # Verdict, score and a very long time are ignored: the student's own judgement wins.
    assert rating_for("correct", 1.0, 10_000, "text", self_rating=word) == expected


def test_text_without_self_rating_uses_the_verdict_and_is_never_slow() -> None:
    assert rating_for("correct", 1.0, 10_000, "text") == Rating.Good
    assert rating_for("partial", 0.5, 10, "text") == Rating.Hard


@pytest.mark.parametrize(("verdict", "kind", "self_rating"), [
    ("invalid", "number", None), ("correct", "essay", None), ("correct", "text", "meh"),
])
def test_rating_for_rejects_nonsense(verdict: str, kind: str, self_rating: str | None) -> None:
    with pytest.raises(ValueError):
        rating_for(verdict, 1.0, 3, kind, self_rating=self_rating)


def test_expected_seconds_is_twice_typical() -> None:
    assert expected_seconds_for("matrix") == 360


# ----------------------------------------------------------------------- due dates

def test_new_state_is_due_at_once() -> None:
    state = new_state(T0)
    assert state.phase == State.Learning and state.last_review is None
    assert is_due(state, T0)


def test_learning_steps_then_whole_day_interval() -> None:
    first = review(new_state(T0), Rating.Good, T0)
    # fsrs defaults: learning steps 1 and 10 minutes; a first Good moves to the second step.
    assert (first.phase, first.step, first.due) == (State.Learning, 1, T0 + 10 * MIN)
    # Initial stability for Good is parameter w[2] = 2.3065 days.
    assert first.stability == pytest.approx(2.3065)
    second = graduated()
    # Graduating gives an interval of round(S) days at 90 % retention: round(2.3065) = 2.
    assert (second.phase, second.step) == (State.Review, None)
    assert second.due == T0 + 10 * MIN + 2 * DAY
    assert second.last_review == T0 + 10 * MIN


def test_again_goes_back_to_the_first_step() -> None:
    state = review(new_state(T0), Rating.Again, T0)
    assert (state.phase, state.step, state.due) == (State.Learning, 0, T0 + MIN)


def test_is_due_compares_exact_instants() -> None:
    state = graduated()
    assert not is_due(state, state.due - timedelta(seconds=1))
    assert is_due(state, state.due)
    assert overdue(state, state.due + 3 * HOUR) == 3 * HOUR
    assert overdue(state, state.due - HOUR) == -HOUR


def test_review_is_deterministic_without_fuzz() -> None:
    # A 7-day interval is inside fsrs's fuzz range; the default scheduler has fuzzing off.
    assert not SCHEDULER.enable_fuzzing
    state = graduated()
    later = T0 + 10 * MIN + 25 * HOUR
    assert review(state, Rating.Good, later) == review(state, Rating.Good, later)


# -------------------------------------------------------------------------- timezones

def test_fsrs_itself_rejects_a_non_timezone_utc_zone() -> None:
    # Why the wrapper converts: ZoneInfo("UTC") is UTC but not ``timezone.utc``, and fsrs checks identity of zone.
    with pytest.raises(ValueError, match="UTC"):
        SCHEDULER.review_card(new_state(T0).to_card(), Rating.Good, T0.astimezone(ZoneInfo("UTC")))


def test_other_aware_zones_are_converted() -> None:
    sydney = T0.astimezone(timezone(timedelta(hours=11)))
    via_zoneinfo = review(new_state(T0), Rating.Good, T0.astimezone(ZoneInfo("UTC")))
    via_offset = review(new_state(T0), Rating.Good, sydney)
    assert via_offset == via_zoneinfo == review(new_state(T0), Rating.Good, T0)
    assert via_offset.due.tzinfo is UTC
    assert new_state(sydney).due.tzinfo is UTC


def test_naive_datetimes_are_rejected() -> None:
    naive = datetime(2025, 3, 1, 9, 0)
    for call in (lambda: new_state(naive), lambda: review(new_state(T0), Rating.Good, naive),
                 lambda: is_due(new_state(T0), naive)):
        with pytest.raises(ValueError, match="naive"):
            call()


# ----------------------------------------------------------------------- whole days

def test_retrievability_counts_whole_elapsed_days() -> None:
    state = graduated()
    last = state.last_review
    assert last is not None
    decay = -0.1542
    factor = 0.9 ** (1 / decay) - 1
    one_day = (1 + factor * 1 / 2.3065) ** decay   # R = (1 + F t / S)^decay with t = 1 whole day = 0.946847
    assert retrievability(state, last + 23 * HOUR + 59 * MIN) == 1.0   # 0 whole days elapsed
    assert retrievability(state, last + DAY) == pytest.approx(one_day)
    assert retrievability(state, last + 47 * HOUR) == pytest.approx(one_day)   # still 1 whole day
    assert retrievability(state, last + 2 * DAY) < one_day
    assert retrievability(new_state(T0), T0 + DAY) == 0.0   # never reviewed


def test_a_review_within_24_hours_counts_as_same_day() -> None:
    state = graduated()
    last = state.last_review
    assert last is not None
    # 23 h later is 0 whole days: fsrs's short-term update, which for Good leaves S = 2.3065 here
    # (its growth factor e^(0.5425*0.0912) * 2.3065^-0.0658 = 0.9945 is clamped to 1).
    same_day = review(state, Rating.Good, last + 23 * HOUR)
    assert same_day.stability == pytest.approx(2.3065)
    assert same_day.due == last + 23 * HOUR + 2 * DAY
    # 25 h later is 1 whole day: the long-term recall update grows stability.
    next_day = review(state, Rating.Good, last + 25 * HOUR)
    assert next_day.stability is not None and next_day.stability > 3 * 2.3065
    assert next_day.due - next_day.last_review > 2 * DAY  # type: ignore[operator]


# ------------------------------------------------------------------------------ JSON

@pytest.mark.parametrize("make", [
    lambda: new_state(T0),
    lambda: review(new_state(T0), Rating.Again, T0),
    graduated,
    lambda: review(graduated(), Rating.Again, T0 + 3 * DAY),   # relearning
])
def test_json_round_trip(make: object) -> None:
    state = make()  # type: ignore[operator]
    text = state.to_json()
    assert isinstance(text, str)
    back = ReviewState.from_json(text)
    assert back == state
    assert back.due.tzinfo is UTC
    assert back.to_json() == text


def test_json_is_fsrs_card_format() -> None:
    state = review(graduated(), Rating.Again, T0 + 3 * DAY)
    card = fsrs.Card.from_json(state.to_json())
    assert card.state == State.Relearning == state.phase
    assert (card.due, card.stability, card.difficulty) == (state.due, state.stability, state.difficulty)
    assert json.loads(state.to_json())["due"] == state.due.isoformat()


@pytest.mark.parametrize("text", [
    "", "[]", "not json", '{"due": "2025-03-01T09:00:00+00:00"}',
    '{"card_id": 0, "state": 9, "step": 0, "stability": null, "difficulty": null,'
    ' "due": "2025-03-01T09:00:00+00:00", "last_review": null}',
    '{"card_id": 0, "state": 1, "step": 0, "stability": null, "difficulty": null,'
    ' "due": "2025-03-01T09:00:00", "last_review": null}',   # naive due
])
def test_malformed_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        ReviewState.from_json(text)
