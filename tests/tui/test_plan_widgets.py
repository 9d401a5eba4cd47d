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


def test_the_plan_panel_fits_its_width_and_says_when_the_exam_has_passed() -> None:
    from quizzer.learning.dashboard_rows import PlanRow
    from quizzer.tui.widgets.plan_panel import plan_lines

    topics = (("Encoder Layer Parameter Count", 5), ("Bahdanau Attention", 4), ("Softmax", 3), ("Teacher forcing", 2))
    row = PlanRow("2026-12-07", "2026-12-14", 7, 0.44, 0.38, 0.5, 15, 16, 21, 19.0, topics, 3.0, 20)
    for width in (78, 118):
        assert all(len(line) <= width for line in plan_lines(row, width=width))
    predicted = "predicted score 44% (80 % interval 38%–50%; 15 of 16 topics tried)"
    assert plan_lines(row, width=118)[0] == f"Exam in 7 days (2026-12-14) · {predicted}"
    assert plan_lines(row, width=78)[:2] == ["Exam in 7 days (2026-12-14)", predicted]  # a break between phrases only
    assert plan_lines(row, width=118)[-1] == ("Today: 3 of 20 min done · next about 21 questions, 19 min: "
                                              "Encoder Layer Parameter Count 5 +3 more")
    assert plan_lines(row, width=78)[-2:] == [
        "Today: 3 of 20 min done", "next about 21 questions, 19 min: Encoder Layer Parameter Count 5 +3 more"]
    past = PlanRow("2026-12-15", "2026-12-14", -1, 0.6, 0.54, 0.65, 16, 16, 21, 19.0, topics, 0.0, 20)
    assert plan_lines(past)[0].startswith("The exam was on 2026-12-14 (the next: quizzer plan --exam YYYY-MM-DD)")
