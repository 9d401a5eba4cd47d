"""Issue 41, item 6, as a student sees it: the light theme's "✔ Correct" banner and mastery bars at 80×24.

``test_contrast.py`` measures the ratios as a 256-colour terminal shows them; these snapshots keep the
picture (ctrl+t switches the theme), so a change of the colours is seen in review, not only measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from quizzer.tui.app import QuizzerApp
from tests.tui.conftest import loaded
from tests.tui.test_practice import TYPED
from tests.tui.test_snapshots import question

Snap = Callable[..., bool]


def test_light_theme_correct_banner_80x24(snap_compare: Snap, new_app: Callable[..., QuizzerApp]) -> None:
    async def run_before(pilot: Any) -> None:
        shown = await question(pilot, TYPED)
        await pilot.press("ctrl+t", *shown.answer_text, "enter")
        await pilot.pause()
        assert pilot.app.theme == "textual-light" and pilot.app.screen.query_one("#verdict").has_class("-correct")

    assert snap_compare(new_app(topic="softmax"), terminal_size=(80, 24), run_before=run_before)


def test_light_theme_mastery_bars_80x24(snap_compare: Snap, new_app: Callable[..., QuizzerApp]) -> None:
    async def run_before(pilot: Any) -> None:
        app = pilot.app
        await loaded(app, pilot)
        for correct in (True, True, False, True):  # some mastery to draw, right and wrong
            shown = app.study.next().instance
            app.study.submit(shown, shown.answer_text if correct or shown.kind == "text" else "0", 30.0)
        app.refresh_dashboard()
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme == "textual-light"

    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=run_before)
