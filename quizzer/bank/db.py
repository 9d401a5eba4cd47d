"""Opening the bank: where it lives, connection settings, schema creation and version checks.

``QUIZZER_DB`` names the bank as a SQLAlchemy URL or a plain file path; by default it is
``bank.sqlite`` in the user data directory.  Two databases are supported:

* SQLite (``sqlite:///path`` or a path), one learner's laptop.  Connections run with
  foreign keys on, WAL journaling (readers never block the writer) and a busy timeout, so
  two windows on one bank wait instead of failing.
* PostgreSQL (``postgresql+psycopg://user:password@host/database``; ``postgresql://`` and
  ``postgres://`` mean the same), one bank shared by a class.

Setting the bank up (schema, version row, bundled questions) holds a lock until it commits
(:func:`lock_setup`), so a whole class starting at once on an empty bank sets it up once.

A URL is only ever shown with its password masked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError, SQLAlchemyError
from sqlmodel import Session, SQLModel, create_engine, select

from quizzer.bank.models import SCHEMA_VERSION, Meta
from quizzer.errors import UserError

BUSY_TIMEOUT_MS = 15_000
CONNECT_TIMEOUT_S = 10  # an unreachable server is reported after this, not after the OS's minutes
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
SETUP_LOCK_KEY = 0x71756979  # PostgreSQL advisory lock id for setting the bank up ("quiy")


def default_location() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("quizzer", appauthor=False)) / "bank.sqlite"


def database_url(value: str | None = None) -> str:
    """``QUIZZER_DB`` (URL or path), else the default file; PostgreSQL URLs name the psycopg driver."""
    value = value or os.environ.get("QUIZZER_DB") or str(default_location())
    if "://" not in value:
        return f"sqlite:///{Path(value).expanduser()}"
    scheme, rest = value.split("://", 1)
    return f"postgresql+psycopg://{rest}" if scheme in POSTGRES_SCHEMES else value


def is_postgres(url: str) -> bool:
    return url.startswith("postgresql+psycopg://")


def display_url(url: str) -> str:
    """The bank's location for messages: a file path, or the URL with its password masked."""
    if url.startswith("sqlite:///"):
        return url.removeprefix("sqlite:///")
    parsed = _parsed(url)
    # Unparseable: show no part that may hold a password.
    return parsed.render_as_string(hide_password=True) if parsed else url.split("://", 1)[0] + "://…"


def _parsed(url: str) -> URL | None:
    try:
        return make_url(url)
    except (ArgumentError, ValueError):
        return None


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
    engine = _create_engine(url, cross_thread=cross_thread)
    try:
        with engine.connect() as connection:
            ready = _stored_version(connection) == SCHEMA_VERSION
        if not ready:  # set-up is written with the version row, so a bank that has it needs no lock
            with engine.begin() as connection:
                lock_setup(connection)
                SQLModel.metadata.create_all(connection)
                _check_version(connection, url)
    except DatabaseError as exc:
        engine.dispose()
        raise UserError(f"cannot open the bank: {database_reason(exc, url)}", where=display_url(url)) from None
    return engine


def _create_engine(url: str, *, cross_thread: bool) -> Engine:
    if url.startswith("sqlite:///"):
        _check_sqlite_file(Path(url.removeprefix("sqlite:///")))
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000,
                                                  "check_same_thread": not cross_thread})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if not is_postgres(url):
        raise UserError(f"unsupported database {url.split('://', 1)[0]!r}; use a file path, sqlite:///PATH "
                        "or postgresql://USER:PASSWORD@HOST/DATABASE", where="QUIZZER_DB")
    try:
        # pre_ping: a class's long-running app survives the server restarting between answers.
        return create_engine(_with_connect_timeout(make_url(url)), pool_pre_ping=True)
    except (ArgumentError, ValueError) as exc:
        raise UserError(f"not a valid database URL ({exc})", where=display_url(url)) from None


def _with_connect_timeout(url: URL) -> URL:
    if "connect_timeout" in url.query:
        return url
    return url.update_query_dict({"connect_timeout": str(CONNECT_TIMEOUT_S)})


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


def lock_setup(connection: Connection) -> None:
    """Wait for any other process setting the bank up, and hold it off until this transaction ends.

    Without it, learners starting together on a new bank would each see no tables (or no
    questions), each create them, and all but one would fail on the duplicates.  PostgreSQL:
    an advisory lock.  SQLite: the write lock, taken at once rather than at the first write."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SETUP_LOCK_KEY})
    elif not connection.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def _stored_version(connection: Connection) -> int | None:
    if not inspect(connection).has_table(Meta.__tablename__):
        return None
    value = connection.execute(select(Meta.value).where(Meta.key == "schema_version")).scalar()
    return None if value is None else int(value)


def _check_version(connection: Connection, url: str) -> None:
    with Session(bind=connection) as session:
        row = session.exec(select(Meta).where(Meta.key == "schema_version")).first()
        if row is None:
            session.add(Meta(key="schema_version", value=str(SCHEMA_VERSION)))
            session.flush()
        elif int(row.value) > SCHEMA_VERSION:
            raise UserError(f"the bank has schema version {row.value}, newer than this quizzer "
                            f"understands ({SCHEMA_VERSION}); upgrade quizzer", where=display_url(url))


def database_reason(exc: SQLAlchemyError, url: str) -> str:
    """The first line of the driver's message, in plain words where it is a known case, never a password."""
    original = getattr(exc, "orig", None)
    reason = " ".join(str(original or exc).splitlines()[0].split())
    if isinstance(exc, OperationalError) and "locked" in reason:
        return "the database stayed locked by another process; try again"
    password = (parsed := _parsed(url)) and parsed.password
    return reason.replace(str(password), "***") if password else reason


@contextmanager
def database_errors(url: str | None = None) -> Iterator[None]:
    """A database failure midway (a server gone away, a full disk) as one UserError line, not a
    traceback; whatever was not committed is rolled back by the session's owner."""
    try:
        yield
    except SQLAlchemyError as exc:
        url = database_url(url)
        raise UserError(f"database error: {database_reason(exc, url)}", where=display_url(url)) from None


def new_session(engine: Engine) -> Session:
    """The one place sessions are made; store functions take the session they are given."""
    return Session(engine, expire_on_commit=False)
