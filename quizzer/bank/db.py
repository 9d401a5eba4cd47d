"""Opening the bank: where it lives, connection settings, schema creation, version checks and upgrades.

``QUIZZER_DB`` names the bank as a SQLAlchemy URL or a plain file path; by default it is
``bank.sqlite`` in the user data directory.  Two databases are supported:

* SQLite (``sqlite:///path`` or a path), one learner's laptop.  Connections run with
  foreign keys on, WAL journaling (readers never block the writer) and a busy timeout, so
  two windows on one bank wait instead of failing.
* PostgreSQL (``postgresql+psycopg://user:password@host/database``; ``postgresql://`` and
  ``postgres://`` mean the same), one bank shared by a class.

Setting the bank up (schema, version row, bundled questions) holds a lock until it commits
(:func:`lock_setup`), so a whole class starting at once on an empty bank sets it up once.

An older bank is upgraded in one transaction by ``quizzer.bank.migrations`` (a SQLite file is
backed up first); a bank from a newer quizzer is refused.  A URL is only ever shown with its
password masked.
Every read-modify-write takes SQLite's write lock *before* it reads (:func:`begin_write`),
so two processes can never both decide from the same stale state.
"""

from __future__ import annotations

import itertools
import os
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlmodel import Session, create_engine

from quizzer.bank import SCHEMA_VERSION
from quizzer.bank.location import database_url
from quizzer.bank.migrations import create_latest, stored_version, upgrade
from quizzer.common.errors import UserError
from quizzer.common.profiles import os_profile_name

BUSY_TIMEOUT_MS = 15_000
CONNECT_TIMEOUT_S = 10  # an unreachable server is reported after this, not after the OS's minutes
SETUP_LOCK_KEY = 0x71756979  # PostgreSQL advisory lock id for creating, upgrading or filling the bank


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
    cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable across an application crash
    cursor.close()


def open_bank(url: str | None = None, *, cross_thread: bool = False) -> Engine:
    """Connect, create the schema if new, upgrade an older bank, and refuse one from a newer quizzer.

    ``cross_thread``: the app opens the bank in a worker thread and then uses it from the UI
    thread (never both at once), which SQLite's default same-thread check would refuse."""
    url = database_url(url)
    engine = _create_engine(url, cross_thread=cross_thread)
    try:
        with database_errors(url, doing="open"):
            _bring_up_to_date(engine, url)
    except BaseException:
        engine.dispose()
        raise
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


def begin_write(session: Session) -> None:
    """Take SQLite's write lock now (``BEGIN IMMEDIATE``), waiting up to the busy timeout while
    another process writes, so nothing the session reads next can change before it commits.
    Call it before any read-modify-write; the session's next commit or rollback releases it.
    (PostgreSQL's row locking and unique keys need no such step.)"""
    connection = session.connection()
    if connection.dialect.name == "sqlite":
        _begin_immediate(connection)


def lock_setup(connection: Connection) -> None:
    """Wait for any other process setting the bank up, and hold it off until this transaction ends.

    Without it, learners starting together on a new bank would each see no tables (or no
    questions), each create them, and all but one would fail on the duplicates.  PostgreSQL:
    an advisory lock.  SQLite: the write lock, taken at once rather than at the first write."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SETUP_LOCK_KEY})
    else:
        _begin_immediate(connection)


def _begin_immediate(connection: Connection) -> None:
    if connection.connection.dbapi_connection.in_transaction:  # type: ignore[union-attr]
        return  # already writing: the lock is held
    try:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    except OperationalError as exc:
        url = connection.engine.url.render_as_string(hide_password=False)
        raise UserError(database_reason(exc, url), where=display_url(url)) from None


def _bring_up_to_date(engine: Engine, url: str) -> None:
    """The common case reads one row.  Only a file known to be a quizzer bank is ever written to:
    WAL journaling is persistent in the file, so it is switched on here, not on connecting."""
    with engine.connect() as connection:
        current = _usable_version(connection, url) == SCHEMA_VERSION
        wal = engine.dialect.name != "sqlite" or _journal_mode(connection) == "wal"
    if not current:
        _create_or_upgrade(engine, url)
    if not wal:  # once per bank: switching needs every other connection to let go of the file
        _switch_to_wal(engine)


def _switch_to_wal(engine: Engine) -> None:
    """``PRAGMA journal_mode=WAL``, waiting as long as any lock wait.  The switch needs the file to
    itself, and SQLite answers it with "database is locked" at once, without its busy handler, while
    any other connection reads: a class opening a new bank together would fail here (all of them see
    the old journal mode; one switches, the others find it done, or retry).  Random pauses keep two
    switchers from meeting again and again."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            with engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA journal_mode=WAL")
            return
        except OperationalError as exc:
            if "locked" not in str(exc.orig) or time.monotonic() > deadline:
                raise
        time.sleep(random.uniform(0.002, 0.02))


