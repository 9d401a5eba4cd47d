"""The question bank's tables (SQLModel).  All times are UTC.

Every datetime column is a :class:`UTCDateTime`: the one place where the databases'
different habits are evened out (SQLite keeps no time zone and hands values back naive;
PostgreSQL's ``timestamp`` would shift an aware value into the server's zone).

Templates are stored as their YAML source; answers are never stored, they are
computed by the engine whenever an instance is made.  Attempts reference a
template by key, so re-importing a changed template keeps its history.  Attempts
and review cards belong to a learner (a profile); schema changes between versions
are made by ``quizzer.bank.migrations``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from quizzer.common.clock import utcnow


class UTCDateTime(TypeDecorator[datetime]):
    """An instant stored as naive UTC and always read back aware (``tzinfo`` is ``timezone.utc``).

    A naive value given to it is taken as UTC already, as everywhere in quizzer."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


class Meta(SQLModel, table=True):
    """Key/value facts about the database itself, e.g. ``schema_version``."""

    key: str = Field(primary_key=True)
    value: str


class Topic(SQLModel, table=True):
    id: str = Field(primary_key=True)
    name: str
    week: int = Field(index=True)
    section: str
    pages: str | None = None
    summary: str = ""
    prerequisites: str = ""  # space-separated topic ids (a DAG, checked by the catalogue tests)


class RoutedRecord(SQLModel, table=True):
    """An exam record from the notes' routing table, e.g. ``2024T3_Q1_NA Q277``."""

    id: str = Field(primary_key=True)
    paper: str = Field(index=True)
    question: str


class RecordTopic(SQLModel, table=True):
    record_id: str = Field(foreign_key="routedrecord.id", primary_key=True, ondelete="CASCADE")
    topic_id: str = Field(foreign_key="topic.id", primary_key=True)


class Template(SQLModel, table=True):
    key: str = Field(primary_key=True)
    title: str
    week: int = Field(index=True)
    kind: str
    difficulty: int
    paper: str | None = Field(default=None, index=True)
    source_yaml: str
    content_hash: str
    file: str
    imported_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class TemplateTopic(SQLModel, table=True):
    template_key: str = Field(foreign_key="template.key", primary_key=True, ondelete="CASCADE")
    topic_id: str = Field(foreign_key="topic.id", primary_key=True, index=True)


class Learner(SQLModel, table=True):
    """A learner profile: whose attempts and reviews these are (``--profile``)."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    created_at: datetime = Field(default_factory=utcnow)


class Attempt(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True)
    template_key: str = Field(foreign_key="template.key", index=True)
    seed: int = Field(sa_type=BigInteger)  # any seed `quizzer grade --seed` accepts, beyond 32 bits
    response: str
    verdict: str  # correct | incorrect | partial (invalid responses are never recorded)
    score: float
    misconception: str | None = Field(default=None, index=True)
    seconds: float | None = None
    created_at: datetime = Field(default_factory=utcnow, index=True, sa_type=UTCDateTime)
    # A multi-part question records one attempt per part answered: its label ("a", "b", …); None for a
    # single question. The parts of one answer share ``created_at``.
    part: str | None = None
    # True: this part was right on the learner's own (wrong) earlier value, not on the true one — an
    # earlier part's error carried forward (quizzer.grading.parts). Mastery must count it as right: the
    # mistake is the earlier part's, already recorded there (one mistake, not two).
    carried_forward: bool = False


class Retry(SQLModel, table=True):
    """A second try on the same numbers after a wrong or partial answer, before the solution was shown.  Kept
    for the learner's history beside the attempt it follows; never an attempt itself: the first answer is
    what counts for mastery, review and every report (online homework counts the first try the same way)."""

    id: int | None = Field(default=None, primary_key=True)
    attempt_id: int = Field(foreign_key="attempt.id", index=True, ondelete="CASCADE")
    response: str
    verdict: str  # correct | incorrect | partial
    score: float
    misconception: str | None = None
    seconds: float | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class ReviewCard(SQLModel, table=True):
    """One learner's spaced-review state of one template (an FSRS card as JSON, see ``quizzer.learning.review``)."""

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    template_key: str = Field(foreign_key="template.key", primary_key=True, ondelete="CASCADE")
    state_json: str
    due: datetime = Field(index=True, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class Credential(SQLModel, table=True):
    """A learner's sign-in for ``quizzer serve``: the password's key-derivation record (never the password)
    and the role (``learner`` or ``teacher``, who may also read the class report).  No row: that profile
    cannot sign in."""

    learner_id: int = Field(foreign_key="learner.id", primary_key=True, ondelete="CASCADE")
    password_hash: str
    role: str = "learner"
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class WebSession(SQLModel, table=True):
    """A signed-in browser: the SHA-256 of its cookie's random token (the token itself is never stored,
    so reading the bank does not let anyone sign in), whose it is and until when.  Kept in the bank so
    that every server on one database knows it; signing out deletes the row."""

    token_hash: str = Field(primary_key=True)
    learner_id: int = Field(foreign_key="learner.id", index=True, ondelete="CASCADE")
    role: str
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)


class StudyPlan(SQLModel, table=True):
    """A learner's exam date and daily minutes (``quizzer plan``); no row: no date, the default minutes."""

    learner_id: int = Field(foreign_key="learner.id", primary_key=True)
    exam_date: date | None = None
    minutes_per_day: int
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
