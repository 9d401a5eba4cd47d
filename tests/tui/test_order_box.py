"""The ordering widget: letters pick a step, shift+↑/↓ (or K/J) move it, enter submits the letters."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult

from quizzer.tui.widgets.choice_box import ChoiceBox
from quizzer.tui.widgets.key_gate import GatedApp
from quizzer.tui.widgets.order_box import OrderBox


class Harness(GatedApp):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield OrderBox(("embed", "scores", "mask", "softmax"))

    def on_choice_box_submitted(self, message: ChoiceBox.Submitted) -> None:
        self.submitted.append(message.text)


def test_moving_steps_and_submitting_posts_the_order_as_letters() -> None:
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.query_one(OrderBox)
            await pilot.pause()  # keys count once the box is on screen (see test_choice_box)
            await pilot.press("c", "shift+up", "shift+up")       # c to the top
            assert box.order_text() == "c, a, b, d"
            await pilot.press("a", "J", "J", "J", "J")           # a to the bottom; a move past the end is ignored
            assert box.order_text() == "c, b, d, a"
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert app.submitted == ["c, b, d, a"]
