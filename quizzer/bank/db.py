"""Opening the bank: where it lives, SQLite settings, schema creation and version checks.

``QUIZZER_DB`` names the bank as a SQLAlchemy URL (``sqlite:///path``) or a plain
file path; by default it is ``bank.sqlite`` in the user data directory.  SQLite
connections run with foreign keys on, WAL journaling (readers never block the
writer) and a busy timeout, so two windows on one bank wait instead of failing.
Every read-modify-write takes the write lock *before* it reads (:func:`begin_write`),
so two processes can never both decide from the same stale state.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError
from sqlmodel import Session, SQLModel, create_engine, select

from quizzer.bank.models import SCHEMA_VERSION, Meta
from quizzer.errors import UserError

BUSY_TIMEOUT_MS = 15_000


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
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across an application crash
    cursor.close()


def open_bank(url: str | None = None, *, cross_thread: bool = False) -> Engine:
    """Connect, create the schema if new, and refuse a bank from a newer version of quizzer.

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
        with Session(engine) as session:
            if not _is_initialised(session):
                # A new bank opened by two windows at once: one creates the schema, the other waits.
                _lock_for_writing(session.connection())
                SQLModel.metadata.create_all(session.connection())
            _check_version(session, url)
    except DatabaseError as exc:
        engine.dispose()
        raise UserError(f"cannot open the bank: {_reason(exc)}", where=_display(url)) from None
    return engine


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


def _is_initialised(session: Session) -> bool:
    inspector = inspect(session.connection())
    return all(inspector.has_table(table.name) for table in SQLModel.metadata.sorted_tables)


def _check_version(session: Session, url: str) -> None:
    row = session.exec(select(Meta).where(Meta.key == "schema_version")).first()
    if row is None:
        session.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
        session.commit()
    elif int(row.value) > SCHEMA_VERSION:
        raise UserError(f"the bank has schema version {row.value}, newer than this quizzer "
                        f"understands ({SCHEMA_VERSION}); upgrade quizzer", where=_display(url))


def _reason(exc: SQLAlchemyError) -> str:
    original = getattr(exc, "orig", None)
    text = str(original or exc).splitlines()[0]
    if isinstance(exc, OperationalError) and "locked" in text:
        return "the database stayed locked by another process; try again"
    return text


def _display(url: str) -> str:
    return url.removeprefix("sqlite:///")


def begin_write(session: Session) -> None:
    """Take SQLite's write lock now (``BEGIN IMMEDIATE``), waiting up to the busy timeout while
    another process writes, so nothing the session reads next can change before it commits.
    Call it before any read-modify-write; the session's next commit or rollback releases it."""
    _lock_for_writing(session.connection())


def _lock_for_writing(connection: Connection) -> None:
    if connection.dialect.name != "sqlite" or connection.connection.driver_connection.in_transaction:
        return  # already writing (the lock is held), or a server database with its own locking
    try:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    except OperationalError as exc:
        raise UserError(_reason(exc)) from None


def new_session(engine: Engine) -> Session:
    """The one place sessions are made; store functions take the session they are given."""
    return Session(engine, expire_on_commit=False)
