"""The question bank's tables (SQLModel).  All times are UTC.

Templates are stored as their YAML source; answers are never stored, they are
computed by the engine whenever an instance is made.  Attempts reference a
template by key, so re-importing a changed template keeps its history.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, SQLModel

SCHEMA_VERSION = 1


def utcnow() -> datetime:
    return datetime.now(UTC)


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
    imported_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class TemplateTopic(SQLModel, table=True):
    template_key: str = Field(foreign_key="template.key", primary_key=True, ondelete="CASCADE")
    topic_id: str = Field(foreign_key="topic.id", primary_key=True, index=True)


class Attempt(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    template_key: str = Field(foreign_key="template.key", index=True)
    seed: int
    response: str
    verdict: str  # correct | incorrect | partial (invalid responses are never recorded)
    score: float
    misconception: str | None = Field(default=None, index=True)
    seconds: float | None = None
    created_at: datetime = Field(default_factory=utcnow, index=True)


class ReviewCard(SQLModel, table=True):
    """One template's spaced-review state (an FSRS card as JSON, see ``quizzer.review``)."""

    template_key: str = Field(foreign_key="template.key", primary_key=True, ondelete="CASCADE")
    state_json: str
    due: datetime = Field(index=True)
    updated_at: datetime = Field(default_factory=utcnow)
