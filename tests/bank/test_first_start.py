"""A class starting together on a new bank, as separate processes on a busy machine: all of them start.

Eight processes (not threads: each has its own SQLite connection and its own lock waits) open
the same brand-new bank at once, twenty times, while a busy loop keeps every core occupied.  The
set-up lock used to be held while the bundled files were test-rendered, which on a loaded machine
outlasted SQLite's busy timeout: the waiting learners failed with "the database stayed locked".
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from collections.abc import Iterator
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from tests.bundled_templates import QUESTIONS

LEARNERS = 8
ROUNDS = 20
QUESTION_FILES = 6  # enough to make importing real work, few enough for twenty rounds

_barrier: Barrier | None = None


def _join(barrier: Barrier, questions: str) -> None:
    global _barrier
    _barrier = barrier
    # Set here, not inherited: a fork server started by an earlier test would hold an older environment.
    os.environ["QUIZZER_QUESTIONS_DIR"] = questions
    import quizzer.bank.ready  # noqa: F401  (imported before the race, not during it)


def _start(url: str) -> tuple[int, str]:
    """One learner's start: the keys it sees, or the error it got."""
    from sqlmodel import select

    from quizzer.bank.models import Meta, Template
    from quizzer.bank.ready import open_ready_bank
    from quizzer.common.errors import UserError

    assert _barrier is not None
    _barrier.wait()  # all eight open the bank at the same moment
    try:
        engine, session = open_ready_bank(url)
    except UserError as exc:
        return -1, str(exc)
    with session:
        keys = len(session.exec(select(Template.key)).all())
        versions = len(session.exec(select(Meta).where(Meta.key == "schema_version")).all())
    engine.dispose()
    return keys, f"{versions} version rows"


def _spin() -> None:
    while True:
        pass


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """A busy loop on every core for the test's duration."""
    context = multiprocessing.get_context("spawn")
    spinners = [context.Process(target=_spin, daemon=True) for _ in range(os.cpu_count() or 1)]
    for spinner in spinners:
        spinner.start()
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.join()


@pytest.mark.slow
def test_a_class_of_processes_starting_on_a_new_bank_all_start(tmp_path: Path, busy_machine: None) -> None:
    questions = tmp_path / "questions"
    questions.mkdir()
    for path in sorted(QUESTIONS.rglob("*.yaml"))[:QUESTION_FILES]:
        shutil.copy(path, questions / path.name)
    # Forked from a server that imported quizzer once (~1 s of processor time each, paid by eight
    # spawned learners before), each learner is still a process of its own with its own connection.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, "quizzer.bank.ready"])
    barrier = context.Barrier(LEARNERS)
    with context.Pool(LEARNERS, initializer=_join, initargs=(barrier, str(questions))) as pool:
        for round_ in range(ROUNDS):
            url = f"sqlite:///{tmp_path / f'bank-{round_}.sqlite'}"
            results = pool.map(_start, [url] * LEARNERS, chunksize=1)
            assert results == [(QUESTION_FILES, "1 version rows")] * LEARNERS, f"round {round_}: {results}"
