"""Hostile and broken template files: each is refused with one line naming file, template and field,
nothing in it runs, and the bank stays byte-for-byte what it was."""

from __future__ import annotations

import re
import time
import tracemalloc
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from quizzer.cli import app

CORPUS = sorted((Path(__file__).resolve().parents[1] / "hostile").glob("*.yaml"))
runner = CliRunner()
MAX_SECONDS = 2.0  # the bound per rejected file; they take milliseconds
# The evaluator may build 4 M array elements (32 MiB) in all before it refuses; nothing else comes close.
MAX_PEAK_BYTES = 64 * 2**20


def expected_message(path: Path) -> str:
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <message fragment>'"
    return first.removeprefix("# expect: ")


@pytest.fixture
def existing_bank(bundled_bank: Path) -> bytes:
    assert runner.invoke(app, ["list"]).exit_code == 0
    return bundled_bank.read_bytes()


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 45
    # Files whose payload would create ./SENTINEL if any part of them ever ran as code.
    assert len([p for p in CORPUS if "SENTINEL" in p.read_text(encoding="utf-8")]) >= 8


def rejection(path: Path) -> tuple[Result, float, int]:
    """``quizzer add path``, its wall time, and then (a second run, as tracemalloc slows
    everything) the most memory it held at once.  No warning may be printed past the one line."""
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = runner.invoke(app, ["add", str(path)])
    seconds = time.perf_counter() - started
    assert not caught, [str(warning.message) for warning in caught]
    tracemalloc.start()
    try:
        runner.invoke(app, ["add", str(path)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, seconds, peak


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_hostile_file_is_refused(path: Path, existing_bank: bytes, isolated_bank: Path,
                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a template that managed to run code would create ./SENTINEL here
    result, seconds, peak = rejection(path)
    assert result.exit_code == 2, result.stdout
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith(f"quizzer: {path}")
    assert expected_message(path) in line
    # It names the template, and the field (or, for broken YAML syntax, the line).
    assert " template " in line and (" field '" in line or re.match(rf"quizzer: {re.escape(str(path))}:\d+:", line))
    assert not (tmp_path / "SENTINEL").exists()
    assert isolated_bank.read_bytes() == existing_bank
    print(f"{path.name}: refused in {seconds * 1000:.0f} ms, peak {peak / 2**20:.1f} MiB")
    assert seconds < MAX_SECONDS and peak < MAX_PEAK_BYTES


def test_ten_megabyte_string_is_refused(existing_bank: bytes, isolated_bank: Path, tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("key: practice/huge\ntitle: '" + "x" * 10_000_000 + "'\n")
    result = runner.invoke(app, ["add", str(path)])
    assert result.exit_code == 2 and "a template may be at most" in result.stderr
    assert isolated_bank.read_bytes() == existing_bank