def _journal_mode(connection: Connection) -> str:
    return str(connection.exec_driver_sql("PRAGMA journal_mode").scalar()).lower()


def _create_or_upgrade(engine: Engine, url: str) -> None:
    """Under the write lock, and after checking again, so two processes opening an old bank at
    once upgrade it exactly once."""
    backup: Path | None = None
    with _exclusive_transaction(engine) as connection:
        version = _usable_version(connection, url)
        if version is None:
            create_latest(connection)
        elif version < SCHEMA_VERSION:
            backup = backup_sqlite(url, f"v{version}")
            upgrade(connection, from_version=version, default_learner=os_profile_name())
    if backup is not None:
        print(f"quizzer: upgraded the bank to schema version {SCHEMA_VERSION}; "
              f"the previous bank is saved as {backup}", file=sys.stderr)


def _usable_version(connection: Connection, url: str) -> int | None:
    """The stored schema version if this quizzer can use the bank (None: an empty database)."""
    try:
        version = stored_version(connection)
    except ValueError as exc:
        raise UserError(f"the bank's schema version is unreadable ({exc})", where=display_url(url)) from None
    if version == 0:
        raise UserError("not a quizzer bank (it holds other tables and no schema version)", where=display_url(url))
    if version is not None and version > SCHEMA_VERSION:
        raise UserError(f"the bank has schema version {version}, newer than this quizzer "
                        f"understands ({SCHEMA_VERSION}); upgrade quizzer", where=display_url(url))
    return version


@contextmanager
def _exclusive_transaction(engine: Engine) -> Iterator[Connection]:
    """One transaction holding the set-up lock from its first statement; committed on success,
    rolled back (leaving the bank exactly as it was) on any error."""
    with engine.connect() as connection:
        # On SQLite the explicit BEGIN also makes the DDL atomic (pysqlite runs it outside a transaction).
        lock_setup(connection)
        yield connection
        connection.commit()


def backup_sqlite(url: str, label: str) -> Path | None:
    """Copy a bank file before upgrading it (``bank.sqlite.LABEL.bak``), with SQLite's online backup
    (consistent even in WAL mode); an existing backup is never overwritten.  It reads through a
    connection of its own: SQLite refuses to back up from the connection holding the write lock, and
    while we hold that lock nobody can change the bank between this copy and the upgrade.  Other
    databases (PostgreSQL) are backed up by their administrators: None."""
    path = Path(url.removeprefix("sqlite:///"))
    if not url.startswith("sqlite:///") or not path.is_file():
        return None
    target = path.with_name(f"{path.name}.{label}.bak")
    for number in itertools.count(2):
        if not target.exists():
            break
        target = path.with_name(f"{path.name}.{label}.{number}.bak")
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


def database_reason(exc: SQLAlchemyError, url: str) -> str:
    """The first line of the driver's message, in plain words where it is a known case, never a password."""
    original = getattr(exc, "orig", None)
    reason = " ".join(str(original or exc).splitlines()[0].split())
    if isinstance(exc, OperationalError) and "locked" in reason:
        return "the database stayed locked by another process; try again"
    if "malformed" in reason or "not a database" in reason:
        return f"{reason} (the file is damaged: restore a copy, or move it aside to start a new bank)"
    password = (parsed := _parsed(url)) and parsed.password
    return reason.replace(str(password), "***") if password else reason


@contextmanager
def database_errors(url: str | None = None, *, doing: str = "use") -> Iterator[None]:
    """A database failure (not a database, truncated, locked for too long, a server gone away, a
    full disk) as one UserError line naming the bank, never a traceback; whatever was not
    committed is rolled back by the session's owner."""
    try:
        yield
    except SQLAlchemyError as exc:
        url = database_url(url)
        raise UserError(f"cannot {doing} the bank: {database_reason(exc, url)}", where=display_url(url)) from None


def new_session(engine: Engine) -> Session:
    """The one place sessions are made; store functions take the session they are given."""
    return Session(engine, expire_on_commit=False)
