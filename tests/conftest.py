"""Fixtures shared by every layer: no test ever touches a real user's bank or data directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_bank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh SQLite bank per test, and a private user data directory."""
    db = tmp_path / "bank.sqlite"
    monkeypatch.setenv("QUIZZER_DB", str(db))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("QUIZZER_DATA_DIR", raising=False)
    monkeypatch.delenv("QUIZZER_QUESTIONS_DIR", raising=False)
    monkeypatch.delenv("QUIZZER_ENGINE_BACKEND", raising=False)
    monkeypatch.delenv("QUIZZER_PROFILE", raising=False)
    return db


@pytest.fixture(scope="session")
def bundled_bank_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bank with every bundled template imported, built once per test run."""
    from quizzer.bank.ready import open_ready_bank

    path = tmp_path_factory.mktemp("bundled") / "bank.sqlite"
    engine, session = open_ready_bank(str(path))
    session.close()
    engine.dispose()  # the last connection closing checkpoints the WAL into the file
    return path


@pytest.fixture
def bundled_bank(bundled_bank_file: Path, isolated_bank: Path) -> Path:
    """This test's own copy of the prepared bank, at the path QUIZZER_DB names."""
    shutil.copyfile(bundled_bank_file, isolated_bank)
    return isolated_bank
