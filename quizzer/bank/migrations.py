"""Versioned schema migrations: each step takes a bank from one schema version to the next.

``open_bank`` runs the steps from the stored ``schema_version`` up to ``SCHEMA_VERSION``
inside one transaction, so an upgrade happens completely or not at all, and a brand-new
bank is created at the latest version directly.

A step describes the tables as they are at *its* version (not the current models), so
later schema changes never alter what an old step does.  Steps use portable SQL through
SQLAlchemy; where SQLite cannot alter a table in place (a new NOT NULL foreign key, a new
primary key) the step rebuilds the table as SQLite documents, and other databases get
``ALTER TABLE``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    column,
    inspect,
    literal,
    select,
    table,
    text,
)
from sqlalchemy.engine import Connection
from sqlalchemy.schema import AddConstraint
from sqlmodel import SQLModel

from quizzer.bank import SCHEMA_VERSION, VERSION_KEY
from quizzer.bank.models import Meta
from quizzer.common.clock import utcnow

Step = Callable[[Connection, str], None]  # (connection, default learner name)


def stored_version(connection: Connection) -> int | None:
    """The bank's schema version; None for an empty database (nothing of quizzer's in it yet).
    A version that is not a whole number raises ``ValueError``."""
    names = set(inspect(connection).get_table_names())
    if Meta.__tablename__ not in names:
        return None if not names else 0  # 0: tables, but not a quizzer bank's
    value = connection.execute(select(column("value")).select_from(table(Meta.__tablename__))
                               .where(column("key") == VERSION_KEY)).scalar()
    # Version 1 created the meta table before writing its row; an empty one is version 1.
    return int(value) if value is not None else 1


def upgrade(connection: Connection, *, from_version: int, default_learner: str) -> None:
    """Run every step from ``from_version`` to ``SCHEMA_VERSION`` on ``connection`` (the caller commits)."""
    for version in range(from_version, SCHEMA_VERSION):
        STEPS[version](connection, default_learner)
    _write_version(connection)


def create_latest(connection: Connection) -> None:
    """A brand-new bank, straight at the latest schema version."""
    SQLModel.metadata.create_all(connection)
    _write_version(connection)


def _write_version(connection: Connection) -> None:
    meta = Meta.__table__  # type: ignore[attr-defined]
    connection.execute(meta.delete().where(meta.c.key == VERSION_KEY))
    connection.execute(meta.insert().values(key=VERSION_KEY, value=str(SCHEMA_VERSION)))


# --- version 1 → 2: learner profiles ---------------------------------------------------------

V2 = MetaData()
Table("template", V2, Column("key", String, primary_key=True))  # referenced only; never created here
V2_LEARNER = Table(
    "learner", V2,
    Column("id", Integer, primary_key=True),
    Column("name", String, nullable=False),
    Column("created_at", DateTime, nullable=False),
    Index("ix_learner_name", "name", unique=True),
)
V2_ATTEMPT = Table(
    "attempt", V2,
    Column("id", Integer, primary_key=True),
    Column("learner_id", Integer, ForeignKey("learner.id"), nullable=False, index=True),
    Column("template_key", String, ForeignKey("template.key"), nullable=False, index=True),
    Column("seed", BigInteger, nullable=False),  # widened from 32 bits: any seed `grade --seed` accepts
    Column("response", String, nullable=False),
    Column("verdict", String, nullable=False),
    Column("score", Float, nullable=False),
    Column("misconception", String, index=True),
    Column("seconds", Float),
    Column("created_at", DateTime, nullable=False, index=True),
)
V2_REVIEWCARD = Table(
    "reviewcard", V2,
    Column("learner_id", Integer, ForeignKey("learner.id"), primary_key=True),
    Column("template_key", String, ForeignKey("template.key", ondelete="CASCADE"), primary_key=True),
    Column("state_json", String, nullable=False),
    Column("due", DateTime, nullable=False, index=True),
    Column("updated_at", DateTime, nullable=False),
)


def _v1_to_v2(connection: Connection, default_learner: str) -> None:
    """Learners arrive: every existing attempt and review card goes to the default learner.
    Attempt seeds widen to 64 bits (SQLite's rebuild does it; elsewhere an ALTER)."""
    V2_LEARNER.create(connection)
    inserted = connection.execute(V2_LEARNER.insert().values(name=default_learner, created_at=utcnow())
                                  ).inserted_primary_key
    if inserted is None:
        raise RuntimeError("the default learner was inserted without a primary key")
    learner_id = inserted[0]
    for owned in (V2_ATTEMPT, V2_REVIEWCARD):
        if connection.dialect.name == "sqlite":
            _rebuild(connection, owned, fill={"learner_id": learner_id})
        else:
            _add_learner_in_place(connection, owned, learner_id)
    if connection.dialect.name != "sqlite":
        connection.execute(text("ALTER TABLE attempt ALTER COLUMN seed TYPE BIGINT"))


def _rebuild(connection: Connection, new: Table, *, fill: dict[str, object]) -> None:
    """SQLite's way to change a table: move the old one aside, create the new shape, copy, drop.
    ``fill`` gives the value of each new column for every existing row."""
    old_name = f"{new.name}_old"
    quote = connection.dialect.identifier_preparer.quote
    inspector = inspect(connection)
    kept = [c["name"] for c in inspector.get_columns(new.name)]
    for index in inspector.get_indexes(new.name):  # index names are global; the new table reuses them
        if index["name"] is None:
            raise RuntimeError(f"an unnamed index on {new.name} cannot be dropped")
        connection.execute(text(f"DROP INDEX {quote(index['name'])}"))
    connection.execute(text(f"ALTER TABLE {quote(new.name)} RENAME TO {quote(old_name)}"))
    new.create(connection)
    rows: Select[*tuple[Any, ...]] = select(*(column(name) for name in kept),
                                            *(literal(value) for value in fill.values()))
    connection.execute(new.insert().from_select([*kept, *fill], rows.select_from(table(old_name))))
    connection.execute(text(f"DROP TABLE {quote(old_name)}"))


def _add_learner_in_place(connection: Connection, new: Table, learner_id: int) -> None:
    """Standard ALTER TABLE (PostgreSQL and others): add the column, fill it, then constrain it."""
    quote = connection.dialect.identifier_preparer.quote
    name = quote(new.name)
    connection.execute(text(f"ALTER TABLE {name} ADD COLUMN learner_id INTEGER"))
    connection.execute(text(f"UPDATE {name} SET learner_id = :learner").bindparams(learner=learner_id))
    connection.execute(text(f"ALTER TABLE {name} ALTER COLUMN learner_id SET NOT NULL"))
    for constraint in new.foreign_key_constraints:
        if constraint.column_keys == ["learner_id"]:
            connection.execute(AddConstraint(constraint))
    for index in new.indexes:
        if "learner_id" in index.columns:
            index.create(connection)
    if "learner_id" in new.primary_key.columns:
        old_key = inspect(connection).get_pk_constraint(new.name)["name"]
        if old_key is None:
            raise RuntimeError(f"the primary key of {new.name} has no name to drop it by")
        connection.execute(text(f"ALTER TABLE {name} DROP CONSTRAINT {quote(old_key)}"))
        connection.execute(AddConstraint(new.primary_key))


# --- version 2 → 3: attempts on the parts of a multi-part question ---------------------------------

def _v2_to_v3(connection: Connection, default_learner: str) -> None:
    """Two columns every database can add in place: which part an attempt answers (none: a single
    question) and whether it was right on the learner's own earlier value (follow-through)."""
    del default_learner
    connection.execute(text("ALTER TABLE attempt ADD COLUMN part VARCHAR"))
    connection.execute(text("ALTER TABLE attempt ADD COLUMN carried_forward BOOLEAN NOT NULL DEFAULT FALSE"))


# --- version 3 → 4: second tries (practice's "try again") --------------------------------------------

V4 = MetaData()
Table("attempt", V4, Column("id", Integer, primary_key=True))  # referenced only; never created here
V4_RETRY = Table(
    "retry", V4,
    Column("id", Integer, primary_key=True),
    Column("attempt_id", Integer, ForeignKey("attempt.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("response", String, nullable=False),
    Column("verdict", String, nullable=False),
    Column("score", Float, nullable=False),
    Column("misconception", String),
    Column("seconds", Float),
    Column("created_at", DateTime, nullable=False),
)


def _v3_to_v4(connection: Connection, default_learner: str) -> None:
    """A new table only: the attempts are unchanged (a retry never counts as one)."""
    del default_learner
    V4_RETRY.create(connection)


# --- version 4 → 5: sign-ins for `quizzer serve` -----------------------------------------------------

V5 = MetaData()
Table("learner", V5, Column("id", Integer, primary_key=True))  # referenced only; never created here
V5_CREDENTIAL = Table(
    "credential", V5,
    Column("learner_id", Integer, ForeignKey("learner.id", ondelete="CASCADE"), primary_key=True),
    Column("password_hash", String, nullable=False),
    Column("role", String, nullable=False),
    Column("updated_at", DateTime, nullable=False),
)
V5_WEBSESSION = Table(
    "websession", V5,
    Column("token_hash", String, primary_key=True),
    Column("learner_id", Integer, ForeignKey("learner.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("role", String, nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("expires_at", DateTime, nullable=False, index=True),
)


def _v4_to_v5(connection: Connection, default_learner: str) -> None:
    """Two new tables, nothing else changes: learners' sign-ins and the signed-in browsers."""
    del default_learner
    V5_CREDENTIAL.create(connection)
    V5_WEBSESSION.create(connection)


# --- version 5 → 6: the exam date and daily minutes of each learner (the plan) -----------------------

V6 = MetaData()
Table("learner", V6, Column("id", Integer, primary_key=True))  # referenced only; never created here
V6_STUDYPLAN = Table(
    "studyplan", V6,
    Column("learner_id", Integer, ForeignKey("learner.id"), primary_key=True),
    Column("exam_date", Date),
    Column("minutes_per_day", Integer, nullable=False),
    Column("updated_at", DateTime, nullable=False),
)


def _v5_to_v6(connection: Connection, default_learner: str) -> None:
    """A new table: no learner has a plan yet (the app plans towards a rolling horizon until one is set)."""
    del default_learner
    V6_STUDYPLAN.create(connection)


# Keyed by the version a step upgrades *from*; every version below SCHEMA_VERSION has one.
STEPS: dict[int, Step] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6}
