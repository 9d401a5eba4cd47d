"""The exam date and the minutes a day a student has: days left, today's plan, the predicted score.

A student sets an exam date and minutes a day (``quizzer plan``); without a date the plan works
towards a rolling horizon of :data:`OPEN_HORIZON` (a good open-ended tutor: the same objective, two
weeks ahead).  Days run from midnight to midnight in the learner's time zone (the caller's ``tz``);
the exam is taken to start at :data:`EXAM_HOUR` on its date, and the prediction is for then.

**Today's plan** is the picker run ahead on a copy of the learner's state for the minutes left
today: each question answered in its expected time, right or wrong as drawn (with a fixed seed)
from the model's predicted chance, so the plan is a plausible day, the same each time it is asked.
It says how many questions, about how many minutes and which topics; the
real sitting then picks one question at a time from the real answers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from quizzer.common.errors import UserError
from quizzer.learning.mastery import DEFAULTS, GradedAttempt, guess_probability
from quizzer.learning.plan.forecast import Prediction, knowledge, predicted_score, recall
from quizzer.learning.plan.picker import Entry, GainCache, Moment, Offer, TopicInfo, pick
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.plan.weights import ExamWeights

DEFAULT_MINUTES = 30
MAX_MINUTES = 600
OPEN_HORIZON = timedelta(days=14)
EXAM_HOUR = 9
MAX_PLANNED = 200  # questions in one day's plan, whatever the minutes (a bound on the dry run)


@dataclass(frozen=True)
class PlanSettings:
    """A learner's exam date (None: none set) and daily minutes."""

    exam: date | None = None
    minutes_per_day: int = DEFAULT_MINUTES


def parse_exam_date(text: str, today: date) -> date:
    """``YYYY-MM-DD`` on or after ``today``, or a one-line ``UserError``."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise UserError(f"--exam: {text[:40]!r} is not a date written YYYY-MM-DD (e.g. {today.isoformat()})") from None
    if len(text.strip()) != 10:
        raise UserError(f"--exam: {text[:40]!r} is not a date written YYYY-MM-DD (e.g. {today.isoformat()})")
    if day < today:
        raise UserError(f"--exam: {day.isoformat()} is in the past (today is {today.isoformat()})")
    return day


def check_minutes(minutes: int) -> int:
    if not 1 <= minutes <= MAX_MINUTES:
        raise UserError(f"--minutes-per-day must be from 1 to {MAX_MINUTES}, got {minutes}")
    return minutes


def day_start(now: datetime, tz: tzinfo) -> datetime:
    """The start of ``now``'s day in ``tz``, as an aware instant."""
    local = now.astimezone(tz)
    return datetime.combine(local.date(), time(0), tzinfo=tz)


def local_date(now: datetime, tz: tzinfo) -> date:
    return now.astimezone(tz).date()


def days_left(settings: PlanSettings, now: datetime, tz: tzinfo) -> int | None:
    """Days from ``now``'s date to the exam's (0 on the day, negative once it is past; None: no date set)."""
    return None if settings.exam is None else (settings.exam - local_date(now, tz)).days


def moment(settings: PlanSettings, now: datetime, tz: tzinfo) -> Moment:
    """The picker's view of ``now``: the start of today, the exam instant (or horizon), days left.

    An exam whose day is past is planned for as no date (the rolling horizon) until the next is set: aiming at
    it kept the plan in its last days' mode for good (no new questions, every score predicted for "now").
    The faces still say the exam was on that date (:func:`days_left`)."""
    left = days_left(settings, now, tz)
    if settings.exam is None or left is None or left < 0:
        return Moment(now, day_start(now, tz), now + OPEN_HORIZON, None)
    exam = datetime.combine(settings.exam, time(EXAM_HOUR), tzinfo=tz)
    return Moment(now, day_start(now, tz), max(exam, now), left)


@dataclass(frozen=True)
class DayPlan:
    """Today's plan: questions, minutes and topics (id → questions), and the minutes already done."""

    questions: int
    minutes: float
    topics: Mapping[str, int]
    done_minutes: float
    goal_minutes: int


def today_plan(state: LearnerState, offer: Offer, topics: Mapping[str, TopicInfo],
               weights: ExamWeights, settings: PlanSettings, now: datetime, tz: tzinfo) -> DayPlan:
    """The rest of today as the picker would fill it (see the module docstring)."""
    view = moment(settings, now, tz)
    done = state.seconds_since(view.day_start)
    left = settings.minutes_per_day * 60 - done
    ahead, clock, planned, cache = state.copy(), now, Counter[str](), GainCache()
    rng, draws, recent, spent, count = random.Random(0), random.Random(1), list[str](), 0.0, 0
    by_key = {e.key: e for e in offer.entries}
    while count < MAX_PLANNED:
        choice = pick(ahead, offer, topics, weights, moment(settings, clock, tz), rng, recent=recent, cache=cache)
        question = by_key[choice.key]
        seconds = ahead.seconds_for(question.kind)
        if spent + seconds > left:
            break
        right = draws.random() < _chance(ahead, question, clock)
        ahead.fold(GradedAttempt(question.key, 0, "correct" if right else "incorrect", float(right), seconds, clock))
        recent.append(question.key)
        planned[choice.topic or ""] += 1
        spent, count, clock = spent + seconds, count + 1, clock + timedelta(seconds=seconds)
    return DayPlan(count, spent / 60, dict(planned.most_common()), done / 60, settings.minutes_per_day)


def _chance(state: LearnerState, question: Entry, at: datetime) -> float:
    """The model's chance of a right answer to ``question`` at ``at``."""
    if question.topic is None:
        return 0.0
    g = guess_probability(question.kind, question.options)
    topic = question.topic
    return g + (1 - DEFAULTS.slip - g) * knowledge(state, topic) * recall(state.topic_cards.get(topic), at)


def prediction(state: LearnerState, weights: ExamWeights, settings: PlanSettings, now: datetime,
               tz: tzinfo, topics: Sequence[str]) -> Prediction:
    """The predicted score on the exam day (or the horizon's), over ``topics`` weighed by their shares."""
    total = sum(weights.weights.get(t, 0.0) for t in topics)
    shares = {t: weights.weights.get(t, 0.0) / total for t in topics} if total > 0 else {}
    return predicted_score(state, shares, moment(settings, now, tz).exam)
