"""Fixtures shared by every layer: no test ever touches a real user's bank or data directory."""

from __future__ import annotations

import fcntl
import itertools
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy.engine import make_url

from tests.databases import PostgresServer, connect_server, postgres_required
from tests.leftovers import remove_killed_runs
from tests.run_once import run_directory

REPO = Path(__file__).resolve().parent.parent

# No wall-clock limit on any property test: hypothesis's default 200 ms deadline per example failed
# test_mastery on a busy machine (255 ms at load 35). A test's own settings may still tighten it.
settings.register_profile("quizzer", deadline=None)
settings.load_profile("quizzer")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Remove what killed runs left in the temporary directory (their SQLite banks among it); the
    xdist controller does it once, before its workers start."""
    if hasattr(session.config, "workerinput") or session.config.option.basetemp:
        return  # a worker, or a directory the caller chose and owns
    current = session.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    remove_killed_runs(current.parent, current)


_test_directories = itertools.count()


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path`` (every test gets one: ``isolated_bank``), numbered by a counter: pytest's own
    numbers each directory by listing every directory made before it in the run, which grew to ~3 ms per
    test over the ~1,500 tests of a worker."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    path = tmp_path_factory.getbasetemp() / f"{name}-{next(_test_directories)}"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def isolated_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh SQLite bank per test, and a private user data directory."""
    db = tmp_path / "bank.sqlite"
    monkeypatch.setenv("QUIZZER_DB", str(db))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("QUIZZER_DATA_DIR", raising=False)
    monkeypatch.delenv("QUIZZER_QUESTIONS_DIR", raising=False)
    monkeypatch.delenv("QUIZZER_ENGINE_BACKEND", raising=False)
    monkeypatch.delenv("QUIZZER_PROFILE", raising=False)
    return db


@pytest.fixture(scope="session")
def bundled_bank_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bank with every bundled template imported, built once per test run: under pytest-xdist, by
    the first worker that needs it, in the directory all workers' own directories are in, while the
    others wait for it on a lock (each worker built its own before: ~3 s of processor time each).
    Tests copy it; none writes to it."""
    from quizzer.learning.regrade import open_current_bank

    path = run_directory(tmp_path_factory) / "bundled" / "bank.sqlite"
    path.parent.mkdir(exist_ok=True)
    with (path.parent / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not path.exists():
            # Built under another name and renamed when complete: a build that failed leaves nothing
            # that a worker waiting for the lock would take for the bank.
            building = path.with_name("building.sqlite")
            for leftover in path.parent.glob(f"{building.name}*"):  # of a failed build: not to be opened
                leftover.unlink()
            engine, session = open_current_bank(str(building))
            session.close()
            engine.dispose()  # the last connection closing checkpoints the WAL into the file
            building.replace(path)
    return path


@pytest.fixture
def bundled_bank(bundled_bank_file: Path, isolated_bank: Path) -> Path:
    """This test's own copy of the prepared bank, at the path QUIZZER_DB names."""
    shutil.copyfile(bundled_bank_file, isolated_bank)
    return isolated_bank


# --- the same tests on SQLite and on PostgreSQL -------------------------------------------------

DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """The PostgreSQL test server; without one the tests skip, or fail where CI requires it."""
    server, reason = connect_server()
    if server is None:
        if postgres_required():
            pytest.fail(f"{reason}; CI or QUIZZER_REQUIRE_PG requires PostgreSQL", pytrace=False)
        pytest.skip(reason)
    server.drop_stale()
    yield server
    server.admin.dispose()


@pytest.fixture(scope="session")
def postgres_bundled_template(postgres: PostgresServer) -> Iterator[str]:
    """A PostgreSQL database with every bundled template imported, copied by each test that wants it."""
    from quizzer.learning.regrade import open_current_bank

    url = postgres.create()
    engine, session = open_current_bank(url)
    session.close()
    engine.dispose()  # a template database must have no connections when it is copied
    yield make_url(url).database
    postgres.drop(url)


def _postgres_bank(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, template: str | None) -> str:
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.create(template)
    request.addfinalizer(lambda: server.drop(url))
    monkeypatch.setenv("QUIZZER_DB", url)
    return url


@pytest.fixture(params=DATABASES)
def bank_url(request: pytest.FixtureRequest, isolated_bank: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An empty bank of its own per test, on each database in turn; ``QUIZZER_DB`` names it."""
    if request.param == "sqlite":
        return f"sqlite:///{isolated_bank}"
    return _postgres_bank(request, monkeypatch, template=None)


@pytest.fixture(params=DATABASES)
def bundled_bank_url(request: pytest.FixtureRequest, isolated_bank: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A copy of the prepared bank per test, on each database in turn; ``QUIZZER_DB`` names it."""
    if request.param == "sqlite":
        request.getfixturevalue("bundled_bank")
        return f"sqlite:///{isolated_bank}"
    return _postgres_bank(request, monkeypatch, template=request.getfixturevalue("postgres_bundled_template"))
