"""Self-rating for recall cards, in Anki's order: think of your answer, reveal the model answer, then rate.

The box holds the steps, not the model answer: the screen shows that where the question scrolls
(:class:`RecallBox.Revealed`), so a long answer never pushes the rating keys off screen.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.message import Message
from textual.widgets import Button, Static

from quizzer.grading.verdict import RATINGS
from quizzer.tui.widgets.key_gate import KeyGate


class RecallBox(Vertical):
    """A "show the model answer" step, then rating buttons (keys 1–4); posts :class:`RecallBox.Rated`.

    No rating is taken before the reveal: a self-rating means something only against the model
    answer, and mastery counts it as such.
    """

    class Revealed(Message):
        """The student asked for the model answer: the screen shows it."""

    class Rated(Message):
        def __init__(self, rating: str) -> None:
            self.rating = rating
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.revealed = False
        self.gate = KeyGate()

    def compose(self) -> ComposeResult:
        yield Button("Show the model answer", id="reveal-model", variant="primary")
        yield Static("answer in your head first · space/enter shows the model answer · then 1–4 rates",
                     classes="hint", id="reveal-hint")
        with Horizontal(id="ratings"):
            for number, rating in enumerate(RATINGS, 1):
                yield Button(f"{number} {rating}", id=f"rate-{rating}",
                             variant="primary" if rating == "good" else "default")
        yield Static("against the model answer above: 1 again · 2 hard · 3 good · 4 easy", classes="hint",
                     id="rating-hint")

    def on_mount(self) -> None:
        # The ratings wait for the reveal (the stylesheet hides them while `-waiting`).
        self.add_class("-waiting")
        self.query_one("#reveal-model", Button).focus(scroll_visible=False)
        self.gate.arm(self)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reveal-model":
            self.reveal()
        elif self.revealed:
            self.post_message(self.Rated(str(event.button.id).removeprefix("rate-")))

    def reveal(self) -> None:
        """Swap the reveal button for the ratings; the screen shows the model answer."""
        if self.revealed:
            return
        self.revealed = True
        self.post_message(self.Revealed())
        self.remove_class("-waiting")
        self.query_one("#rate-good", Button).focus()
        self.gate.arm(self)  # the key that revealed (or one typed after it) must not also rate

    def on_key(self, event: Key) -> None:
        if self.gate.early(event):
            return
        if event.key == "space" and not self.revealed:
            event.stop()
            self.reveal()
        elif event.key in ("1", "2", "3", "4"):
            event.stop()
            if self.revealed:
                self.post_message(self.Rated(RATINGS[int(event.key) - 1]))
            else:  # said under the button, as the other answer boxes say what they cannot take
                hint = self.query_one("#reveal-hint", Static)
                hint.update("✘ not rated yet: show the model answer first (space or enter), then rate")
                hint.add_class("refused")
