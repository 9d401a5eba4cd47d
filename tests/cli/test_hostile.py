"""Hostile and broken template files: every file of ``tests/hostile/`` is refused by both ``quizzer
validate`` and ``quizzer add``, each run as a real child process against a bank of its own, with
one line naming file, template and field, exit status 2, no traceback, nothing in it run, the bank's
dump unchanged, bounded memory and no hang; and ``validate`` and ``add`` give the same answer.

The commands run in ``corpus_runner.py``, a fork server: one import of quizzer, then one forked
child per command, a few at a time (the corpus costs seconds, not the minutes that a fresh
interpreter per command would). Peak memory is each child's own ``ru_maxrss`` from ``os.wait4``,
which includes the interpreter and every module imported, as a real ``quizzer add`` would.

Time: the five-second bound is quizzer's own to keep (its limits, and the deadlines of validation,
refuse a file before it can take longer); a test cannot assert seconds on a busy machine shared by
parallel workers. The test therefore (1) kills and fails any command that outlasts the suite's hang
guard (``tests/hang.py``), which only a hang would, and (2) asserts a ratio measured in the same
run: no refusal may cost more CPU time than ``MAX_COST_RATIO`` times validating a real bundled
template, which the same machine does at the same moment. Every refusal's wall and CPU time and peak
memory are printed (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quizzer.templates.catalog import questions_dir
from tests.hang import HANG_SECONDS
from tests.run_once import once_per_run

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
CORPUS = sorted(HOSTILE.glob("*.yaml"))
RUNNER = Path(__file__).with_name("corpus_runner.py")
COMMANDS = ("validate", "add")
MAX_PEAK_BYTES = 300 * 2**20  # a child's whole resident set: the interpreter, NumPy, SQLAlchemy and the work
BUNDLED_HANG_SECONDS = 900.0  # the bundled questions through validate or add: a hang guard, not a speed limit
# Validating a bundled template renders it over 200 seeds; a refusal may cost a few times that
# (a file refused at its last seed renders as much), never tens of times.
MAX_COST_RATIO = 8.0
BASELINE = questions_dir() / "week2" / "training_tricks" / "warmup-rate.yaml"


def expected_message(path: Path) -> str:
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <message fragment>'"
    return first.removeprefix("# expect: ")


def bank_dump(bank: Path) -> list[str]:
    """The bank as SQL statements: every table, row and index."""
    with sqlite3.connect(f"file:{bank}?mode=ro", uri=True) as connection:
        return list(connection.iterdump())


def same_bank(bank: Path, original: Path) -> bool:
    """Whether ``bank``'s dump is ``original``'s. The same bytes with no write-ahead log pending are the
    same dump, so the dump (35 ms for this bank) is compared only when the bytes alone cannot say."""
    wal = bank.with_name(bank.name + "-wal")
    if bank.read_bytes() == original.read_bytes() and not (wal.exists() and wal.stat().st_size):
        return True
    return bank_dump(bank) == bank_dump(original)


@pytest.fixture(scope="module")
def corpus_runs(tmp_path_factory: pytest.TempPathFactory, bundled_bank_file: Path) -> dict[tuple[str, str], Any]:
    """Every file of the corpus through both commands (and the baseline), each in a child process
    with its own copy of a bank holding the bundled questions; results by (command, file name).
    Run once per test run, whichever pytest-xdist worker needs them first (``tests/run_once.py``)."""
    rows = once_per_run(tmp_path_factory, "hostile-corpus", lambda root: _run_corpus(root, bundled_bank_file))
    return {(command, name): result for command, name, result in rows}


def _run_corpus(root: Path, bundled_bank_file: Path) -> list[tuple[str, str, dict[str, Any]]]:
    jobs, names = [], []
    # The bundled questions over one seed (tests/templates/test_bank_content.py renders 200).
    runs = [(command, path, [command, str(path)]) for path in CORPUS for command in COMMANDS]
    runs += [("validate", BASELINE, ["validate", str(BASELINE)])]
    runs += [(command, questions_dir(), [command, str(questions_dir()), "--seeds", "1"]) for command in COMMANDS]
    for command, path, args in runs:
        directory = root / f"{command}-{path.stem}"
        directory.mkdir()
        shutil.copyfile(bundled_bank_file, directory / "bank.sqlite")
        # The whole bundled bank (172 templates, each rendered through every exporter) is work, not a hang:
        # on a machine with a load of 40 it took more than the minute a hostile file may.
        hang = {"hang_seconds": BUNDLED_HANG_SECONDS} if path == questions_dir() else {}
        jobs.append({"args": args, "dir": str(directory), **hang})
        names.append((command, path.name))
    env = {**os.environ, "XDG_DATA_HOME": str(root / "xdg")}
    for name in ("QUIZZER_PROFILE", "QUIZZER_DATA_DIR", "QUIZZER_QUESTIONS_DIR", "QUIZZER_ENGINE_BACKEND"):
        env.pop(name, None)
    parallel = max(1, min(4, os.cpu_count() or 1))
    done = subprocess.run([sys.executable, str(RUNNER), str(parallel), str(HANG_SECONDS)], input=json.dumps(jobs),
                          capture_output=True, text=True, env=env, check=True,
                          timeout=HANG_SECONDS * len(jobs) + 2 * BUNDLED_HANG_SECONDS)
    results = json.loads(done.stdout)
    for job, result in zip(jobs, results, strict=True):
        directory = Path(job["dir"])
        result["bank_unchanged"] = same_bank(directory / "bank.sqlite", bundled_bank_file)
        result["sentinel"] = (directory / "SENTINEL").exists()
    return [(command, name, result) for (command, name), result in zip(names, results, strict=True)]


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 80
    # Files whose payload would create ./SENTINEL if any part of them ever ran as code.
    assert len([p for p in CORPUS if "SENTINEL" in p.read_text(encoding="utf-8")]) >= 8


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_hostile_file_is_refused(path: Path, command: str, corpus_runs: dict[tuple[str, str], Any]) -> None:
    run = corpus_runs[command, path.name]
    assert not run["hung"], f"quizzer {command} {path.name} ran for {HANG_SECONDS:.0f} s and was killed"
    print(f"{command} {path.name}: refused in {run['seconds'] * 1000:.0f} ms "
          f"({run['cpu_seconds'] * 1000:.0f} ms CPU), peak {run['peak_bytes'] / 2**20:.0f} MiB")
    assert run["status"] == 2, run["stderr"] or run["stdout"]
    assert "Traceback" not in run["stderr"] and run["stdout"] == ""
    lines = run["stderr"].splitlines()
    assert len(lines) == 1, run["stderr"]
    line = lines[0]
    assert line.startswith(f"quizzer: {path}"), line
    assert expected_message(path) in line, line
    # It names the template, and the field (or, for YAML whose syntax is broken, the line).
    assert " template " in line and (" field '" in line or re.match(rf"quizzer: {re.escape(str(path))}:\d+:", line))
    assert not run["sentinel"]
    assert run["bank_unchanged"], "the bank's dump changed"
    assert run["peak_bytes"] < MAX_PEAK_BYTES


def test_no_refusal_costs_much_more_than_validating_a_real_template(corpus_runs: dict[tuple[str, str], Any]) -> None:
    baseline = corpus_runs["validate", BASELINE.name]
    assert baseline["status"] == 0, baseline["stderr"]
    refusals = {(command, name): run for (command, name), run in corpus_runs.items()
                if name.endswith(".yaml") and name != BASELINE.name and not run["hung"]}
    slowest = max(refusals, key=lambda name: refusals[name]["cpu_seconds"])
    hungriest = max(refusals, key=lambda name: refusals[name]["peak_bytes"])
    print(f"baseline (validate {BASELINE.name}): {baseline['cpu_seconds'] * 1000:.0f} ms CPU, "
          f"peak {baseline['peak_bytes'] / 2**20:.0f} MiB; slowest refusal {' '.join(slowest)}: "
          f"{refusals[slowest]['seconds'] * 1000:.0f} ms ({refusals[slowest]['cpu_seconds'] * 1000:.0f} ms CPU); "
          f"largest peak {' '.join(hungriest)}: {refusals[hungriest]['peak_bytes'] / 2**20:.0f} MiB")
    assert refusals[slowest]["cpu_seconds"] <= MAX_COST_RATIO * baseline["cpu_seconds"], slowest


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_validate_and_add_agree(path: Path, corpus_runs: dict[tuple[str, str], Any]) -> None:
    """'Valid' means 'would be added': both commands give the same status and the same line."""
    validated, added = corpus_runs["validate", path.name], corpus_runs["add", path.name]
    assert (validated["status"], validated["stderr"]) == (added["status"], added["stderr"])


def test_validate_and_add_agree_on_the_bundled_questions(corpus_runs: dict[tuple[str, str], Any]) -> None:
    """Every bundled file is valid for both, and adding them to a bank that has them changes nothing."""
    validated, added = (corpus_runs[command, questions_dir().name] for command in COMMANDS)
    assert validated["status"] == added["status"] == 0 and validated["stderr"] == added["stderr"] == ""
    count = len(list(questions_dir().rglob("*.yaml")))
    # the first line is the verdict; the slip lines that follow it are quizzer.templates.discovery's report
    assert validated["stdout"].splitlines()[0] == f"{count} template(s) valid, each test-rendered over 1 seeds."
    assert added["stdout"].strip() == f"0 added, 0 updated, {count} unchanged." and added["bank_unchanged"]


def test_ten_megabyte_string_is_refused(bundled_bank: Path, tmp_path: Path) -> None:
    """Refused by its size before it is read: the line names the file (there is no template yet)."""
    path = tmp_path / "huge.yaml"
    path.write_text("key: practice/huge\ntitle: '" + "x" * 10_000_000 + "'\n")
    before = bank_dump(bundled_bank)
    exe = Path(sys.executable).with_name("quizzer")
    for command in COMMANDS:
        done = subprocess.run([str(exe), command, str(path)], capture_output=True, text=True,
                              env={**os.environ, "QUIZZER_DB": str(bundled_bank)}, timeout=HANG_SECONDS)
        assert done.returncode == 2 and "a template may be at most" in done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert bank_dump(bundled_bank) == before
