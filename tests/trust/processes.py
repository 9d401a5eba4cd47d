"""Helpers for the tests that run quizzer in real child processes on one bank file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).with_name("practice_worker.py")
EXE = Path(sys.executable).with_name("quizzer")


def child_env(db: Path) -> dict[str, str]:
    return {**os.environ, "QUIZZER_DB": str(db), "PYTHONUNBUFFERED": "1"}


def start_worker(db: Path, count: int, seed: int, choose: str = "next") -> subprocess.Popen[str]:
    """A learner answering ``count`` questions through ``Study``, printing a line per committed attempt;
    ``choose``: ``next`` as the app picks questions, ``any`` at random (cheaper)."""
    return subprocess.Popen([sys.executable, str(WORKER), str(count), str(seed), choose], env=child_env(db),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def start_quizzer(db: Path, *args: str, stdout: int = subprocess.PIPE) -> subprocess.Popen[str]:
    """``quizzer ARGS`` on ``db``; ``stdout=subprocess.DEVNULL`` when nobody reads its output while it
    runs (a full pipe would stop a command that prints much before it is done)."""
    return subprocess.Popen([str(EXE), *args], env=child_env(db), stdout=stdout, stderr=subprocess.PIPE, text=True)


def read_bank(db: Path) -> tuple[str, list[tuple[str, int]], set[str]]:
    """With plain sqlite3 (what any tool would see): integrity_check, the attempts in order as
    (key, seed), and the keys that have a review card."""
    connection = sqlite3.connect(db)
    try:
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
        attempts = [(key, int(seed)) for key, seed in
                    connection.execute("SELECT template_key, seed FROM attempt ORDER BY id")]
        cards = {key for (key,) in connection.execute("SELECT template_key FROM reviewcard")}
    finally:
        connection.close()
    return integrity, attempts, cards
