"""The ordering widget: letters typed in order give the order (as the prompt and the CLI ask), backspace
takes one back, shift+↑/↓ (or K/J) still move a step, enter submits the letters."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.widgets import Static

from quizzer.tui.widgets.choice_box import ChoiceBox
from quizzer.tui.widgets.key_gate import GatedApp
from quizzer.tui.widgets.order_box import OrderBox

STEPS = ("embed", "scores", "mask", "softmax")


class Harness(GatedApp):
    def __init__(self, steps: tuple[str, ...] = STEPS) -> None:
        super().__init__()
        self.steps = steps
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield OrderBox(self.steps)

    def on_choice_box_submitted(self, message: ChoiceBox.Submitted) -> None:
        self.submitted.append(message.text)


def test_moving_steps_and_submitting_posts_the_order_as_letters() -> None:
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.query_one(OrderBox)
            await pilot.pause()  # keys count once the box is on screen (see test_choice_box)
            await pilot.press("down", "down", "shift+up", "shift+up")  # (c) to the top
            assert box.order_text() == "c, a, b, d"
            await pilot.press("down", "J", "J", "J", "J")           # (a) to the bottom; a move past the end is ignored
            assert box.order_text() == "c, b, d, a"
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert app.submitted == ["c, b, d, a"]


def test_letters_typed_in_order_are_the_order() -> None:
    """Eight steps in eight keys (it took 13 moves with the arrows), and the last falls into place."""
    app = Harness(tuple(f"step {n}" for n in range(8)))

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.query_one(OrderBox)
            await pilot.pause()
            await pilot.press(*"hgfedcb")  # seven letters: (a) is the last one left
            assert box.order_text() == "h, g, f, e, d, c, b, a"
            assert box.placed == 8
            await pilot.press("enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert app.submitted == ["h, g, f, e, d, c, b, a"]


def test_backspace_takes_a_step_back_and_a_placed_letter_is_refused() -> None:
    app = Harness()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            box = app.query_one(OrderBox)
            hint = app.query_one("#order-hint", Static)
            await pilot.pause()
            await pilot.press("c", "a")
            assert box.order_text() == "c, a, b, d" and box.placed == 2
            assert "your order so far: c a" in str(hint.render())
            await pilot.press("c")  # already placed: said, nothing moves
            assert box.order_text() == "c, a, b, d" and hint.has_class("refused")
            assert "already step 1" in str(hint.render())
            await pilot.press("backspace", "d")  # (a) taken back, (d) second instead
            assert box.order_text() == "c, d, a, b" and box.placed == 2
            assert not hint.has_class("refused")
            await pilot.press("b")  # the last, (a), falls into place
            assert box.order_text() == "c, d, b, a" and box.placed == 4
            await pilot.press("backspace")  # back to two placed: (b) and (a) free again
            assert box.placed == 2
            await pilot.press("a", "enter")
            await pilot.pause()

    asyncio.run(scenario())
    assert app.submitted == ["c, d, a, b"]
