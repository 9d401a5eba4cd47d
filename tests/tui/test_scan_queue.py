"""The scanner's queue screen (``quizzer scan --confirm``): each row's image beside its reading, answered
from the keyboard, checked, saved at every answer; and at 80×24 and 120×40.

The whole loop with a real scan (the queue answered on this screen, then recorded) is in
``tests/scan/test_scan.py``; here the screen alone, on rows and an image made for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from textual import events
from textual.widgets import Input, Static

from quizzer.tui.scan_app import ScanQueueApp
from quizzer.tui.screens.scan_queue import ScanQueueScreen
from quizzer.tui.widgets.gated_input import GatedInput
from quizzer.tui.widgets.scan_crop import CropView, fitted, shrink, strips

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@dataclass
class Row:
    sheet: str
    question: str
    key: str = ""
    reading: str = ""
    why: str = ""
    image: str = ""
    answer: str = ""


def crossed_boxes() -> np.ndarray:
    """Four answer boxes on paper, (b) crossed faintly: what a queued choice field looks like."""
    pixels = np.full((60, 260), 235, np.uint8)
    for left in (20, 80, 140, 200):
        pixels[15:45, left:left + 2] = pixels[15:45, left + 28:left + 30] = 40
        pixels[15:17, left:left + 30] = pixels[43:45, left:left + 30] = 40
    for step in range(26):
        pixels[17 + step, 82 + step] = pixels[17 + step, 107 - step] = 150
    return pixels


def rows() -> list[Row]:
    return [Row("A/20260001", "3", "w2-layernorm-params Q3", "", "box b neither clearly marked nor clearly empty",
                "A-20260001-3.png"),
            Row("scans/page-4.jpg", "student ID", "", "20269999", "student ID 20269999 is not on the roster",
                "scans-page-4-jpg-student-ID.png"),
            Row("A/20260001", "5", "w2-recall", "", "written answer: marked by hand", ""),
            Row("B/20260002", "2", "w2-attention-scale", "b", "done before", "B-20260002-2.png", "b")]


class Recorder:
    """The caller's side: the check of a typed answer and the saving, counted."""

    def __init__(self) -> None:
        self.saves = 0

    def check(self, row: Any, text: str) -> str:
        if row.question == "student ID" and text != "-" and not text.isdigit():
            return "a student ID is digits"
        if row.question == "3" and text not in ("a", "b", "c", "d", "-"):
            return f"could not read the answer {text!r}: one of a, b, c, d"
        return ""

    def save(self) -> None:
        self.saves += 1


def make(queue: list[Row], recorder: Recorder) -> ScanQueueApp:
    return ScanQueueApp(queue, image=lambda row: crossed_boxes() if row.image else None, check=recorder.check,
                        save=recorder.save, title="exam-queue.csv")


