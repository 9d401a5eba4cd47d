"""Fixtures for app tests: a fresh bank file, a fixed clock and a fixed seed per test."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quizzer.tui.app import Filters, QuizzerApp, make_app
from tests.hang import HANG_SECONDS

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


def _builder(db: Path, clock: FakeClock) -> Callable[..., QuizzerApp]:
    def build(**filters: object) -> QuizzerApp:
        return make_app(db_url=str(db), profile="ada", filters=Filters(**filters),  # type: ignore[arg-type]
                        clock=clock, seed=7)
    return build


@pytest.fixture
def new_app(bundled_bank: Path, clock: FakeClock) -> Callable[..., QuizzerApp]:
    """Build the app exactly as the CLI does, on this test's bank, clock, seed and profile.  The bank is
    a copy of the prepared one, which holds what the app's first start would import: importing it
    again cost each test ~1.8 s of processor time (``first_start_app`` keeps that path tested)."""
    return _builder(bundled_bank, clock)


@pytest.fixture
def first_start_app(isolated_bank: Path, clock: FakeClock) -> Callable[..., QuizzerApp]:
    """``new_app`` on a bank that does not exist yet: the app creates it and imports the bundled questions."""
    assert not isolated_bank.exists()
    return _builder(isolated_bank, clock)


async def loaded(app: QuizzerApp, pilot: object) -> None:
    """Wait until the bank is open and the dashboard filled."""
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]
    assert app.study is not None


MAX_FRAMES = 200  # settled frames a test waits for a state before it calls the state never reached


async def until(pilot: Any, condition: Callable[[], bool], what: str) -> None:
    """Let the app process what it was sent, frame after frame, until ``condition`` holds (a chain of
    messages, one handler posting the next, may need more than one of Pilot's waits)."""
    for _ in range(MAX_FRAMES):
        if condition():
            return
        await pilot.pause()
    raise AssertionError(f"never reached: {what}")


@pytest.fixture(autouse=True)
def short_idle_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot's ``press`` and ``pause`` end with Textual's idle check, which sleeps in steps of 20 ms
    until a step passes with under 5 % of it spent on the processor: at least 40 ms per key, most of
    these tests' time (a typed answer is a dozen keys).  Steps of 4 ms keep the same 5 % rule.

    What a test asserts never rests on that check: ``pause`` first waits until the screen and every
    widget on it have handled the messages pending (Pilot's ``_wait_for_screen``), and the one thread
    worker (opening the bank) is awaited by ``loaded``."""
    import textual._wait as idle

    monkeypatch.setattr(idle, "SLEEP_GRANULARITY", 1 / 250)
    monkeypatch.setattr(idle, "SLEEP_IDLE", 1 / 250 / 20)


@pytest.fixture(autouse=True)
def patient_pilot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot's wait for the screen's pending messages (``_wait_for_screen``, under every ``press``, ``pause``
    and snapshot) gives up after 30 s with ``WaitForScreenTimeout``: in a full run on a machine with a load
    of 30 on 2 cores, two snapshot tests did.  A hang guard, not a speed limit: it waits for the state, up
    to ten minutes."""
    from textual.pilot import Pilot

    wait = Pilot._wait_for_screen

    async def wait_for_screen(self: Pilot[object], timeout: float = HANG_SECONDS) -> bool:
        return await wait(self, max(timeout, HANG_SECONDS))

    monkeypatch.setattr(Pilot, "_wait_for_screen", wait_for_screen)
