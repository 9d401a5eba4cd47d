"""Learner rows: finding, creating, listing and renaming profiles (names are ruled by
``quizzer.common.profiles``).  Every function takes a session and never creates one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from quizzer.bank.db import begin_write
from quizzer.bank.models import Attempt, Learner
from quizzer.common.errors import UserError, did_you_mean
from quizzer.common.profiles import valid_name


@dataclass(frozen=True)
class LearnerSummary:
    name: str
    attempts: int
    last_active: datetime | None
    created_at: datetime


def learner_named(*, session: Session, name: str) -> Learner | None:
    return session.exec(select(Learner).where(Learner.name == name)).first()


def find_learner(*, session: Session, name: str) -> Learner:
    """The learner called ``name``; an unknown name is a UserError with a suggestion."""
    learner = learner_named(session=session, name=name)
    if learner is None:
        names = session.exec(select(Learner.name)).all()
        hint = did_you_mean(name, names) or "; see 'quizzer profiles'"
        raise UserError(f"no profile called {name!r}{hint}")
    return learner


def ensure_learner(*, session: Session, name: str, commit: bool = True) -> Learner:
    """The learner called ``name``, created on first use: committed at once, or (``commit=False``)
    only flushed into the caller's transaction, so a batch that creates learners commits them with
    its answers or not at all.  Two processes starting a new profile together both end up with the
    one row the unique name allows."""
    learner = learner_named(session=session, name=name)
    if learner is not None:
        return learner
    learner = Learner(name=name)
    try:
        if commit:
            session.add(learner)
            session.commit()
        else:
            # A savepoint: losing the race for the name undoes this insert only, not the caller's work.
            # It must sit inside a real transaction: Python's sqlite3 sends no BEGIN before a SAVEPOINT,
            # so on a fresh session SQLite would make the savepoint the transaction, and its release
            # would commit the learner on its own (found by the `grade` kill point).
            begin_write(session)
            with session.begin_nested():
                session.add(learner)
    except IntegrityError:
        if commit:
            session.rollback()
        return find_learner(session=session, name=name)
    if commit:
        session.refresh(learner)
    return learner


def list_learners(*, session: Session) -> list[LearnerSummary]:
    """Every profile by name, with its number of attempts and when it last answered."""
    query = (select(Learner.name, func.count(col(Attempt.id)), func.max(Attempt.created_at), Learner.created_at)
             .join(Attempt, col(Attempt.learner_id) == col(Learner.id), isouter=True)
             .group_by(col(Learner.id)).order_by(col(Learner.name)))
    return [LearnerSummary(name, count, last, created) for name, count, last, created in session.exec(query).all()]


def rename_learner(*, session: Session, old: str, new: str) -> Learner:
    """Rename a profile, keeping its attempts and reviews; never onto an existing name.
    The caller commits."""
    new = valid_name(new, where="new profile name")
    learner = find_learner(session=session, name=old)
    if learner_named(session=session, name=new) is not None:
        raise UserError(f"a profile called {new!r} already exists; choose another name")
    learner.name = new
    session.add(learner)
    session.flush()
    return learner
