"""Issue 41, item 8: at 80×24 a select-all list "twice ignored the first several ↓ presses (after PageDown)".

What was found: the list's arrows (its own bindings) and space (a binding) acted only once their key had
bubbled up to the app, after a letter typed next had acted (``ChoiceBox.on_key``): typed quickly, "space, b"
toggled (b) twice and never the option under the highlight, and "↓ ↓, a" left the highlight two below (a),
so the next keys acted on options the student was not looking at.  Every key now acts in the order typed.

pgdn must page the question (a priority binding of the screen: the focused option list would otherwise take
it and move its highlight a page down, to the last option, where ↓ does nothing) and leave the list's
highlight where it was; every ↓ typed after the options are on screen then moves the highlight one option
down, whatever arrives in one burst.  Checked in practice, after "try again" (a second option list, mounted
while the focus was on the feedback), and in the mock exam, with the keys posted as the terminal driver
posts them (a burst, as a student types, not one key per settled frame), once the list's key gate has
stamped the frame that drew it (keys before that frame are dropped on purpose: ``KeyGate``).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

from textual import events
from textual.containers import VerticalScroll
from textual.widgets import OptionList

from quizzer.tui.app import QuizzerApp
from quizzer.tui.screens.exam import MockExamScreen
from quizzer.tui.screens.practice import PracticeScreen
from quizzer.tui.widgets.choice_box import ChoiceBox
from tests.tui.conftest import until
from tests.tui.test_exam import open_paper
from tests.tui.test_question_in_view import LONGEST, open_question

SELECT_ALL_PAPER = "2026T1_ET_AN"  # its question 2 is a select-all of eight options


async def drawn(pilot: Any, box: ChoiceBox) -> OptionList:
    """The box's list, once a frame showing it was written (its key gate stamped), as a student sees it."""
    await until(pilot, lambda: box.gate.drawn_at < math.inf, "the options drawn")
    return box.query_one(OptionList)


def burst(app: QuizzerApp, *keys: str) -> None:
    """Keys as the terminal driver posts them: all at once, none waiting for the frame before it."""
    for key in keys:
        app.post_message(events.Key(key, None))


async def pagedown_then_arrows(pilot: Any, box: ChoiceBox, scroll: VerticalScroll) -> None:
    """pgdn pages the question only; three ↓ then move the highlight three options down."""
    options = await drawn(pilot, box)
    start = options.highlighted or 0
    assert start == 0 and box.multi
    scrollable = scroll.max_scroll_y > 0
    burst(pilot.app, "pagedown", "down", "down", "down")
    await until(pilot, lambda: options.highlighted == start + 3, "the highlight three options down")
    assert not scrollable or scroll.scroll_y > 0  # the question was paged
    assert pilot.app.focused is options and box.chosen == set()  # moved, nothing toggled
    burst(pilot.app, "pagedown", "pagedown", "down")  # pgdn past the question's end: ↓ still moves the list
    await until(pilot, lambda: options.highlighted == start + 4, "the highlight one more down")
    burst(pilot.app, "pageup", "up")
    await until(pilot, lambda: options.highlighted == start + 3, "the highlight one back up")


def test_practice_at_80x24(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, LONGEST["multi"])
            assert isinstance(screen, PracticeScreen)
            await pagedown_then_arrows(pilot, screen.query_one(ChoiceBox),
                                       screen.query_one("#question-scroll", VerticalScroll))

    asyncio.run(scenario())


def test_practice_after_try_again_at_80x24(new_app: Callable[..., QuizzerApp]) -> None:
    """The second try's list is mounted while the focus is on the question pane (where the offer showed): ↓
    must reach the new list, not scroll the pane."""
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, LONGEST["multi"])
            assert isinstance(screen, PracticeScreen) and screen.question is not None
            first = screen.query_one(ChoiceBox)
            await drawn(pilot, first)
            wrong = next(i for i in range(len(first.options)) if i not in screen.question.instance.answer)
            burst(app, chr(97 + wrong), "enter")
            await until(pilot, lambda: screen.offering, "the offer of a second try")
            await until(pilot, lambda: screen.feedback_gate.drawn_at < math.inf, "the offer on screen")
            burst(app, "t")
            await until(pilot, lambda: bool(screen.query(ChoiceBox)) and screen.query_one(ChoiceBox) is not first,
                        "the second try's options")
            scroll = screen.query_one("#question-scroll", VerticalScroll)
            await pagedown_then_arrows(pilot, screen.query_one(ChoiceBox), scroll)

    asyncio.run(scenario())


def test_mock_exam_at_80x24(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_paper(app, pilot, SELECT_ALL_PAPER)
            assert isinstance(screen, MockExamScreen)
            await pilot.press("ctrl+right")
            await until(pilot, lambda: screen.index == 1 and bool(screen.query(ChoiceBox)), "question 2")
            assert screen.slots[1].instance.kind == "multi"
            await pagedown_then_arrows(pilot, screen.query_one(ChoiceBox),
                                       screen.query_one("#exam-scroll", VerticalScroll))

    asyncio.run(scenario())


def test_keys_typed_in_one_burst_act_in_the_order_typed(new_app: Callable[..., QuizzerApp]) -> None:
    app = new_app()

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_question(pilot, LONGEST["multi"])
            box = screen.query_one(ChoiceBox)
            options = await drawn(pilot, box)
            burst(app, "pagedown", "down", "down", "down", "space", "b")  # (d) toggled, then (b)
            await until(pilot, lambda: box.chosen == {1, 3} and options.highlighted == 1, "(b) and (d) chosen")
            burst(app, "down", "down", "space", "a", "down", "space")  # (d) off, (a) on and (b) off
            await until(pilot, lambda: options.highlighted == 1 and box.chosen == {0}, "(a) chosen, on (b)")
            burst(app, "end", "space", "home", "space")  # the last on, (a) off
            await until(pilot, lambda: options.highlighted == 0 and box.chosen == {len(box.options) - 1},
                        "the last option chosen, on (a)")

    asyncio.run(scenario())


async def paged_and_moved(pilot: Any) -> None:
    """The longest select-all question at 80×24 after pgdn and ↓ ↓ ↓: the question paged, (d) highlighted
    and scrolled into the list's view."""
    screen = await open_question(pilot, LONGEST["multi"])
    box = screen.query_one(ChoiceBox)
    options = await drawn(pilot, box)
    burst(pilot.app, "pagedown", "down", "down", "down")
    await until(pilot, lambda: options.highlighted == 3, "(d) highlighted")
    await pilot.pause()


def test_snapshot_pagedown_then_arrows_80x24(snap_compare: Any, new_app: Callable[..., QuizzerApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=paged_and_moved)
