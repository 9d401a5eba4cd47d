"""The plan's part of a study session (:class:`quizzer.learning.study.Study`): the learner's exam date and
daily minutes, today's plan, the predicted score and the plans of the mornings ahead.

A mixin rather than a module of functions because the plan reads the same things of the session as every
other part of ``Study`` (the learner, their running state, the clock); it lives apart so ``study.py``
stays a readable size.  It computes nothing itself: ``quizzer.learning.plan`` does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from typing import TYPE_CHECKING

from sqlmodel import Session

from quizzer.bank.plans import clear_plan, save_plan, stored_plan
from quizzer.learning.dashboard import plan_row
from quizzer.learning.dashboard_rows import PlanRow
from quizzer.learning.mastery import as_utc
from quizzer.learning.plan.forecast import Prediction
from quizzer.learning.plan.picker import Offer
from quizzer.learning.plan.schedule import DayPlan, PlanSettings, days_left, local_date, moment, prediction, today_plan
from quizzer.learning.plan.state import LearnerState
from quizzer.learning.plan.weights import ExamWeights, exam_weights
from quizzer.templates.catalog import Catalog

if TYPE_CHECKING:
    from quizzer.templates.schema import Template


@dataclass(frozen=True)
class PlanView:
    """What the dashboard shows of the plan: the settings, days left, today's plan, the prediction."""

    settings: PlanSettings
    days_left: int | None
    today: DayPlan
    prediction: Prediction


class StudyPlan:
    """The plan's methods of ``Study``, which provides what they read (declared here for the type checker)."""

    session: Session
    catalog: Catalog
    tz: tzinfo

    if TYPE_CHECKING:
        @property
        def templates(self) -> dict[str, Template]: ...
        @property
        def learner_id(self) -> int: ...
        def plan_state(self) -> LearnerState: ...
        def _now(self) -> datetime: ...

    # --- the plan --------------------------------------------------------------------------

    @functools.cached_property
    def weights(self) -> ExamWeights:
        return exam_weights(self.catalog)

    def plan_settings(self) -> PlanSettings:
        """The exam date and daily minutes this learner set (read each time: ``quizzer plan`` may change them)."""
        row = stored_plan(session=self.session, learner_id=self.learner_id)
        return PlanSettings(row.exam_date, row.minutes_per_day) if row is not None else PlanSettings()

    def set_plan(self, exam: date | None, minutes_per_day: int | None) -> PlanSettings:
        """Store the exam date (None: keep the one set) and minutes (None: keep, or the default)."""
        current = self.plan_settings()
        settings = PlanSettings(exam if exam is not None else current.exam,
                                minutes_per_day if minutes_per_day is not None else current.minutes_per_day)
        save_plan(session=self.session, learner_id=self.learner_id, exam_date=settings.exam,
                  minutes_per_day=settings.minutes_per_day)
        return settings

    def clear_plan(self) -> bool:
        return clear_plan(session=self.session, learner_id=self.learner_id)

    def today_progress(self) -> tuple[float, int, int]:
        """(minutes practised today, the daily goal in minutes, answers today) in the learner's day."""
        state, now = self.plan_state(), self._now()
        start = moment(self.plan_settings(), now, self.tz).day_start
        answers = sum(1 for at, _ in state.spent if at >= start)
        return state.seconds_since(start) / 60, self.plan_settings().minutes_per_day, answers

    def plan_view(self, *, week: int | None = None, at: datetime | None = None) -> PlanView:
        """Days left, the rest of today's plan and the predicted exam score (of ``week``'s topics, or all),
        now or ``at`` (e.g. tomorrow morning)."""
        return self._plan_view(self.plan_settings(), self.plan_state(), as_utc(at) if at is not None else self._now(),
                               week)

    def _plan_view(self, settings: PlanSettings, state: LearnerState, now: datetime,
                   week: int | None = None) -> PlanView:
        questions = [t for t in self.templates.values() if week is None or t.week == week]
        topics = sorted({t.topics[0] for t in questions if t.topics})
        return PlanView(settings, days_left(settings, now, self.tz),
                        today_plan(state, Offer(questions), self.catalog.topics, self.weights, settings, now, self.tz),
                        prediction(state, self.weights, settings, now, self.tz, topics))

    def plan_row(self, at: datetime | None = None) -> PlanRow:
        """The plan as the dashboard shows it, now or ``at``."""
        when = as_utc(at) if at is not None else self._now()
        return self._plan_row(self.plan_view(at=when), when)

    def _plan_row(self, view: PlanView, when: datetime) -> PlanRow:
        return plan_row(local_date(when, self.tz), view.settings, view.days_left, view.today, view.prediction,
                        self.catalog)

    def plans_ahead(self, days: int) -> list[PlanRow]:
        """The plan of each of the next ``days`` days as it will stand when the day begins if nothing is
        practised meanwhile: what the start-up snapshot shows on such a day (``learning.snapshot``)."""
        return self.plans_ahead_later(days)()

    def plans_ahead_later(self, days: int) -> Callable[[], list[PlanRow]]:
        """:meth:`plans_ahead`, read now and computed when called, on any thread: the settings and the
        learner's state are read here, once (nothing is practised between those mornings), and the call
        touches neither the session nor the running state, which go on recording answers meanwhile."""
        settings, state, today = self.plan_settings(), self.plan_state().copy(), local_date(self._now(), self.tz)
        mornings = [as_utc(datetime.combine(today + timedelta(days=n), time(0), tzinfo=self.tz))
                    for n in range(1, days + 1)]
        return lambda: [self._plan_row(self._plan_view(settings, state, when), when) for when in mornings]