async def shown(pilot: Any) -> ScanQueueScreen:
    """The screen once its row and that row's image are on it."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ScanQueueScreen)
    return screen


def text(screen: ScanQueueScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def test_enter_accepts_the_reading_or_what_is_typed_and_saves_each_answer() -> None:
    async def scenario() -> None:
        queue, recorder = rows(), Recorder()
        app = make(queue, recorder)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await shown(pilot)
            assert screen.at == 0 and "question 3" in text(screen, "#where")
            assert "neither clearly marked" in text(screen, "#why")
            assert app.screen.query_one(CropView).pixels is not None  # the image beside the reading
            await pilot.press("left_square_bracket", "x", "enter")  # not an option: refused, said why
            await shown(pilot)
            assert queue[0].answer == ""
            assert text(screen, "#status") == "could not read the answer '[x': one of a, b, c, d"  # not markup
            await pilot.press("backspace", "backspace", "b", "enter")
            screen = await shown(pilot)
            assert queue[0].answer == "b" and recorder.saves == 1
            # Next: the student-ID row, its reading in the box: enter accepts it as read.
            assert screen.at == 1 and screen.query_one("#answer", Input).value == "20269999"
            await pilot.press("enter")
            screen = await shown(pilot)
            assert queue[1].answer == "20269999"
            # The written answer: no image, nothing read; an empty box is not an answer.
            assert screen.at == 2 and "no image" in screen.query_one(CropView).note
            await pilot.press("enter")
            await shown(pilot)
            assert queue[2].answer == "" and "type the answer, or -" in text(screen, "#status")
            await pilot.press("minus", "enter")
            screen = await shown(pilot)
            assert queue[2].answer == "-" and recorder.saves == 3
            assert "every row answered" in text(screen, "#status")
            await pilot.press("escape")
            await pilot.pause()
        assert [row.answer for row in queue] == ["b", "20269999", "-", "b"]

    asyncio.run(scenario())


def test_rows_can_be_revisited_and_corrected() -> None:
    async def scenario() -> None:
        queue, recorder = rows(), Recorder()
        app = make(queue, recorder)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await shown(pilot)
            await pilot.press("pageup")  # from the first row back to the last: answered before
            screen = await shown(pilot)
            assert screen.at == 3 and screen.query_one("#answer", Input).value == "b"
            assert "your answer: b" in text(screen, "#reading")
            await pilot.press("pagedown")
            screen = await shown(pilot)
            assert screen.at == 0
            await pilot.press("ctrl+q")
            await pilot.pause()
        assert recorder.saves == 0 and [row.answer for row in queue] == ["", "", "", "b"]

    asyncio.run(scenario())


def test_an_empty_queue_says_so() -> None:
    async def scenario() -> None:
        app = make([], Recorder())
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await shown(pilot)
            assert "nothing waits for you" in screen.query_one(CropView).note
            assert screen.query_one("#answer", Input).disabled

    asyncio.run(scenario())


def test_the_image_keeps_its_strokes_and_its_aspect() -> None:
    pixels = crossed_boxes()
    assert fitted(pixels.shape, (40, 10)) == (9, 40)  # 60 × 260 pixels in 40 cells: 9 half-cells high
    small = shrink(pixels, 9, 40)
    assert small.shape == (9, 40)
    # A block holding a box's 2-pixel outline is darker than paper, though the outline is a tenth of it.
    assert small[4, 3] < 200 and small[0, 0] == 235
    lines = strips(pixels, (40, 10))
    assert len(lines) == 5 and all(line.cell_length == 40 for line in lines)
    # An image smaller than the cells is drawn larger, each pixel repeated.
    assert fitted((3, 4), (40, 10)) == (20, 27)
    assert (shrink(np.array([[0, 255]], np.uint8), 2, 4) == [[0, 0, 255, 255]] * 2).all()


def _snapshot_app(size: tuple[int, int]) -> ScanQueueApp:
    return make(rows(), Recorder())


@SIZES
def test_snapshot(snap_compare: Callable[..., bool], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await shown(pilot)
        screen.query_one("#answer", Input).cursor_blink = False

    assert snap_compare(_snapshot_app(size), terminal_size=size, run_before=run_before)


def test_keys_typed_ahead_do_not_land_in_the_next_row() -> None:
    """A '-' and an enter read before the next row was drawn were meant for the row before: dropped, both
    (an enter alone dropped left the '-' in the next row's box, and each further '-' and enter added to it)."""
    queue, recorder = rows(), Recorder()
    app = make(queue, recorder)

    async def scenario() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await shown(pilot)
            box = screen.query_one("#answer", GatedInput)
            typed_ahead = [events.Key("minus", "-"), events.Key("enter", None)]
            for key in typed_ahead:
                key.time = box.gate.drawn_at - 0.001  # read just before this row's first frame
                app.post_message(key)
            await shown(pilot)
            assert box.value == "" and queue[0].answer == "" and recorder.saves == 0
            for key in [events.Key("minus", "-"), events.Key("enter", None)]:  # stamped now: after the frame
                app.post_message(key)
            await shown(pilot)
            assert queue[0].answer == "-" and screen.at == 1

    asyncio.run(scenario())


def test_text_from_the_queue_file_is_shown_as_characters() -> None:
    """The queue is a file anyone may have edited: an escape is removed, markup is shown, not applied."""
    queue = [Row("A/1\x1b[2J", "[b]4[/b]", "k\x9b31m", "[red]b", "why \x1b]0;title\x07[/dim]", "")]
    app = make(queue, Recorder())

    async def scenario() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await shown(pilot)
            assert text(screen, "#where") == "A/1 · [b]4[/b] · k"
            assert text(screen, "#why") == "Why it waits: why [/dim]"
            assert text(screen, "#reading") == "The scanner read: [red]b"
            assert screen.query_one("#answer", Input).value == "[red]b"

    asyncio.run(scenario())
