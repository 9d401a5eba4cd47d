"""The key footer (``SteadyFooter``): it follows the keys a screen offers, and a key in it can be clicked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.widgets._footer import FooterKey

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.exam import MockExamScreen
from quizzer.tui.widgets.steady_footer import SteadyFooter
from tests.tui.conftest import loaded
from tests.tui.test_exam import SHORT_PAPER, open_paper


def shown(app: QuizzerApp) -> list[tuple[str, str, bool]]:
    """The footer's keys, descriptions and whether each is dimmed (in any order: the snapshots check it)."""
    footer = app.screen.query_one(SteadyFooter)
    return sorted((key.key_display, key.description, key.has_class("-disabled")) for key in footer.query(FooterKey))


def offered(app: QuizzerApp) -> list[tuple[str, str, bool]]:
    """What Textual's own Footer would show now: each binding of the screen that is shown, dimmed if
    disabled, and the command palette's key."""
    return sorted((app.get_key_display(active.binding), active.binding.description, not active.enabled)
                  for key, active in app.screen.active_bindings.items()
                  if active.binding.show or key == app.COMMAND_PALETTE_BINDING)


def test_the_footer_follows_each_exam_phase_and_its_keys_click(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await loaded(app, pilot)
            exam_key = next(key for key in app.screen.query(FooterKey) if key.action == "app.exam")
            await pilot.click(exam_key)  # the dashboard's "Exam", clicked rather than typed
            await pilot.pause()
            assert isinstance(app.screen, MockExamScreen) and app.screen.phase == "picker"
            picker = shown(app)
            assert picker == offered(app)
            await pilot.press("escape")
            await pilot.pause()
            screen: Any = await open_paper(app, pilot, SHORT_PAPER)
            assert screen.phase == "sitting"
            assert shown(app) == offered(app) != picker  # the sitting phase's own keys, not the picker's

    asyncio.run(scenario())
