"""Damaged state through the command line: a corrupt or truncated bank, a bank from a newer quizzer,
a data directory that cannot be written, a missing questions directory.  Each is one clear line on
stderr and exit status 2, and nothing on disk changes."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from quizzer.bank import SCHEMA_VERSION
from tests.cli_runner import run
from tests.hang import HANG_SECONDS

EXE = Path(sys.executable).with_name("quizzer")
KEY = "2024T3_Q1_NA Q277"
COMMANDS = [("list",), ("grade", KEY, "--seed", "0", "--answer", "1"), ("profiles",),
            ("progress", "export", "-")]


def fingerprint(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def corrupt(bank: Path) -> None:
    bank.write_bytes(random.Random(7).randbytes(64 * 1024))


def truncated(bank: Path) -> None:
    data = bank.read_bytes()
    bank.write_bytes(data[: len(data) // 3])


def newer(bank: Path) -> None:
    with closing(sqlite3.connect(bank)) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        db.commit()


def garbled(bank: Path) -> None:
    with closing(sqlite3.connect(bank)) as db:
        db.execute("UPDATE meta SET value = 'two' WHERE key = 'schema_version'")
        db.commit()


def foreign(bank: Path) -> None:
    """Some other program's SQLite file: tables, but no quizzer schema version."""
    bank.unlink()
    with closing(sqlite3.connect(bank)) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.commit()


DAMAGE = {
    corrupt: "cannot open the bank: file is not a database (the file is damaged",
    truncated: "cannot open the bank: database disk image is malformed (the file is damaged",
    newer: f"the bank has schema version 99, newer than this quizzer understands ({SCHEMA_VERSION}); upgrade quizzer",
    garbled: "the bank's schema version is unreadable (invalid literal for int() with base 10: 'two')",
    foreign: "not a quizzer bank (it holds other tables and no schema version)",
}


def assert_one_line_exit_2(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert err.startswith("quizzer: ") and err.count("\n") == 1 and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("damage", list(DAMAGE), ids=lambda d: d.__name__)
def test_a_damaged_bank_is_one_line_and_left_as_it_was(damage: object, command: tuple[str, ...],
                                                       bundled_bank: Path) -> None:
    damage(bundled_bank)  # type: ignore[operator]
    before = fingerprint(bundled_bank)
    code, out, err = run(*command)
    assert_one_line_exit_2(code, err, DAMAGE[damage])  # type: ignore[index]
    assert err.startswith(f"quizzer: {bundled_bank}: ") and out == ""
    assert fingerprint(bundled_bank) == before
    assert sorted(p.name for p in bundled_bank.parent.iterdir() if p.name.startswith("bank")) == ["bank.sqlite"]


def test_a_data_directory_under_a_file_cannot_be_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Works even as root: no permission bit can make a file's child a directory."""
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the data directory should be")
    monkeypatch.setenv("QUIZZER_DB", str(blocker / "quizzer" / "bank.sqlite"))
    code, _, err = run("grade", KEY, "--seed", "0", "--answer", "1")
    assert_one_line_exit_2(code, err, f"{blocker / 'quizzer'}: cannot create the data directory: Not a directory")
    assert blocker.read_text() == "a file where the data directory should be"


def test_a_read_only_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as root: permission bits do not stop writes (see the test above)")
        monkeypatch.setenv("QUIZZER_DB", str(folder / "bank.sqlite"))
        code, _, err = run("list")
        assert_one_line_exit_2(code, err, f"{folder}: the data directory is not writable")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


def test_a_read_only_bank_file(bundled_bank: Path) -> None:
    bundled_bank.chmod(0o400)
    try:
        if os.access(bundled_bank, os.W_OK):
            pytest.skip("running as root: permission bits do not stop writes")
        before = fingerprint(bundled_bank)
        code, _, err = run("list")
        assert_one_line_exit_2(code, err, f"{bundled_bank}: the bank file is not readable and writable")
        assert fingerprint(bundled_bank) == before
    finally:
        bundled_bank.chmod(0o600)


def test_a_missing_questions_directory_touches_no_bank(bundled_bank: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    nowhere = tmp_path / "no-such-questions"
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(nowhere))
    before = fingerprint(bundled_bank)
    for command in COMMANDS:
        code, _, err = run(*command)
        assert_one_line_exit_2(code, err, f"quizzer: {nowhere}: the bundled questions directory is missing")
    assert fingerprint(bundled_bank) == before
    monkeypatch.setenv("QUIZZER_DB", str(tmp_path / "new" / "bank.sqlite"))
    code, _, err = run("list")
    assert code == 2 and not (tmp_path / "new" / "bank.sqlite").exists()


@pytest.mark.parametrize("damage", [corrupt, truncated, newer, "missing questions"],
                         ids=lambda d: getattr(d, "__name__", str(d)))
def test_damage_in_a_real_process(damage: object, bundled_bank: Path, tmp_path: Path) -> None:
    env = {**os.environ, "QUIZZER_DB": str(bundled_bank)}
    if callable(damage):
        damage(bundled_bank)
        message = DAMAGE[damage]  # type: ignore[index]
    else:
        env["QUIZZER_QUESTIONS_DIR"] = str(tmp_path / "nowhere")
        message = "the bundled questions directory is missing"
    before = fingerprint(bundled_bank)
    result = subprocess.run([str(EXE), "grade", KEY, "--seed", "0", "--answer", "1"], capture_output=True,
                            text=True, env=env, timeout=HANG_SECONDS)
    assert_one_line_exit_2(result.returncode, result.stderr, message)
    assert result.stdout == "" and fingerprint(bundled_bank) == before
