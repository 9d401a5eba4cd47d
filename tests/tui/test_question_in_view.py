"""At 80×24 the question's text and data stay reachable and the answer never covers them: for the longest
prompt of every kind, the answer slot takes at most 45% of the screen, pgdn reaches the question's last
line, and ctrl+o gives the question the whole screen and gives the answer back as it was."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.practice import PracticeScreen
from tests.bundled_templates import bundled, instance
from tests.tui.conftest import loaded


def longest_prompts() -> dict[str, str]:
    """Per kind (``parts`` for a multi-part question), the key of the question with the longest prompt."""
    best: dict[str, tuple[int, str]] = {}
    for key, template in sorted(bundled().items()):
        kind = "parts" if template.parts else template.kind
        shown = instance(key, 1)
        size = len(shown.prompt) + sum(len(part.question.prompt) for part in shown.parts)
        if size > best.get(kind, (0, ""))[0]:
            best[kind] = (size, key)
    return {kind: key for kind, (_, key) in sorted(best.items())}


LONGEST = longest_prompts()
KINDS = pytest.mark.parametrize("kind", list(LONGEST))


async def open_question(pilot: Any, key: str) -> PracticeScreen:
    app = pilot.app
    await loaded(app, pilot)
    app.push_practice(key=key)
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PracticeScreen) and screen.question is not None
    assert screen.question.instance.key == key
    for field in screen.query(Input):
        field.cursor_blink = False  # a steady picture
    await pilot.pause()
    return screen


def test_every_kind_is_covered() -> None:
    assert set(LONGEST) >= {"number", "integer", "vector", "matrix", "shape", "bool", "expression", "choice",
                            "multi", "order", "text", "parts"}


@KINDS
def test_the_longest_prompt_at_80x24(snap_compare: Callable[..., bool], new_app: Callable[..., QuizzerApp],
                                     kind: str) -> None:
    async def run_before(pilot: Any) -> None:
        await open_question(pilot, LONGEST[kind])

    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=run_before)


@KINDS
def test_the_question_stays_reachable_and_uncovered(new_app: Callable[..., QuizzerApp], kind: str) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, LONGEST[kind])
            slot = screen.query_one("#answer-slot", Vertical)
            question = screen.query_one("#question-scroll", VerticalScroll)
            assert slot.region.height <= 0.45 * 24 + 1  # 45% of the screen, rounded up
            assert question.region.height >= slot.region.height - 1
            assert not question.region.overlaps(slot.region)
            for _ in range(20):  # pgdn, with the focus in the answer, down to the question's last line
                if question.scroll_y >= question.max_scroll_y:
                    break
                await pilot.press("pagedown")
                await pilot.pause()
            assert question.scroll_y == question.max_scroll_y
            typed = screen.focused
            await pilot.press("ctrl+o")  # the question alone, over the whole screen
            await pilot.pause()
            assert not slot.display and question.region.height > 24 - 6
            await pilot.press("ctrl+o")  # and back to the answer, the focus where it was
            await pilot.pause()
            assert slot.display and screen.focused is typed

    asyncio.run(scenario())


def test_what_was_typed_is_kept_while_the_question_shows(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, LONGEST["matrix"])
            await pilot.press("1", " ", "0")
            assert screen.query_one(Input).value == "1 0"
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert "back to your answer" in str(screen.query_one("#keys").render())
            await pilot.press("ctrl+o", "1")
            await pilot.pause()
            assert screen.query_one(Input).value == "1 01"

    asyncio.run(scenario())
