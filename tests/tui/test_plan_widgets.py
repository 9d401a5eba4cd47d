"""The plan in the app: the dashboard's plan panel, the daily goal, mistakes / new / reviews only, and
the summary at the end of a sitting."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from sqlmodel import Session
from textual.widgets import Static

from bench.simulated_learners import wrong_response
from quizzer.bank.db import open_bank
from quizzer.bank.learners import ensure_learner
from quizzer.bank.plans import save_plan
from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.dashboard import DashboardScreen
from quizzer.tui.screens.practice import PracticeScreen
from quizzer.tui.screens.sitting_summary import SittingSummaryScreen
from tests.tui.conftest import FakeClock, loaded


def set_exam(bank: Path, exam: date, minutes: int) -> None:
    engine = open_bank(str(bank))
    with Session(engine) as session:
        learner = ensure_learner(session=session, name="ada")
        assert learner.id is not None
        save_plan(session=session, learner_id=learner.id, exam_date=exam, minutes_per_day=minutes)
    engine.dispose()


def text(app: QuizzerApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def test_the_dashboard_shows_days_left_the_prediction_and_todays_plan(
        new_app: Callable[..., QuizzerApp], bundled_bank: Path, clock: FakeClock) -> None:
    today = clock.now.astimezone().date()
    set_exam(bundled_bank, today + timedelta(days=14), 25)
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            plan = text(app, "#plan")
            assert f"Exam in 14 days ({(today + timedelta(days=14)).isoformat()})" in plan
            assert "predicted score: none yet (nothing answered)" in plan
            assert "Today: 0 of 25 min done · next about" in plan

    asyncio.run(scenario())


def test_a_sitting_ends_with_its_summary_and_its_mistake_comes_back_with_m(
        new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            await pilot.press("m")  # no mistakes yet: a notice, and the dashboard stays
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen)
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PracticeScreen) and screen.question is not None
            assert "Today" in text(app, "#daily-goal") and "of 30 min" in text(app, "#daily-goal")
            assert "not tried yet" in text(app, "#reason")  # why this question, in one line
            instance = screen.question.instance
            assert app.study is not None
            app.study.submit(instance, wrong_response(instance, random.Random(0)), 50.0)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, SittingSummaryScreen)
            summary = text(app, "#sitting-text")
            assert "This sitting: 1 answer, 0% right" in summary and "1 question to redo" in summary
            assert "Tomorrow" in summary
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen)
            await pilot.press("m")
            await pilot.pause()
            redo = app.screen
            assert isinstance(redo, PracticeScreen) and redo.question is not None
            assert redo.question.instance.key == instance.key and "was wrong" in text(app, "#reason")

    asyncio.run(scenario())
