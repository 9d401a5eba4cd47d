"""A glance at one learner in a SQLite bank with the standard library's ``sqlite3``: enough for the app to
show the dashboard it saved last time (``quizzer.learning.snapshot``) before SQLAlchemy, NumPy and the
catalogue are loaded (about a second of the app's start; the one-widget Textual app it is measured
against paints in a sixth of that).

``fingerprint`` changes whenever anything a dashboard shows could have changed: the bank's Meta rows
(schema, scoring rules, catalogue and bundled questions as imported), its questions, and this learner's
attempts, review cards and exam date and minutes (``studyplan``).  ``due`` is the one thing a dashboard
shows that changes with time alone: the questions whose review is due now (and the plan's day, which
``learning.snapshot`` handles).  None wherever only the ORM path can answer (PostgreSQL, no bank
file yet, an unknown learner, any SQLite error).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from quizzer.bank.location import database_url

READ_TIMEOUT_S = 0.2  # a bank locked by a writer for longer: the app opens it the ordinary way
# SQLAlchemy's DateTime stores an instant in SQLite as this text (naive UTC, see models.UTCDateTime),
# which orders as the instants do.
STORED_INSTANT = "%Y-%m-%d %H:%M:%S.%f"


class Glance(NamedTuple):
    fingerprint: str  # the facts as text (a few kB; hashing them would cost an OpenSSL import at start)
    due: frozenset[str]


def sqlite_file(url: str | None) -> Path | None:
    """The bank's file when ``url`` (default: ``QUIZZER_DB``) is a SQLite file that exists, else None."""
    url = database_url(url)
    path = Path(url.removeprefix("sqlite:///"))
    return path if url.startswith("sqlite:///") and path.is_file() else None


def glance(url: str | None, profile: str, now: datetime) -> Glance | None:
    """This learner's fingerprint and reviews due at ``now`` (aware), read in one transaction."""
    path = sqlite_file(url)
    if path is None:
        return None
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=READ_TIMEOUT_S)) as connection:
            connection.execute("BEGIN")  # one snapshot for every read below
            learner = connection.execute("SELECT id FROM learner WHERE name = ?", (profile,)).fetchone()
            if learner is None:
                return None
            facts = [
                *connection.execute("SELECT key, value FROM meta ORDER BY key"),
                connection.execute("SELECT count(*), max(updated_at), total(length(source_yaml)) FROM template"
                                   ).fetchone(),
                connection.execute("SELECT count(*), max(id), total(id), total(score), max(created_at) FROM attempt"
                                   " WHERE learner_id = ?", learner).fetchone(),
                connection.execute("SELECT count(*), max(updated_at), max(due) FROM reviewcard"
                                   " WHERE learner_id = ?", learner).fetchone(),
                connection.execute("SELECT exam_date, minutes_per_day, updated_at FROM studyplan"
                                   " WHERE learner_id = ?", learner).fetchone(),
            ]
            instant = now.astimezone(UTC).replace(tzinfo=None).strftime(STORED_INSTANT)
            due = frozenset(key for (key,) in connection.execute(
                "SELECT template_key FROM reviewcard WHERE learner_id = ? AND due <= ?", (*learner, instant)))
    except sqlite3.Error:
        return None
    return Glance(repr((profile, facts)), due)
