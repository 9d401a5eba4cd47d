"""Spaced review per template with FSRS (the ``fsrs`` package), as pure functions over plain data.

Each template has a :class:`ReviewState` (an fsrs card without its id); the app stores it
as JSON in a TEXT column (:meth:`ReviewState.to_json` writes fsrs's own ``Card.to_dict``
format, so ``fsrs.Card.from_json`` reads it too).  A template gets its first state when
it is first graded: ``review(new_state(at), rating_for(...), at)``.

**Time.**  fsrs accepts only timezone-aware datetimes whose ``tzinfo`` *is*
``timezone.utc`` (``ZoneInfo("UTC")`` or ``+10:00`` raise).  Every function here takes an
aware ``now``, converts it to ``timezone.utc`` before fsrs sees it, and rejects a naive one:
``datetime.now()`` is local time and would silently shift every due date.

**Whole-day caveat.**  fsrs measures the time since the last review in *whole* days
(``timedelta.days``, i.e. floored) in two places: retrievability (:func:`retrievability`
stays 1.0 for the first 24 hours, then drops in steps, one per elapsed day) and the choice
between its same-day ("short-term") stability update and the long-term one (a review 23 h
after the previous counts as same-day).  Due dates are exact instants, though, so
:func:`is_due` and :func:`overdue` compare datetimes, never day counts.

**Determinism.**  fsrs fuzzes review intervals with the global ``random.random()``; the
default :data:`SCHEDULER` turns fuzzing off so ``review`` is a function of its arguments
(a one-student, one-course deck gains little from de-clumping).  Other settings are fsrs's
defaults: 90 % desired retention, learning steps of 1 and 10 minutes, relearning 10 minutes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler, State

from quizzer.grading.verdict import rating_named

__all__ = ["Rating", "ReviewState", "SCHEDULER", "State", "TYPICAL_SECONDS", "expected_seconds_for", "is_due",
           "new_state", "overdue", "rating_for", "require_utc", "retrievability", "review"]

SCHEDULER = Scheduler(enable_fuzzing=False)

# How long a prepared student typically takes per kind; twice this is "slow".
TYPICAL_SECONDS: dict[str, float] = {
    "bool": 20, "choice": 30, "multi": 45, "order": 60, "integer": 60, "number": 90, "shape": 45,
    "vector": 120, "matrix": 180, "expression": 120, "text": 180,
    "parts": 240,  # a chain of two or three typed steps, answered as one question
}
SLOW_FACTOR = 2.0
SELF_RATINGS: dict[str, Rating] = {
    "again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy,
}


def require_utc(moment: datetime, name: str = "now") -> datetime:
    """``moment`` with ``tzinfo`` exactly ``timezone.utc``, as fsrs requires."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} is a naive datetime; pass an aware UTC one, e.g. datetime.now(timezone.utc)")
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class ReviewState:
    """A template's FSRS memory state and next due instant (UTC)."""

    due: datetime
    phase: State = State.Learning
    step: int | None = 0
    stability: float | None = None
    difficulty: float | None = None
    last_review: datetime | None = None

    def __post_init__(self) -> None:
        # Frozen, so normalise through object.__setattr__: every stored instant is UTC.
        object.__setattr__(self, "due", require_utc(self.due, "due"))
        if self.last_review is not None:
            object.__setattr__(self, "last_review", require_utc(self.last_review, "last_review"))
        object.__setattr__(self, "phase", State(self.phase))

    def to_card(self) -> Card:
        """The equivalent fsrs card (id 0: fsrs would otherwise read the clock to make one)."""
        return Card(card_id=0, state=self.phase, step=self.step, stability=self.stability,
                    difficulty=self.difficulty, due=self.due, last_review=self.last_review)

    @classmethod
    def from_card(cls, card: Card) -> ReviewState:
        """The state of an fsrs card."""
        return cls(due=card.due, phase=card.state, step=card.step, stability=card.stability,
                   difficulty=card.difficulty, last_review=card.last_review)

    def to_json(self) -> str:
        """JSON text in fsrs's ``Card.to_dict`` format, keys sorted so equal states store equal text."""
        return json.dumps(self.to_card().to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ReviewState:
        """The state stored by :meth:`to_json`; malformed text raises ``ValueError``."""
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise TypeError(f"expected a JSON object, got {type(data).__name__}")
            return cls.from_card(Card.from_dict(data))  # type: ignore[arg-type]  # shape checked by from_dict
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a stored review state: {exc!r}") from None


def new_state(now: datetime) -> ReviewState:
    """A never-reviewed template, due at once."""
    return ReviewState(due=require_utc(now))


def review(state: ReviewState, rating: Rating, now: datetime, scheduler: Scheduler = SCHEDULER) -> ReviewState:
    """The state after reviewing ``state`` with ``rating`` at ``now``."""
    card, _log = scheduler.review_card(state.to_card(), Rating(rating), review_datetime=require_utc(now))
    return ReviewState.from_card(card)


def after_answer(state: ReviewState | None, *, verdict: str, score: float, seconds: float | None, kind: str,
                 response: str, at: datetime) -> ReviewState:
    """A question's card after one graded answer at ``at`` (a first answer starts a new card); a recall
    card's response is its self-rating.  The app records it so, and a regrade replays it so."""
    rating = rating_for(verdict, score, seconds, kind, self_rating=response if kind == "text" else None)
    return review(state or new_state(at), rating, at)


def is_due(state: ReviewState, now: datetime) -> bool:
    """Whether the template is due at ``now`` (exact instants, not whole days)."""
    return require_utc(now) >= state.due


def overdue(state: ReviewState, now: datetime) -> timedelta:
    """How long past due at ``now`` (negative when not yet due)."""
    return require_utc(now) - state.due


def retrievability(state: ReviewState, now: datetime, scheduler: Scheduler = SCHEDULER) -> float:
    """fsrs's predicted recall probability at ``now``: a step function of *whole* elapsed days."""
    return float(scheduler.get_card_retrievability(state.to_card(), current_datetime=require_utc(now)))


def expected_seconds_for(kind: str) -> float:
    """The time beyond which a correct answer of this kind counts as slow."""
    if kind not in TYPICAL_SECONDS:
        raise ValueError(f"unknown question kind {kind!r}")
    return SLOW_FACTOR * TYPICAL_SECONDS[kind]


def rating_for(verdict: str, score: float, seconds: float | None, kind: str,
               expected_seconds: float | None = None, self_rating: str | None = None) -> Rating:
    """The FSRS rating for a graded attempt (``self_rating`` for text: again / hard / good / easy)."""
    if kind == "text" and self_rating is not None:
        # Self-graded: the student's own judgement is the rating, whatever the time taken.
        word = rating_named(self_rating) or ""  # as the grader read it: "3", "g" and "good" are one rating
        if word not in SELF_RATINGS:
            raise ValueError(f"self-rating must be one of {sorted(SELF_RATINGS)}, got {self_rating!r}")
        return SELF_RATINGS[word]
    limit = expected_seconds_for(kind) if expected_seconds is None else expected_seconds
    if verdict == "correct":
        # A slow correct answer was effortful recall: FSRS's Hard, which shortens the next interval.
        slow = seconds is not None and seconds > limit and kind != "text"
        return Rating.Hard if slow else Rating.Good
    if verdict == "partial":
        return Rating.Hard if score >= 0.5 else Rating.Again
    if verdict == "incorrect":
        return Rating.Again
    raise ValueError(f"verdict must be correct, incorrect or partial, got {verdict!r}")
