"""A killed test run's leftovers are removed by the next run, and a live run's are not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.databases import PREFIX, PostgresServer
from tests.leftovers import remove_killed_runs


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def a_run(root: Path, name: str, pid: int | None) -> Path:
    run = root / name
    (run / "popen-gw0" / "test_x0").mkdir(parents=True)
    (run / "popen-gw0" / "test_x0" / "bank.sqlite").write_bytes(b"SQLite format 3\0")
    if pid is not None:
        (run / ".lock").write_text(str(pid))
    return run


def test_a_killed_runs_directory_is_removed_and_live_or_finished_ones_stay(tmp_path: Path) -> None:
    killed = a_run(tmp_path, "pytest-1", dead_pid())
    live = a_run(tmp_path, "pytest-2", os.getpid())
    finished = a_run(tmp_path, "pytest-3", None)  # pytest removed its lock: its own rotation handles it
    current = a_run(tmp_path, "pytest-4", dead_pid())
    assert remove_killed_runs(tmp_path, current) == [killed]
    assert not killed.exists()
    assert live.exists() and finished.exists() and current.exists()


def test_a_killed_runs_databases_are_dropped_and_live_ones_stay(postgres: PostgresServer) -> None:
    from sqlalchemy import text

    stale = f"quizzer_test_{dead_pid()}_0"
    with postgres.admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {stale}"))
    live = postgres.create()  # this process's: PREFIX names it
    try:
        assert stale in postgres.drop_stale()
        with postgres.admin.connect() as connection:
            names = set(connection.execute(text("SELECT datname FROM pg_database")).scalars())
        assert stale not in names
        assert live.rsplit("/", 1)[1] in names and live.rsplit("/", 1)[1].startswith(PREFIX)
    finally:
        postgres.drop(live)
