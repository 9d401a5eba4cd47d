"""Self-rating for recall cards, in Anki's order, with a box to write in first: write your answer (or think
it), reveal the model answer, compare, then rate.

Writing the answer before seeing the model one is retrieval practice proper (a student who writes first,
then compares, remembers more than one who only thinks it); the box may be left empty.  What was written
is shown beside the model answer and in the feedback; the rating is what is recorded.

The box holds the steps, not the model answer: the screen shows that where the question scrolls
(:class:`RecallBox.Revealed`), so a long answer never pushes the rating keys off screen.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.message import Message
from textual.widgets import Button, Input, Static

from quizzer.grading.verdict import RATINGS
from quizzer.tui.widgets.key_gate import KeyGate

MAX_WRITTEN = 2000  # characters: a recall answer is a few lines


class RecallBox(Vertical):
    """A box to write in and a "show the model answer" step, then rating buttons (keys 1–4); posts
    :class:`RecallBox.Rated`.

    No rating is taken before the reveal: a self-rating means something only against the model
    answer, and mastery counts it as such.
    """

    class Revealed(Message):
        """The student asked for the model answer: the screen shows it, beside what they wrote."""

        def __init__(self, written: str) -> None:
            self.written = written
            super().__init__()

    class Rated(Message):
        def __init__(self, rating: str) -> None:
            self.rating = rating
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.revealed = False
        self.gate = KeyGate()

    def compose(self) -> ComposeResult:
        with Horizontal(id="recall-write"):
            yield Input(placeholder="write your answer first (or leave it empty), then enter", id="recall-input",
                        max_length=MAX_WRITTEN)
            yield Button("Show the model answer", id="reveal-model", variant="primary")
        yield Static("enter shows the model answer to compare with · then 1–4 rates", classes="hint",
                     id="reveal-hint")
        with Horizontal(id="ratings"):
            for number, rating in enumerate(RATINGS, 1):
                yield Button(f"{number} {rating}", id=f"rate-{rating}",
                             variant="primary" if rating == "good" else "default")
        yield Static("against the model answer above: 1 again · 2 hard · 3 good · 4 easy", classes="hint",
                     id="rating-hint")

    @property
    def written(self) -> str:
        return self.query_one("#recall-input", Input).value.strip()

    def on_mount(self) -> None:
        # The ratings wait for the reveal (the stylesheet hides them while `-waiting`).
        self.add_class("-waiting")
        self.query_one("#recall-input", Input).focus(scroll_visible=False)
        self.gate.arm(self)

    @on(Input.Submitted, "#recall-input")
    def written_down(self, event: Input.Submitted) -> None:
        event.stop()
        self.reveal()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reveal-model":
            self.reveal()
        elif self.revealed:
            self.post_message(self.Rated(str(event.button.id).removeprefix("rate-")))

    def reveal(self) -> None:
        """Swap the reveal button for the ratings; the screen shows the model answer.  What was written stays
        in view, no longer editable: it is compared, not corrected."""
        if self.revealed:
            return
        self.revealed = True
        self.post_message(self.Revealed(self.written))
        self.query_one("#recall-input", Input).disabled = True
        self.remove_class("-waiting")
        self.query_one("#rate-good", Button).focus()
        self.gate.arm(self)  # the key that revealed (or one typed after it) must not also rate

    def on_key(self, event: Key) -> None:
        if self.gate.early(event):
            return
        if self.revealed and event.key in ("1", "2", "3", "4"):
            event.stop()
            self.post_message(self.Rated(RATINGS[int(event.key) - 1]))
