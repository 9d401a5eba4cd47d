"""Learner profiles: whose attempts and review states these are.

The current profile is ``--profile NAME``, else ``QUIZZER_PROFILE``, else the OS user
name, so one person on one laptop never has to think about profiles, and a shared bank
(a lab machine, a class server) keeps every student's progress apart.  Every function
that touches the bank takes a session and never creates one.
"""

from __future__ import annotations

import getpass
import os
import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from quizzer.bank.models import Attempt, Learner
from quizzer.errors import UserError, did_you_mean

PROFILE_ENV = "QUIZZER_PROFILE"
FALLBACK_NAME = "student"
MAX_NAME = 40
VALID_NAME = re.compile(rf"[\w .-]{{1,{MAX_NAME}}}")  # \w: letters, digits and _ in any script
NAME_RULE = f"1–{MAX_NAME} letters, digits, spaces, '.', '_' or '-'"


@dataclass(frozen=True)
class LearnerSummary:
    name: str
    attempts: int
    last_active: datetime | None
    created_at: datetime


def valid_name(name: str, *, where: str) -> str:
    """``name`` without surrounding spaces, or a UserError saying what a profile name may be."""
    cleaned = name.strip()
    if not VALID_NAME.fullmatch(cleaned):
        raise UserError(f"invalid profile name {name!r}: use {NAME_RULE}", where=where)
    return cleaned


def os_profile_name() -> str:
    """The OS user name made into a valid profile name (``student`` when there is none)."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        return FALLBACK_NAME
    return re.sub(r"[^\w .-]", "_", user).strip()[:MAX_NAME].strip() or FALLBACK_NAME


def current_profile_name(option: str | None = None) -> str:
    """``--profile`` if given, else ``QUIZZER_PROFILE``, else the OS user name; validated."""
    if option is not None:
        return valid_name(option, where="--profile")
    if os.environ.get(PROFILE_ENV):
        return valid_name(os.environ[PROFILE_ENV], where=PROFILE_ENV)
    return os_profile_name()


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


def ensure_learner(*, session: Session, name: str) -> Learner:
    """The learner called ``name``, created (and committed at once) on first use.  Two processes
    starting a new profile together both end up with the one row the unique name allows."""
    learner = learner_named(session=session, name=name)
    if learner is not None:
        return learner
    learner = Learner(name=name)
    session.add(learner)
    try:
        session.commit()
    except IntegrityError:
        session.rollback()
        return find_learner(session=session, name=name)
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
