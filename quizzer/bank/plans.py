"""Each learner's exam date and daily minutes (``quizzer plan``), one row per learner who set them.
Every function takes a session and never creates one."""

from __future__ import annotations

from datetime import date

from sqlmodel import Session

from quizzer.bank.db import begin_write
from quizzer.bank.models import StudyPlan
from quizzer.common.clock import utcnow


def stored_plan(*, session: Session, learner_id: int) -> StudyPlan | None:
    return session.get(StudyPlan, learner_id)


def save_plan(*, session: Session, learner_id: int, exam_date: date | None, minutes_per_day: int) -> None:
    """Set (or replace) the learner's exam date and minutes, committed."""
    begin_write(session)
    row = session.get(StudyPlan, learner_id) or StudyPlan(learner_id=learner_id, minutes_per_day=minutes_per_day)
    row.exam_date, row.minutes_per_day, row.updated_at = exam_date, minutes_per_day, utcnow()
    session.add(row)
    session.commit()


def clear_plan(*, session: Session, learner_id: int) -> bool:
    """Forget the learner's exam date and minutes; whether there were any."""
    begin_write(session)
    row = session.get(StudyPlan, learner_id)
    if row is not None:
        session.delete(row)
    session.commit()
    return row is not None
