"""Self-rating for recall cards: think of your answer, reveal the model answer, then rate yourself."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.message import Message
from textual.widgets import Button, Markdown, Static

RATINGS = ("again", "hard", "good", "easy")


class RecallBox(Vertical):
    """Rating buttons (keys 1–4) behind a "show the model answer" step; posts :class:`RecallBox.Rated`."""

    class Rated(Message):
        def __init__(self, rating: str) -> None:
            self.rating = rating
            super().__init__()

    def __init__(self, model_answer: str | None = None, **kwargs: Any) -> None:
        # Without a model answer (a mock exam marks only at the end) the ratings show at once.
        super().__init__(**kwargs)
        self.model_answer = model_answer

    def compose(self) -> ComposeResult:
        if self.model_answer is not None:
            yield Button("Show the model answer", id="reveal-model", variant="primary")
            yield Static("answer in your head first · enter shows the model answer · 1–4 rates at once",
                         classes="hint", id="reveal-hint")
        with Horizontal(id="ratings"):
            for number, rating in enumerate(RATINGS, 1):
                yield Button(f"{number} {rating}", id=f"rate-{rating}",
                             variant="primary" if rating == "good" else "default")
        yield Static("rate how well you recalled it: 1 again · 2 hard · 3 good · 4 easy", classes="hint",
                     id="rating-hint")
        if self.model_answer is not None:
            # Below the ratings, so they stay in view however long the model answer is.
            yield Markdown(self.model_answer, id="model-answer")

    def on_mount(self) -> None:
        # The model answer and the ratings wait for the reveal (the stylesheet hides them while
        # `-waiting`); without a model answer there is nothing to wait for.
        waiting = self.model_answer is not None
        self.set_class(waiting, "-waiting")
        self.query_one("#reveal-model" if waiting else "#rate-good", Button).focus(scroll_visible=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "reveal-model":
            self.reveal()
        else:
            self.post_message(self.Rated(str(event.button.id).removeprefix("rate-")))

    def reveal(self) -> None:
        """Swap the reveal button for the model answer and the ratings."""
        self.remove_class("-waiting")
        self.query_one("#rate-good", Button).focus()

    def on_key(self, event: Key) -> None:
        if event.key in ("1", "2", "3", "4"):
            event.stop()
            self.post_message(self.Rated(RATINGS[int(event.key) - 1]))
