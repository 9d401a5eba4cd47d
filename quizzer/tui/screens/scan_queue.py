"""The scanner's queue, confirmed by the teacher: each box or page ``quizzer scan`` would not guess, its
image beside the reading, answered from the keyboard.

A row shows the field as the student left it (the scan's crop), the sheet and question, why the scanner
doubts it and what it read.  The answer box starts with that reading: enter accepts it; typing replaces
it (the answer as a student types it in the app, ``-`` for no answer, the right ID for a student-ID row),
and a typed answer is checked as the app reads it before it is taken.  Every answer is saved to the
queue file at once (in a worker: the file is fsynced), so closing the screen at any point loses nothing;
the command records the answered rows when the screen closes.

The screen knows nothing of the scanner: the rows, their images, the check and the saving are the
caller's (``quizzer scan --confirm``, through :mod:`quizzer.cli.scanning`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from quizzer.common.untrusted import terminal_safe
from quizzer.tui.widgets.gated_input import GatedInput
from quizzer.tui.widgets.scan_crop import CropView, Gray
from quizzer.tui.widgets.steady_footer import SteadyFooter

NO_ANSWER = "-"
HINT = "enter accept · type - for no answer · pgup/pgdn other rows · esc done"


class QueueEntry(Protocol):
    """One row of the scanner's queue (``quizzer.scan.run.QueueRow``)."""

    sheet: str
    question: str
    key: str
    reading: str
    why: str
    image: str
    answer: str


class ScanQueueScreen(Screen[int]):
    """Answer the queue's rows one by one; dismissed with how many rows were answered here."""

    CSS_PATH = "../styles/scan_queue.tcss"
    BINDINGS = [
        Binding("pagedown", "move(1)", "Next row", show=False),  # the hint under the answer box says them
        Binding("pageup", "move(-1)", "Previous row", show=False),
        Binding("escape", "done", "Done"),
    ]

    def __init__(self, rows: Sequence[QueueEntry], *, image: Callable[[QueueEntry], Gray | None],
                 check: Callable[[QueueEntry, str], str], save: Callable[[], None], title: str) -> None:
        super().__init__()
        self.rows, self.image, self.check, self.save = rows, image, check, save
        self.title = "quizzer scan: the queue"
        self.sub_title = title
        self.at = next((n for n, row in enumerate(rows) if not row.answer), 0)
        self.answered = 0  # rows answered on this screen
        self._saving = threading.Lock()

    def compose(self) -> ComposeResult:
        yield Header()
        yield CropView(id="crop")
        yield Static(id="where")
        yield Static(id="why")
        yield Static(id="reading")
        yield GatedInput(id="answer", placeholder="the answer as typed in the app; - for no answer")
        yield Static(id="status")
        yield SteadyFooter()

    def on_mount(self) -> None:
        self.show_row()

    def open_rows(self) -> int:
        return sum(not row.answer for row in self.rows)

    def show_row(self, problem: str = "") -> None:
        """The current row in every part of the screen, the answer box holding what it would accept."""
        if not self.rows:
            self.query_one(CropView).show(None, "The queue is empty: nothing waits for you.")
            self.query_one("#answer", Input).disabled = True
            return
        row = self.rows[self.at]
        self.query_one("#where", Static).update(Text.assemble(
            (_safe(row.sheet), "bold"), f" · {_what(row)}", (f" · {_safe(row.key)}" if row.key else "", "dim")))
        self.query_one("#why", Static).update(Text(f"Why it waits: {_safe(row.why) or '-'}"))
        self.query_one("#reading", Static).update(Text.assemble(
            "The scanner read: ", (_safe(row.reading), "bold") if row.reading else ("nothing it is sure of", "dim"),
            *((" · your answer: ", (_safe(row.answer), "bold")) if row.answer else ())))
        field = self.query_one("#answer", GatedInput)
        field.value = row.answer or row.reading
        field.focus()
        field.gate.arm(field)  # a key typed ahead was meant for the row before
        self.show_status(problem)
        self.query_one(CropView).show(None, "loading the image…")
        self.load_image(self.at)

    def show_status(self, problem: str = "") -> None:
        count = self.open_rows()
        left = f"{count} still to answer" if count else "every row answered: esc records them"
        self.query_one("#status", Static).update(
            Text(_safe(problem), "red") if problem
            else Text.assemble(f"row {self.at + 1} of {len(self.rows)} · {left}\n", (HINT, "dim")))

    @work(thread=True, exclusive=True, group="image")
    def load_image(self, at: int) -> None:
        """Read the row's image off the UI thread (a PNG beside the queue)."""
        row = self.rows[at]
        pixels = self.image(row) if row.image else None
        note = "no image for this row" if not row.image else "the image could not be read"
        self.app.call_from_thread(self._loaded, at, pixels, note)

    def _loaded(self, at: int, pixels: Gray | None, note: str) -> None:
        if at == self.at:
            self.query_one(CropView).show(pixels, note)

    @on(Input.Submitted, "#answer")
    def accept(self, event: Input.Submitted) -> None:
        if not self.rows:
            return
        text = event.value.strip()
        row = self.rows[self.at]
        problem = "type the answer, or - for no answer" if not text else self.check(row, text)
        if problem:
            self.show_status(problem)
            return
        self.answered += not row.answer
        row.answer = text
        self.save_answers()
        following = [n for n in range(self.at + 1, len(self.rows)) if not self.rows[n].answer]
        earlier = [n for n in range(self.at) if not self.rows[n].answer]
        self.at = (following or earlier or [self.at])[0]
        self.show_row()

    @work(thread=True, group="save")
    def save_answers(self) -> None:
        """Write the queue with every answer so far (one writer at a time; each writes the latest answers)."""
        with self._saving:
            self.save()

    def action_move(self, step: int) -> None:
        if self.rows:
            self.at = (self.at + step) % len(self.rows)
            self.show_row()

    def action_done(self) -> None:
        self.dismiss(self.answered)


def _what(row: QueueEntry) -> str:
    question = _safe(row.question)
    return question if not question[:1].isdigit() else f"question {question}"


def _safe(text: Any) -> str:
    """Text from a file, shown without control sequences (and never read as markup: it goes in a Text)."""
    return terminal_safe(str(text))
