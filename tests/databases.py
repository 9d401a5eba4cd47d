"""Throwaway PostgreSQL databases for the tests that run on both SQLite and PostgreSQL.

``QUIZZER_TEST_PG_URL`` names a server the tests may create and drop databases on, as a
role with CREATEDB (e.g. ``postgresql+psycopg://postgres@127.0.0.1:54329/postgres``;
``.ci/run`` starts one).  Each test gets a database of its own, copied from a template
(``CREATE DATABASE … TEMPLATE``), which takes milliseconds rather than re-importing the bank.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool
from sqlmodel import Session

from quizzer.bank.db import display_url, new_session, open_bank
from tests.leftovers import process_alive

URL_VARIABLE = "QUIZZER_TEST_PG_URL"
NAME_START = "quizzer_test_"
# Each test process (an xdist worker too) names its databases by its pid: runs side by side on one
# server never share a name, and a database whose process is gone was left by a killed run.
PREFIX = f"{NAME_START}{os.getpid()}_"


@contextmanager
def bank_session(url: str | Path | None = None) -> Iterator[Session]:
    """A session on the bank at ``url`` (default: ``QUIZZER_DB``), as another process would open it;
    the engine is disposed afterwards, so a SQLite file is checkpointed and closed."""
    engine = open_bank(None if url is None else str(url))
    try:
        with new_session(engine) as session:
            yield session
    finally:
        engine.dispose()


def postgres_required() -> bool:
    """CI must exercise PostgreSQL: there an unreachable server fails the tests instead of skipping them."""
    return any(os.environ.get(name, "").lower() not in ("", "0", "false", "no")
               for name in ("CI", "QUIZZER_REQUIRE_PG"))


class PostgresServer:
    """Creates and drops this run's databases through one administrative connection URL."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = make_url(admin_url).set(drivername="postgresql+psycopg")
        # AUTOCOMMIT: CREATE/DROP DATABASE cannot run inside a transaction.
        self.admin: Engine = create_engine(self.admin_url, isolation_level="AUTOCOMMIT", poolclass=NullPool,
                                           connect_args={"connect_timeout": 5})
        self.names = (f"{PREFIX}{n}" for n in itertools.count())

    def check(self) -> None:
        with self.admin.connect() as connection:
            connection.execute(text("SELECT 1"))

    def drop_stale(self) -> list[str]:
        """Drop the databases of test processes that no longer run (a run killed before its
        finalizers); returns their names.  Those of live processes, this run's other workers or
        another run's, are left alone."""
        with self.admin.connect() as connection:
            names = connection.execute(text("SELECT datname FROM pg_database WHERE datname LIKE :start"),
                                       {"start": f"{NAME_START}%"}).scalars().all()
        stale = [name for name in names if not process_alive(_owner_pid(name))]
        for name in stale:
            self.drop(self.admin_url.set(database=name).render_as_string(hide_password=False))
        return stale

    def create(self, template: str | None = None) -> str:
        """A new, empty (or ``template``'s copy) database; returns its URL."""
        name = next(self.names)
        # FILE_COPY: copies the files at once (PostgreSQL 15 would otherwise write every page to the
        # WAL); 0.13 s instead of 0.19 s with the test server's fsync off.
        copy = f" TEMPLATE {template} STRATEGY = FILE_COPY" if template else ""
        with self.admin.connect() as connection:
            connection.execute(text(f"CREATE DATABASE {name}{copy}"))
        return self.admin_url.set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        name = make_url(url).database
        with self.admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def _owner_pid(name: str) -> int:
    pid = name.removeprefix(NAME_START).split("_", 1)[0]
    return int(pid) if pid.isdigit() else 0


def connect_server() -> tuple[PostgresServer | None, str]:
    """The test server, or None and the reason it cannot be used."""
    admin_url = os.environ.get(URL_VARIABLE)
    if not admin_url:
        return None, f"PostgreSQL tests need a server: set {URL_VARIABLE} (.ci/run starts one)"
    try:
        server = PostgresServer(admin_url)
        server.check()
    except (SQLAlchemyError, ValueError) as exc:
        reason = " ".join(str(getattr(exc, "orig", None) or exc).splitlines()[0].split())
        return None, f"PostgreSQL at {display_url(admin_url)} ({URL_VARIABLE}) is unreachable: {reason}"
    return server, ""
