"""Crash safety: a learner's process killed with SIGKILL at random points loses no graded answer.

One bank goes through several crashes in a row: each time a fresh practice process (the
``Study`` code path the app uses) grades answers, the test reads k "recorded" lines and
kills it without warning, possibly in the middle of grading or committing the next answer.
Every reported attempt must be in the bank, in order, with its review state, and SQLite's
integrity check must pass; the next process must open the crashed bank and carry on.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from tests.hang import HANG_SECONDS
from tests.trust.processes import read_bank, start_worker

KILL_SEEDS = (11, 22, 33, 44, 55)  # one kill point per seed: (answers read, extra delay)


def kill_after(db: Path, answers: int, delay: float, seed: int) -> list[tuple[str, int]]:
    """Start a learner, wait for ``answers`` committed attempts, sleep ``delay``, SIGKILL it;
    return the (key, seed) of every attempt it reported before it died."""
    worker = start_worker(db, count=10_000, seed=seed)
    lines: list[str] = []
    try:
        assert worker.stdout is not None
        while len(lines) < answers:
            lines.append(worker.stdout.readline())
            assert lines[-1].startswith("recorded "), f"worker stopped: {lines[-1]!r}"
        time.sleep(delay)  # land anywhere in a later answer: choosing, grading, or committing it
    finally:
        worker.send_signal(signal.SIGKILL)
        # The rest through the file objects readline() used, not communicate(): that reads the raw pipe, so the
        # lines readline() had already read ahead into its buffer (when this test fell behind the worker, as on
        # a loaded machine) would be lost and the count would skip a number.
        assert worker.stdout is not None and worker.stderr is not None
        rest, errors = worker.stdout.read(), worker.stderr.read()
        worker.wait(timeout=HANG_SECONDS)
    assert worker.returncode == -signal.SIGKILL, errors
    lines += rest.splitlines(keepends=True)
    return [row for number, line in enumerate(lines, 1) if line.endswith("\n") for row in parse(line, number)]


def parse(line: str, number: int) -> list[tuple[str, int]]:
    """``recorded <n> <key> <seed> rows=<k>`` → (key, seed) once per attempt row (a multi-part
    question records one per part); keys may contain a space."""
    _, counted, *key, seed, rows = line.split()
    assert int(counted) == number
    return [(" ".join(key), int(seed))] * int(rows.removeprefix("rows="))


@pytest.mark.slow
def test_no_graded_answer_is_lost_when_the_process_is_killed(bundled_bank: Path) -> None:
    expected: list[tuple[str, int]] = []
    kills: list[int] = []
    for seed in KILL_SEEDS:
        rng = random.Random(seed)
        reported = kill_after(bundled_bank, answers=rng.randint(1, 25), delay=rng.uniform(0, 0.05), seed=seed)
        integrity, attempts, cards = read_bank(bundled_bank)
        assert integrity == "ok"
        expected += reported
        # Every reported attempt is there, in order; at most one more answer (its parts' rows, for a
        # multi-part question), committed just before the kill.
        assert attempts[:len(expected)] == expected
        assert len(set(attempts[len(expected):])) <= 1
        kills.append(len(reported))
        expected = attempts  # an unreported but committed attempt is history too
        assert {key for key, _ in attempts} <= cards  # each attempt's review state landed with it
    print(f"survived {len(kills)} kills after {kills} reported attempts; {len(expected)} in the bank")
