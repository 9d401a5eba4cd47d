"""Every command that writes, killed with SIGKILL while it writes: nothing lost, nothing half-written.

Each case runs a real ``quizzer`` process on its own copy of a bank and kills it as soon as it
starts writing (the bank's WAL file grows, or a file appears in the output folder), after a short
random delay, or (a "late" case) at a random moment of what an uninterrupted run takes.  Then,
read with plain sqlite3: the integrity check passes and the bank holds exactly
what it held before the command or exactly what an uninterrupted run of the same command leaves
(times aside); an export's folder holds nothing or the complete files; and the next ``quizzer``
opens the bank.  (``test_crash`` kills a learner mid-answer five more times.)
"""

from __future__ import annotations

import random
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import cli_runner
from tests.bank.v1 import build_v1_bank
from tests.bundled_templates import QUESTIONS
from tests.hang import HANG_SECONDS
from tests.trust.processes import start_quizzer

Q277 = "2024T3_Q1_NA Q277"
Snapshot = dict[str, list[tuple[object, ...]]]


def _comparable(value: object, work: str) -> object:
    if isinstance(value, float):
        return f"{value:.9g}"
    return value.replace(work, "{work}") if isinstance(value, str) else value


def snapshot(db: Path) -> Snapshot:
    """Every table's rows without its date-time columns (an uninterrupted run records other times),
    floats to 9 significant digits, the run's own folder written ``{work}`` (the finished and the
    killed run each have one: `add` records the file it read); after SQLite's integrity check."""
    work = str(db.parent)
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        state: Snapshot = {}
        for table in tables:
            columns = [name for _, name, kind, *_ in connection.execute(f'PRAGMA table_info("{table}")')
                       if kind.upper() not in ("DATETIME", "TIMESTAMP") and name not in ("due", "state_json")]
            names = ", ".join(f'"{column}"' for column in columns)
            rows = connection.execute(f'SELECT {names} FROM "{table}"').fetchall()
            state[table] = sorted((tuple(_comparable(v, work) for v in row) for row in rows), key=repr)
    return state


def folder(path: Path, *, hidden: bool = False) -> dict[str, bytes]:
    """The files a user sees (and, with ``hidden``, a writer's hidden ``.NAME.*.part`` temporaries too:
    a killed one's is removed by the next write to the same target, not by the killed process)."""
    if not path.exists():
        return {}
    return {file.name: file.read_bytes() for file in sorted(path.iterdir()) if hidden or not file.name.startswith(".")}


def wal_grew(db: Path) -> Callable[[], bool]:
    wal = db.with_name(db.name + "-wal")
    start = wal.stat().st_size if wal.exists() else 0
    return lambda: wal.exists() and wal.stat().st_size > start


def kill_when(db: Path, args: list[str], writing: Callable[[], bool], delay: float) -> bool:
    """Run ``quizzer ARGS`` and SIGKILL it ``delay`` seconds after ``writing()`` turns true;
    whether it was killed (False: it finished first)."""
    process = start_quizzer(db, *args, stdout=subprocess.DEVNULL)  # read by nobody until the kill
    while process.poll() is None and not writing():
        time.sleep(0.0005)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=HANG_SECONDS)
    return process.returncode == -signal.SIGKILL


def finish(db: Path, args: list[str]) -> float:
    """Run ``quizzer ARGS`` to the end in a process of its own; how many seconds it took."""
    started = time.perf_counter()
    process = start_quizzer(db, *args)
    out, err = process.communicate(timeout=HANG_SECONDS)
    assert process.returncode == 0, err
    return time.perf_counter() - started


