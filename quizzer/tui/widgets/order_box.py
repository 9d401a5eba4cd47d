"""Steps of an ordering question, put in order by typing their letters (as the prompt and the CLI ask) or
rearranged with the keyboard, and submitted as letters.

Typing ``c a d b`` places (c) first, (a) second and so on: each letter takes the next place after the
steps already placed, the rest keep their order below them, and the last one falls into place by
itself.  Backspace takes the last placed step back.  Shift+↑/↓ (or K/J) still move the highlighted step
for those who prefer arranging to typing.
"""

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

KEYS_HINT = "letters in order · backspace undoes one · shift+↑/↓ moves · enter submits"


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
        self.placed = 0  # how many places at the top were given by typed letters
        self.gate = KeyGate()

    def compose(self) -> ComposeResult:
        yield OptionList(*(self._label(place) for place in range(len(self.steps))), id="steps")
        yield Static(self._hint(), classes="hint", id="order-hint")

    def _label(self, place: int) -> Text:
        """`2. (c) text`: its place in the order, then the step's own letter (bold once placed by a letter)."""
        step = self.arrangement[place]
        number = Text(f"{place + 1}. ({letter(step)}) ", style="bold" if place < self.placed else "")
        return number + inline_markdown(render_math(self.steps[step]))

    def _hint(self, refusal: str = "") -> str:
        typed = " ".join(letter(step) for step in self.arrangement[:self.placed])
        return refusal or (f"your order so far: {typed} · {KEYS_HINT}" if typed else KEYS_HINT)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus(scroll_visible=False)
        self.gate.arm(self)

    def on_key(self, event: Key) -> None:
        """A letter places that step next; backspace takes the last placed step back."""
        if self.gate.early(event):
            return
        self.scroll_visible(animate=False)
        if len(event.key) == 1 and "a" <= event.key < letter(len(self.steps)):
            event.stop()
            self.place(ord(event.key) - ord("a"))
        elif event.key == "backspace":
            event.stop()
            self.take_back()

    def place(self, step: int) -> None:
        """Put ``step`` in the next free place; the steps not yet placed keep their order below it."""
        at = self.arrangement.index(step)
        if at < self.placed:
            self._refresh(f"✘ ({letter(step)}) is already step {at + 1}: backspace takes steps back")
            return
        self.arrangement.insert(self.placed, self.arrangement.pop(at))
        self.placed += 1
        if self.placed == len(self.steps) - 1:
            self.placed += 1  # one step left: its place is the last
        self._refresh()
        self.query_one(OptionList).highlighted = min(self.placed, len(self.steps) - 1)

    def take_back(self) -> None:
        """Undo the last placing (the step stays where it is, first of those still to place)."""
        if self.placed:
            self.placed -= 1 if self.placed < len(self.steps) else 2
            self._refresh()
            self.query_one(OptionList).highlighted = self.placed

    def _refresh(self, refusal: str = "") -> None:
        options = self.query_one(OptionList)
        for place in range(len(self.steps)):
            options.replace_option_prompt_at_index(place, self._label(place))
        hint = self.query_one("#order-hint", Static)
        hint.update(self._hint(refusal))
        hint.set_class(bool(refusal), "refused")

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
