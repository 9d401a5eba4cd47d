"""A multi-part question in the practice app: parts asked one after another with the earlier answers in
view, graded together with follow-through, recorded one attempt per part."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Markdown

from quizzer.tui.app import QuizzerApp
from quizzer.tui.widgets.parts_box import PartsBox
from tests.tui.conftest import loaded
from tests.tui.test_practice import attempts, feedback, skip_to, text_of


def test_parts_one_after_another_with_follow_through(new_app: Callable[..., QuizzerApp],
                                                     isolated_bank: Path) -> None:
    app = new_app(topic="decoder_output_params")  # its one multi-part question: the decoder parameter chain

    async def scenario() -> None:
        async with app.run_test(size=(100, 40)) as pilot:
            await loaded(app, pilot)
            instance = await skip_to(pilot, app, ("parts",))
            values = instance.values
            layer = values["layer"] + 1000                       # a wrong (a)
            stack = values["n_layers"] * layer                   # (b) and (c) computed by hand from it
            total = values["embedding"] + stack + values["output"]
            box = app.screen.query_one(PartsBox)
            await pilot.press(*str(layer), "enter")
            await pilot.pause()
            asked = box.query_one("#parts-asked", Markdown).source
            assert f"Your answer: `{layer}`" in asked and "**(b)**" in asked and "part 2 of 3" in asked
            await pilot.press(*str(stack), "enter")
            await pilot.pause()
            await pilot.press(*str(total), "enter")
            await pilot.pause()
            assert "2 parts right on your value" in text_of(app, "#verdict")
            assert "Right on your value" in feedback(app) and "Worked solution" in feedback(app)
            records = attempts(isolated_bank)
            assert [(a.part, a.verdict, a.carried_forward) for a in records] == \
                [("a", "incorrect", False), ("b", "correct", True), ("c", "correct", True)]

    asyncio.run(scenario())


def test_an_unreadable_part_stays_and_ctrl_b_goes_back(new_app: Callable[..., QuizzerApp],
                                                        isolated_bank: Path) -> None:
    app = new_app(topic="decoder_output_params")

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(app, pilot)
            await skip_to(pilot, app, ("parts",))
            box = app.screen.query_one(PartsBox)
            await pilot.press("x", "enter")
            await pilot.pause()
            assert box.answers == []
            await pilot.press("backspace", "1", "2", "enter")
            await pilot.pause()
            assert box.answers == ["12"]
            await pilot.press("ctrl+b")
            await pilot.pause()
            assert box.answers == [] and attempts(isolated_bank) == []

    asyncio.run(scenario())
