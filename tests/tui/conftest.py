"""Fixtures for app tests: a fresh bank file, a fixed clock and a fixed seed per test."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quizzer.tui.app import Filters, QuizzerApp, make_app

START = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


class FakeClock:
    """UTC time that only moves when a test says so."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def new_app(isolated_bank: Path, clock: FakeClock) -> Callable[..., QuizzerApp]:
    """Build the app exactly as the CLI does, on this test's bank, clock, seed and profile."""
    def build(**filters: object) -> QuizzerApp:
        return make_app(db_url=str(isolated_bank), profile="ada", filters=Filters(**filters),  # type: ignore[arg-type]
                        clock=clock, seed=7)
    return build


async def loaded(app: QuizzerApp, pilot: object) -> None:
    """Wait until the bank is open and the dashboard filled."""
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]
    assert app.study is not None
