"""Opening the bank: where it lives, SQLite settings, schema creation, version checks and upgrades.

``QUIZZER_DB`` names the bank as a SQLAlchemy URL (``sqlite:///path``) or a plain
file path; by default it is ``bank.sqlite`` in the user data directory.  SQLite
connections run with foreign keys on, WAL journaling (readers never block the
writer) and a busy timeout, so two windows on one bank wait instead of failing.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError
from sqlmodel import Session, create_engine

from quizzer.bank.migrations import create_latest, stored_version, upgrade
from quizzer.bank.models import SCHEMA_VERSION
from quizzer.errors import UserError
from quizzer.profiles import os_profile_name

BUSY_TIMEOUT_MS = 15_000
SCHEMA_LOCK_ID = 0x717A7A72  # PostgreSQL advisory lock taken while creating or upgrading the schema


def default_location() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "bank.sqlite"


def database_url(value: str | None = None) -> str:
    """``QUIZZER_DB`` (URL or path), else the default file."""
    value = value or os.environ.get("QUIZZER_DB") or str(default_location())
    return value if "://" in value else f"sqlite:///{Path(value).expanduser()}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across an application crash
    cursor.close()


def open_bank(url: str | None = None, *, cross_thread: bool = False) -> Engine:
    """Connect, create the schema if new, upgrade an older bank, and refuse one from a newer quizzer.

    ``cross_thread``: the app opens the bank in a worker thread and then uses it from the UI
    thread (never both at once), which SQLite's default same-thread check would refuse."""
    url = database_url(url)
    connect_args: dict[str, Any] = {}
    if url.startswith("sqlite"):
        connect_args = {"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": not cross_thread}
    if url.startswith("sqlite:///"):
        _check_sqlite_file(Path(url.removeprefix("sqlite:///")))
    engine = create_engine(url, connect_args=connect_args)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        with database_errors(url, doing="open"):
            _bring_up_to_date(engine, url)
    except BaseException:
        engine.dispose()
        raise
    return engine


@contextmanager
def database_errors(url: str, *, doing: str = "use") -> Iterator[None]:
    """A database that cannot be read or written (not a database, truncated, locked for too long)
    is reported as one line naming the bank, never as a traceback."""
    try:
        yield
    except DatabaseError as exc:
        raise UserError(f"cannot {doing} the bank: {_reason(exc)}", where=_display(url)) from None


def _check_sqlite_file(path: Path) -> None:
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise UserError("the bank file is not readable and writable", where=str(path))
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the data directory: {exc.strerror}", where=str(path.parent)) from None
    if not os.access(path.parent, os.W_OK):
        raise UserError("the data directory is not writable", where=str(path.parent))


def _bring_up_to_date(engine: Engine, url: str) -> None:
    """The common case reads one row.  Only a file known to be a quizzer bank is ever written to:
    WAL journaling is persistent in the file, so it is switched on here, not on connecting."""
    with engine.connect() as connection:
        current = _usable_version(connection, url) == SCHEMA_VERSION
    if not current:
        _create_or_upgrade(engine, url)
    if engine.dialect.name == "sqlite":
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA journal_mode=WAL")


def _create_or_upgrade(engine: Engine, url: str) -> None:
    """Under the write lock, and after checking again, so two processes opening an old bank at
    once upgrade it exactly once."""
    backup: Path | None = None
    with _exclusive_transaction(engine) as connection:
        version = _usable_version(connection, url)
        if version is None:
            create_latest(connection)
        elif version < SCHEMA_VERSION:
            backup = _backup_sqlite(url, version)
            upgrade(connection, from_version=version, default_learner=os_profile_name())
    if backup is not None:
        print(f"quizzer: upgraded the bank to schema version {SCHEMA_VERSION}; "
              f"the previous bank is saved as {backup}", file=sys.stderr)


def _usable_version(connection: Connection, url: str) -> int | None:
    """The stored schema version if this quizzer can use the bank (None: an empty database)."""
    try:
        version = stored_version(connection)
    except ValueError as exc:
        raise UserError(f"the bank's schema version is unreadable ({exc})", where=_display(url)) from None
    if version == 0:
        raise UserError("not a quizzer bank (it holds other tables and no schema version)", where=_display(url))
    if version is not None and version > SCHEMA_VERSION:
        raise UserError(f"the bank has schema version {version}, newer than this quizzer "
                        f"understands ({SCHEMA_VERSION}); upgrade quizzer", where=_display(url))
    return version


@contextmanager
def _exclusive_transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction holding the write lock from its first statement; committed on success,
    rolled back (leaving the bank exactly as it was) on any error."""
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            # pysqlite would run DDL outside any transaction; an explicit BEGIN makes it atomic.
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        elif connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK_ID})")
        yield connection
        connection.commit()


def _backup_sqlite(url: str, version: int) -> Path | None:
    """Copy a bank file before upgrading it, with SQLite's online backup (consistent even in WAL
    mode); an existing backup is never overwritten.  It reads through a connection of its own:
    SQLite refuses to back up from the connection holding the write lock, and while we hold that
    lock nobody can change the bank between this copy and the upgrade."""
    path = Path(url.removeprefix("sqlite:///"))
    if not url.startswith("sqlite:///") or not path.is_file():
        return None
    target = path.with_name(f"{path.name}.v{version}.bak")
    for number in itertools.count(2):
        if not target.exists():
            break
        target = path.with_name(f"{path.name}.v{version}.{number}.bak")
    partial = target.with_name(target.name + ".partial")
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as source, \
                closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        raise UserError(f"cannot back up the bank before upgrading it: {exc}", where=str(target)) from None
    return target


def _reason(exc: SQLAlchemyError) -> str:
    original = getattr(exc, "orig", None)
    text = str(original or exc).splitlines()[0]
    if isinstance(exc, OperationalError) and "locked" in text:
        return "the database stayed locked by another process; try again"
    if "malformed" in text or "not a database" in text:
        return f"{text} (the file is damaged: restore a copy, or move it aside to start a new bank)"
    return text


def _display(url: str) -> str:
    return url.removeprefix("sqlite:///")


def new_session(engine: Engine) -> Session:
    """The one place sessions are made; store functions take the session they are given."""
    return Session(engine, expire_on_commit=False)
