"""Steps of an ordering question, rearranged with the keyboard and submitted as letters."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.widgets import OptionList, Static

from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.choice_box import ChoiceBox, inline_markdown, letter
from quizzer.tui.widgets.key_gate import KeyGate


class OrderBox(Vertical):
    """Posts :class:`ChoiceBox.Submitted` with the arrangement as letters ("c, a, d, b").

    It posts the choice box's message, not one of its own, so every screen that takes a choice
    answer takes an order too; grading reads the letters like a typed order.
    """

    DEFAULT_CSS = "OrderBox { height: auto; }"  # its list's height: app.tcss, with the choice box's
    BINDINGS = [
        Binding("shift+up,ctrl+up,K", "move(-1)", "Move step up", show=False),
        Binding("shift+down,ctrl+down,J", "move(1)", "Move step down", show=False),
    ]

    def __init__(self, steps: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.steps = steps
        self.arrangement = list(range(len(steps)))  # displayed place -> step index, starts as shown
        self.gate = KeyGate()

    def compose(self) -> ComposeResult:
        yield OptionList(*(self._label(place) for place in range(len(self.steps))), id="steps")
        yield Static("↑/↓ or a letter picks a step · shift+↑/↓ (or K/J) moves it · enter submits the order",
                     classes="hint")

    def _label(self, place: int) -> Text:
        """`2. (c) text`: its place in the order, then the step's own letter."""
        step = self.arrangement[place]
        return Text(f"{place + 1}. ({letter(step)}) ") + inline_markdown(render_math(self.steps[step]))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus(scroll_visible=False)
        self.gate.arm(self)

    def on_key(self, event: Key) -> None:
        """A letter highlights that step wherever it now stands."""
        if self.gate.early(event):
            return
        self.scroll_visible(animate=False)
        if len(event.key) == 1 and "a" <= event.key < letter(len(self.steps)):
            event.stop()
            self.query_one(OptionList).highlighted = self.arrangement.index(ord(event.key) - ord("a"))

    def action_move(self, offset: int) -> None:
        """Swap the highlighted step with its neighbour; the highlight follows the step."""
        options = self.query_one(OptionList)
        place = options.highlighted
        if place is None or not 0 <= place + offset < len(self.steps):
            return
        target = place + offset
        self.arrangement[place], self.arrangement[target] = self.arrangement[target], self.arrangement[place]
        for changed in (place, target):
            options.replace_option_prompt_at_index(changed, self._label(changed))
        options.highlighted = target

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) submits the whole arrangement."""
        event.stop()
        self.post_message(ChoiceBox.Submitted(self.order_text()))

    def order_text(self) -> str:
        return ", ".join(letter(step) for step in self.arrangement)