def run_here(db: Path, args: list[str]) -> None:
    """Run ``quizzer ARGS`` to the end in this process: a case's preparation, the uninterrupted run
    that is not timed, and the next start; only the command that is killed needs a process of its own
    (each saved ~1 s of interpreter start-up and imports)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUIZZER_DB", str(db))
        code, _, err = cli_runner.run(*args)
    assert code == 0, err


@dataclass
class Case:
    """A command on a prepared bank; ``output``: the folder it writes files into, if any; ``late``:
    killed at a random moment of its run (a fraction of an uninterrupted run's time), not as it
    starts writing."""
    args: list[str]
    prepare: Callable[[Path, Path], None] = lambda db, work: None
    output: str | None = None
    late: bool = False


def batch_file(work: Path, answers: int = 300, learners: tuple[str, ...] = ("learner3",)) -> Path:
    """Answers to Q277 by ``learners`` in turn, each new to the bank (created by the batch)."""
    lines = ["key,seed,answer,learner,seconds"]
    lines += [f"{Q277},{n},{18944000 + n},{learners[n % len(learners)]},{n % 50}" for n in range(answers)]
    path = work / "answers.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def prepare_batch(db: Path, work: Path) -> None:
    batch_file(work, learners=("learner3", "learner4", "learner5"))


def prepare_add(db: Path, work: Path) -> None:
    source = (QUESTIONS / "week2" / "training_tricks" / "warmup-rate.yaml").read_text(encoding="utf-8")
    assert "key: practice/warmup-rate" in source
    (work / "new.yaml").write_text(source.replace("key: practice/warmup-rate", "key: practice/killed-add"),
                                   encoding="utf-8")


def prepare_progress(db: Path, work: Path) -> None:
    other = work / "other.sqlite"
    shutil.copyfile(db, other)
    run_here(other, ["grade", "--batch", str(batch_file(work, answers=120))])
    run_here(other, ["--profile", "learner3", "progress", "export", str(work / "progress.json")])


def prepare_regrade(db: Path, work: Path) -> None:
    run_here(db, ["grade", "--batch", str(batch_file(work, answers=200))])
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE meta SET value = '0' WHERE key = 'grading_rules'")
        connection.commit()


def prepare_rename(db: Path, work: Path) -> None:
    run_here(db, ["grade", "--batch", str(batch_file(work, answers=200))])


CASES = {
    "grade-batch": Case(["grade", "--batch", "{work}/answers.csv"], prepare_batch),
    "grade-batch-late": Case(["grade", "--batch", "{work}/answers.csv"], prepare_batch, late=True),
    "add": Case(["add", "--seeds", "20", "{work}/new.yaml"], prepare_add),
    "progress-import": Case(["--profile", "newcomer", "progress", "import", "{work}/progress.json"], prepare_progress),
    "regrade": Case(["list"], prepare_regrade),
    "profiles-rename": Case(["profiles", "rename", "learner3", "learner33"], prepare_rename),
    "grade-one": Case(["grade", Q277, "--seed", "4", "--answer", "18944000"]),
    "export": Case(["export", "-f", "md", "-n", "30", "--seed", "5", "-o", "{work}/out/paper.md"], output="out"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_a_command_killed_while_writing_leaves_before_or_after(name: str, bundled_bank: Path, tmp_path: Path) -> None:
    case, rng = CASES[name], random.Random(name)
    delay = rng.uniform(0, 0.005)
    runs, took = {}, 0.0
    for run in ("finished", "killed"):
        work = tmp_path / run
        work.mkdir()
        db = work / "bank.sqlite"
        shutil.copyfile(bundled_bank, db)
        case.prepare(db, work)
        args = [arg.replace("{work}", str(work)) for arg in case.args]
        out = work / (case.output or "none")
        if case.output:
            out.mkdir()
        before = snapshot(db)
        if run == "finished" and case.late:
            took = finish(db, args)  # the same process as the killed one: its kill moment is a share of this
        elif run == "finished":
            run_here(db, args)
        elif case.late:
            kill_when(db, args, lambda: True, rng.uniform(0.2, 0.9) * took)
        else:
            writing = (lambda folder=out: any(folder.iterdir())) if case.output else wal_grew(db)
            kill_when(db, args, writing, delay)
        runs[run] = (before, snapshot(db), folder(out))
    (before, after, files), (_, killed, killed_files) = runs["finished"], runs["killed"]
    assert after != before or case.output, "the uninterrupted command changed nothing: nothing was tested"
    assert killed in (before, after)
    assert killed_files in ({}, files)
    run_here(tmp_path / "killed" / "bank.sqlite", ["list"])  # the bank opens
    if case.output:  # the same command again, over whatever the killed one left: only the complete files
        killed_args = [arg.replace("{work}", str(tmp_path / "killed")) for arg in case.args]
        run_here(tmp_path / "killed" / "bank.sqlite", [*killed_args, "--force"])
        assert folder(tmp_path / "killed" / case.output, hidden=True) == files


@pytest.mark.slow
def test_an_upgrade_killed_while_writing_keeps_every_v1_attempt(tmp_path: Path) -> None:
    db = tmp_path / "bank.sqlite"
    build_v1_bank(db, attempts=400)
    columns = "template_key, seed, response, verdict, score"
    with closing(sqlite3.connect(db)) as connection:
        attempts = connection.execute(f"SELECT {columns} FROM attempt ORDER BY id").fetchall()
    backup = db.with_name("bank.sqlite.v1.bak")
    kill_when(db, ["list"], lambda: wal_grew(db)() or backup.exists(), 0.001)
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert connection.execute(f"SELECT {columns} FROM attempt ORDER BY id").fetchall() == attempts
    run_here(db, ["list"])  # opens, upgrading now if the kill came first
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute(f"SELECT {columns} FROM attempt ORDER BY id").fetchall() == attempts
