"""The installed `quizzer` executable in a real subprocess: exit codes, stderr, import discipline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang import HANG_SECONDS

EXE = Path(sys.executable).with_name("quizzer")


def quizzer(*args: str, db: Path | str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QUIZZER_DB": str(db)}
    return subprocess.run([str(EXE), *args], capture_output=True, text=True, env=env, timeout=HANG_SECONDS)


def test_help_and_version_do_not_import_heavy_modules() -> None:
    probe = ("import sys\nfrom quizzer.cli import main\n"
             "for args in (['--help'], ['--version']):\n"
             "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
             "print(sorted(m for m in ('sqlmodel', 'sqlalchemy', 'torch', 'textual', 'numpy', 'engine', 'pydantic',"
             " 'typer', 'click', 'quizzer.server', 'aiohttp') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("args", [["show", "2024T3_Q1_NA Q277", "--seed", "3"],
                                  ["generate", "-k", "2024T3_Q1_NA Q277", "--seed", "3", "--solutions"],
                                  ["grade", "2024T3_Q1_NA Q277", "--seed", "3", "--answer", "1", "--dry-run"]])
def test_one_question_commands_do_not_import_the_orm_pydantic_app_torch_or_exporters(args: list[str],
                                                                                   bundled_bank: Path) -> None:
    """What `show`, `generate` and `grade` for one question must never pay for at start-up: a current
    SQLite bank is read with the standard library (``bank.readonly``), the template schema is msgspec's
    (no pydantic), and the command line is parsed with argparse (no typer, no click)."""
    probe = ("import sys\nfrom quizzer.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
             "print(sorted(m for m in ('sqlalchemy', 'sqlmodel', 'torch', 'textual', 'typst', 'genanki', 'aiohttp',"
             " 'quizzer.tui', 'quizzer.export', 'quizzer.reporting', 'typer', 'click', 'pydantic', 'pydantic_core')"
             " if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True,
                            env={**os.environ, "QUIZZER_DB": str(bundled_bank)}, timeout=HANG_SECONDS)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_generate_then_grade_round_trip(bundled_bank_url: str) -> None:
    out = quizzer("generate", "--key", "practice/warmup-rate", "--seed", "5", "--solutions", "--format", "json",
                  db=bundled_bank_url)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)[0]["answer_text"]
    graded = quizzer("grade", "practice/warmup-rate", "--seed", "5", "--answer", answer, "--json", db=bundled_bank_url)
    assert graded.returncode == 0 and json.loads(graded.stdout)["verdict"] == "correct"


@pytest.mark.parametrize("url, reason", [
    ("postgresql://teacher:s3cret-Pa55@127.0.0.1:1/course", "cannot open the bank: connection failed"),
    ("mysql://teacher:s3cret-Pa55@127.0.0.1/course", "unsupported database 'mysql'"),
])
def test_an_unusable_database_is_one_line_without_the_password(url: str, reason: str) -> None:
    result = quizzer("list", db=url)
    assert result.returncode == 2 and result.stdout == ""
    assert reason in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "s3cret" not in result.stderr


@pytest.mark.parametrize("args", [
    ("grade", "practice/warmup-rate", "--seed", "x", "--answer", "1"),
    ("grade", "practice/warmup-rate", "--answer", "1"),
    ("generate", "--format", "docx"),
    ("frobnicate",),
    ("list", "--no-such-flag"),
])
def test_bad_flags_are_one_line_and_exit_2(args: tuple[str, ...], isolated_bank: Path) -> None:
    result = quizzer(*args, db=isolated_bank)
    assert result.returncode == 2
    assert result.stderr.startswith("quizzer: ") and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_unusable_data_directory(tmp_path: Path) -> None:
    """A data directory that cannot be created (its parent is a file; this holds even for root)."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    result = quizzer("list", db=blocker / "quizzer" / "bank.sqlite")
    assert result.returncode == 2
    assert "cannot create the data directory" in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["md", "html", "json", "moodle"])
def test_exports_import_figure_and_format_libraries_only_when_needed(fmt: str, bundled_bank: Path,
                                                                     tmp_path: Path) -> None:
    """torch, textual, typst and genanki each take a noticeable part of a second to import: a text export,
    figures included (drawn as SVG by quizzer itself), must not pay for any of them."""
    probe = ("import sys\nfrom quizzer.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('torch', 'textual', 'typst', 'genanki') if m in sys.modules))")

    def heavy_modules(key: str) -> str:
        args = ["export", "--key", key, "--seed", "11", "--format", fmt, "-o", str(tmp_path / f"{len(key)}.{fmt}")]
        result = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True,
                                env={**os.environ, "QUIZZER_DB": str(bundled_bank)}, timeout=HANG_SECONDS)
        return result.stdout.strip().splitlines()[-1]

    assert heavy_modules("2024T3_Q1_NA Q277") == "[]"
    assert heavy_modules("practice/train-warmup-branch") == "[]"  # html draws this one's figure


def test_a_reader_that_stops_early_gets_no_traceback(bundled_bank: Path) -> None:
    """`quizzer show KEY | head -1`: the pipe's reader is gone before quizzer writes (its end is closed
    here first, so no timing is involved); quizzer stops quietly with a shell's SIGPIPE status."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run([str(EXE), "show", "2024T3_Q1_NA Q277", "--seed", "3"], stdout=writer,
                                stderr=subprocess.PIPE, text=True, timeout=HANG_SECONDS,
                                env={**os.environ, "QUIZZER_DB": str(bundled_bank)})
    finally:
        os.close(writer)
    assert (result.returncode, result.stderr) == (141, "")
