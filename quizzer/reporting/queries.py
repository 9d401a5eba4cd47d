"""Reads across the whole class, for the teacher's report.  Every function takes a session and
never creates one; nothing here writes."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

from quizzer.bank.models import Attempt, Learner
from quizzer.bank.readonly import parse_stored
from quizzer.bank.store import select_templates
from quizzer.reporting.classdata import ClassAttempt, ClassData


def load_class(*, session: Session, paper: str | None = None, topic: str | None = None) -> ClassData:
    """Every profile, the templates in scope (``paper``, ``topic``) and every learner's attempts on them."""
    rows = select_templates(session=session, paper=paper, topic=topic)
    templates = {row.key: parse_stored(row.source_yaml, row.content_hash, row.key) for row in rows}
    learners = list(session.exec(select(Learner.name).order_by(col(Learner.name))).all())
    everything = paper is None and topic is None
    return ClassData(learners=learners, templates=templates,
                     attempts=class_attempts(session=session, keys=None if everything else list(templates)))


def class_attempts(*, session: Session, keys: list[str] | None) -> list[ClassAttempt]:
    """Every learner's attempts (on ``keys`` only, unless None), oldest first, with whose they are."""
    # Plain columns, not Attempt objects: a class has hundreds of thousands of attempts.
    # sqlmodel types select() for at most four columns (it takes any number), hence the annotation.
    query: Select[str, str, int, str, float, str | None, float | None, datetime, str, str | None] = (
        select(Learner.name, Attempt.template_key, Attempt.seed, Attempt.verdict,  # type: ignore[call-overload]
               Attempt.score, Attempt.misconception, Attempt.seconds, Attempt.created_at, Attempt.response,
               Attempt.part)
        .join(Learner, col(Attempt.learner_id) == col(Learner.id))
        .order_by(col(Attempt.created_at), col(Attempt.id)))
    if keys is not None:
        query = query.where(col(Attempt.template_key).in_(keys))
    return [ClassAttempt(*row) for row in session.exec(query).all()]
