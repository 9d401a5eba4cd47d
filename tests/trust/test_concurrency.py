"""Concurrency: four learners, an exporter and a re-importer on one SQLite bank at once.

Four processes each grade 200 answers through ``Study.submit`` (the app's code path) on
questions picked at random; meanwhile a
fifth exports a 20-question paper (``quizzer export --format json``) over and over, and a sixth
re-adds a bundled template with a changed title (so every ``quizzer add`` really writes).
Every attempt must be there afterwards, and no process may fail or print anything about
a locked database: SQLite's busy timeout makes writers wait their turn.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from quizzer.templates.catalog import questions_dir
from tests.hang import HANG_SECONDS
from tests.trust.processes import read_bank, start_quizzer, start_worker

LEARNERS, ANSWERS = 4, 200
TEMPLATE = questions_dir() / "week2" / "training_tricks" / "warmup-rate.yaml"


def repeat_until(done: threading.Event, command: Callable[[int], subprocess.Popen[str]],
                 results: list[tuple[int, str, str]]) -> None:
    """Run ``command(round)`` to completion again and again until ``done`` is set (at least twice)."""
    round_ = 0
    while not done.is_set() or round_ < 2:
        process = command(round_)
        out, err = process.communicate(timeout=HANG_SECONDS)
        results.append((process.returncode, out, err))
        round_ += 1


def revision(directory: Path, round_: int) -> Path:
    """A teacher's copy of a bundled template (a key of its own) whose title changes every round,
    so its content hash does and every `quizzer add` after the first really updates it."""
    path = directory / f"revision-{round_}" / TEMPLATE.name
    path.parent.mkdir()
    source = TEMPLATE.read_text(encoding="utf-8")
    source = source.replace("key: practice/warmup-rate", "key: practice/warmup-rate-teacher", 1)
    path.write_text(source.replace("\ntitle: ", f"\ntitle: (revision {round_}) ", 1), encoding="utf-8")
    return path


@pytest.mark.slow
def test_four_learners_an_exporter_and_an_importer_share_one_bank(bundled_bank: Path, tmp_path: Path) -> None:
    learners = [start_worker(bundled_bank, count=ANSWERS, seed=seed, choose="any") for seed in range(LEARNERS)]
    done = threading.Event()
    exports: list[tuple[int, str, str]] = []
    imports: list[tuple[int, str, str]] = []
    background = [
        threading.Thread(target=repeat_until, args=(done, lambda _: start_quizzer(
            bundled_bank, "export", "--week", "2", "-n", "20", "--seed", "1", "--format", "json"), exports)),
        threading.Thread(target=repeat_until, args=(done, lambda round_: start_quizzer(
            bundled_bank, "add", "--seeds", "1", str(revision(tmp_path, round_))), imports)),
    ]
    for thread in background:
        thread.start()
    finished = [learner.communicate(timeout=HANG_SECONDS) for learner in learners]
    done.set()
    for thread in background:
        thread.join(timeout=HANG_SECONDS)

    rows = 0  # a multi-part question records one row per part
    for learner, (out, err) in zip(learners, finished, strict=True):
        assert learner.returncode == 0 and err == "", err
        assert out.count("recorded ") == ANSWERS
        rows += sum(int(n) for n in re.findall(r" rows=(\d+)$", out, re.M))
    for code, out, err in exports:
        assert code == 0 and err == "", err
        assert len(json.loads(out)["questions"]) == 20
    assert [out.strip() for _, out, _ in imports[:1]] == ["1 added, 0 updated, 0 unchanged."]
    for code, out, err in imports[1:]:
        assert code == 0 and err == "", err
        assert out.strip() == "0 added, 1 updated, 0 unchanged."
    integrity, attempts, _ = read_bank(bundled_bank)
    assert integrity == "ok"
    assert rows >= LEARNERS * ANSWERS and len(attempts) == rows
    print(f"{len(attempts)} attempts by {LEARNERS} learners beside {len(exports)} exports "
          f"and {len(imports)} re-imports")


@pytest.mark.slow
def test_windows_opened_at_once_on_a_new_bank_all_start(isolated_bank: Path) -> None:
    """The first run in three terminals at once: one creates the bank and imports the bundled
    questions, the others wait for it and find them there (no duplicate rows, no locked error)."""
    assert not isolated_bank.exists()
    windows = [start_quizzer(isolated_bank, "list", "--json") for _ in range(3)]
    results = [window.communicate(timeout=HANG_SECONDS) for window in windows]
    listings = []
    for window, (out, err) in zip(windows, results, strict=True):
        assert window.returncode == 0 and err == "", err
        listings.append(json.loads(out))
    assert len(listings[0]) > 100 and listings[1] == listings[0] == listings[2]
    assert read_bank(isolated_bank)[0] == "ok"
