"""`quizzer validate` and `quizzer add` of a folder name every broken file, one line each in the format
one broken file gets, then exit with status 2; `add` adds nothing unless every file is valid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run
from tests.hang import HANG_SECONDS
from tests.templates.test_validate_files import GOOD, broken_files

EXE = Path(sys.executable).with_name("quizzer")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def folder(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A folder of one good file and three broken ones (listed after it)."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "a-good.yaml").write_text(GOOD, encoding="utf-8")
    return pack, broken_files(pack)


def line_alone(command: str, path: Path) -> str:
    code, out, err = run(command, str(path))
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    return err.splitlines()[0]


@pytest.mark.parametrize("command", ["validate", "add"])
def test_three_broken_files_and_a_good_one_give_three_lines_and_status_2(
        command: str, tmp_path: Path, isolated_bank: Path) -> None:
    pack, broken = folder(tmp_path)
    before = isolated_bank.read_bytes()
    code, out, err = run(command, str(pack))
    assert code == 2 and out == ""
    assert err.splitlines() == [line_alone(command, path) for path in broken]
    named = [line.removeprefix("quizzer: ").split(": ")[0] for line in err.splitlines()]
    assert named == [str(broken[0]), f"{broken[1]}:2", str(broken[2])]  # broken YAML: the file and its line
    assert isolated_bank.read_bytes() == before  # add is all or nothing: the good file is not added
    _, listed, _ = run("list", "--json")
    assert "practice/lint-good" not in {item["key"] for item in json.loads(listed)}


def test_validate_and_add_print_the_same_lines_and_add_works_once_they_are_fixed(tmp_path: Path) -> None:
    pack, broken = folder(tmp_path)
    assert run("validate", str(pack))[1:] == ("", run("add", str(pack))[2])
    for path in broken:
        path.unlink()
    code, out, _ = run("add", str(pack))
    assert code == 0 and out == "1 added, 0 updated, 0 unchanged.\n"


def test_the_installed_command_prints_every_line_without_a_traceback(tmp_path: Path, isolated_bank: Path) -> None:
    pack, broken = folder(tmp_path)
    done = subprocess.run([str(EXE), "validate", str(pack)], capture_output=True, text=True, timeout=HANG_SECONDS,
                          env={**os.environ, "QUIZZER_DB": str(isolated_bank)})
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 3
    assert all(line.startswith(f"quizzer: {path}") for line, path in zip(lines, broken, strict=True))
