"""Fixtures shared by every layer: no test ever touches a real user's bank or data directory."""

from __future__ import annotations

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
    return db
