"""Sign-ins for ``quizzer serve``: each learner's password record and role, and the signed-in browsers
(web sessions).  Every function takes a session and never creates one; the caller commits.

The bank stores what a server must check and nothing that lets a reader sign in: the password's
key-derivation record (made by ``quizzer.server.passwords``), and for a web session the SHA-256 of
its cookie's random token.  Everything lives in the bank so that several servers on one PostgreSQL
agree on who is signed in, and signing out (or a new password) ends the session on all of them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, delete, func, select

from quizzer.bank.learners import ensure_learner, find_learner, learner_named
from quizzer.bank.models import Credential, Learner, WebSession
from quizzer.common.clock import utcnow
from quizzer.common.errors import UserError

ROLES = ("learner", "teacher")  # a teacher also reads the class report


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    password_changed: datetime
    signed_in: int  # browsers signed in now (unexpired web sessions)


@dataclass(frozen=True)
class SignedIn:
    """Who a web session's cookie names, and until when."""

    name: str
    role: str
    expires_at: datetime


def token_digest(token: str) -> str:
    """What the bank keeps of a cookie's token: its SHA-256 (the token has 256 random bits, so no
    slow key derivation is needed to make the digest useless to a reader of the bank)."""
    return hashlib.sha256(token.encode()).hexdigest()


def set_password(*, session: Session, name: str, password_hash: str, role: str | None = None) -> Learner:
    """Give the learner ``name`` (created if new) this password record, and ``role`` if given (a new
    account defaults to ``learner``).  Every browser signed in as them is signed out: a new password
    is how a teacher takes a leaked sign-in back."""
    if role is not None and role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    learner = ensure_learner(session=session, name=name, commit=False)
    assert learner.id is not None
    credential = session.get(Credential, learner.id)
    if credential is None:
        credential = Credential(learner_id=learner.id, password_hash=password_hash, role=role or "learner")
    else:
        credential.password_hash, credential.updated_at = password_hash, utcnow()
        credential.role = role or credential.role
    session.add(credential)
    end_sessions(session=session, learner_id=learner.id)
    session.flush()
    return learner


def remove_account(*, session: Session, name: str) -> None:
    """The learner can no longer sign in, and is signed out everywhere; their profile and history stay."""
    learner = find_learner(session=session, name=name)
    credential = session.get(Credential, learner.id)
    if credential is None:
        raise UserError(f"profile {name!r} has no sign-in to remove")
    session.delete(credential)
    end_sessions(session=session, learner_id=learner.id)
    session.flush()


def has_accounts(*, session: Session) -> bool:
    return session.exec(select(func.count()).select_from(Credential)).one() > 0


def password_record(*, session: Session, name: str) -> tuple[str, str] | None:
    """The (password hash, role) of ``name``'s sign-in; None when there is none."""
    learner = learner_named(session=session, name=name)
    if learner is None:
        return None
    credential = session.get(Credential, learner.id)
    return None if credential is None else (credential.password_hash, credential.role)


def list_accounts(*, session: Session) -> list[Account]:
    now = utcnow()
    live = (select(WebSession.learner_id, func.count().label("n")).where(col(WebSession.expires_at) > now)
            .group_by(col(WebSession.learner_id)).subquery())
    rows = session.exec(select(Learner.name, Credential.role, Credential.updated_at, live.c.n)
                        .join(Credential, col(Credential.learner_id) == col(Learner.id))
                        .join(live, live.c.learner_id == col(Learner.id), isouter=True)
                        .order_by(col(Learner.name))).all()
    return [Account(name, role, changed, signed_in or 0) for name, role, changed, signed_in in rows]


def start_session(*, session: Session, name: str, token: str, lifetime: timedelta) -> SignedIn:
    """Record a browser signed in as ``name`` (who must have a sign-in) under its cookie's ``token``."""
    learner = find_learner(session=session, name=name)
    credential = session.get(Credential, learner.id)
    if credential is None or learner.id is None:
        raise UserError(f"profile {name!r} has no sign-in")
    expires_at = utcnow() + lifetime
    session.add(WebSession(token_hash=token_digest(token), learner_id=learner.id, role=credential.role,
                           expires_at=expires_at))
    session.flush()
    return SignedIn(name, credential.role, expires_at)


def signed_in(*, session: Session, token: str) -> SignedIn | None:
    """Whom the cookie's ``token`` names, if its web session exists and has not expired."""
    row = session.exec(select(Learner.name, WebSession.role, WebSession.expires_at)
                       .join(Learner, col(Learner.id) == col(WebSession.learner_id))
                       .where(WebSession.token_hash == token_digest(token))).first()
    if row is None or row[2] <= utcnow():
        return None
    return SignedIn(*row)


def end_session(*, session: Session, token: str) -> None:
    session.exec(delete(WebSession).where(col(WebSession.token_hash) == token_digest(token)))


def end_sessions(*, session: Session, learner_id: int | None) -> None:
    """Sign the learner out of every browser; and, on the way, forget every expired session."""
    session.exec(delete(WebSession).where((col(WebSession.learner_id) == learner_id)
                                          | (col(WebSession.expires_at) <= utcnow())))
