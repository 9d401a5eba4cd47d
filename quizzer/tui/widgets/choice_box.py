"""Options for choice (one) and multi (select all that apply) questions."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import Key
from textual.message import Message
from textual.widgets import OptionList, Static

from quizzer.text.mathtext import render_math
from quizzer.tui.widgets.key_gate import KeyGate

# The inline Markdown an option uses: **bold**, and `code` (a fill value, a line of PyTorch).
INLINE = re.compile(r"\*\*(?P<bold>.+?)\*\*|`(?P<code>[^`]+)`")


def letter(index: int) -> str:
    return chr(ord("a") + index)


def inline_markdown(text: str) -> Text:
    """Option texts are Markdown: show their **bold** as bold and their `code` set off (reversed, readable
    in either theme), not as asterisks and backticks."""
    out, position = Text(), 0
    for match in INLINE.finditer(text):
        out.append(text[position:match.start()])
        if match.group("bold") is not None:
            out.append(match.group("bold"), style="bold")
        else:
            out.append(match.group("code"), style="reverse")
        position = match.end()
    out.append(text[position:])
    return out


class ChoiceBox(Vertical):
    """Posts :class:`ChoiceBox.Submitted` with the answer as letters ("b", or "a, c").

    A letter only picks (single choice: highlights; multi: toggles); enter submits, so the
    key after a letter is never taken as the next step of an answer already graded.
    """

    # Both kinds are an OptionList, which wraps long options (a SelectionList draws its checkbox
    # on every wrapped line and loses some); a multi question marks its picks in the option text.
    # Every key that moves the highlight or picks acts here, in on_key, in the order typed: the list's own
    # bindings (↑/↓) and a binding for space act only once their key has bubbled up to the app, after a
    # letter typed next was handled here.  "space, b" typed quickly toggled (b) twice and not the option
    # under the highlight (a select-all graded without it); "↓, a" left the highlight below (a).
    MOVES = {"down": "cursor_down", "up": "cursor_up", "home": "first", "end": "last"}

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            self.text = text
            super().__init__()

    def __init__(self, options: tuple[str, ...], multi: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.options, self.multi = options, multi
        self.chosen: set[int] = set()
        self.gate = KeyGate()

    def compose(self) -> ComposeResult:
        yield OptionList(*(self._label(i) for i in range(len(self.options))), id="choices")
        yield Static(self._hint(), classes="hint", id="choice-hint")

    def _hint(self) -> str:
        # The letter range says how many options there are when the list must scroll to show them all.
        letters = f"{letter(0)}–{letter(len(self.options) - 1)}"
        return (f"{letters}: a letter or space toggles · ↑/↓ moves · enter submits" if self.multi
                else f"{letters}: a letter or ↑/↓ picks · enter submits")

    def _label(self, index: int) -> Text:
        """`(b) text`, after `[x] ` or `[ ] ` in a multi question."""
        # A Text, not markup: "[B, T, 64]" in an option must not be read as a style tag.
        box = f"[{'x' if index in self.chosen else ' '}] " if self.multi else ""
        return Text(f"{box}({letter(index)}) ") + inline_markdown(render_math(self.options[index]))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if not self.multi:
            # Nothing picked until the student picks: an OptionList highlights its first option, and one enter
            # (meant for the next question, or a slip) submitted (a) as the student's answer.
            options.highlighted = None
        # Focus without scrolling: a long prompt is read from its top; the first key brings the options.
        options.focus(scroll_visible=False)
        self.gate.arm(self)
        # Said again whenever the list is laid out (its scroll bar comes or goes, its content is measured) or
        # scrolled: not "after the next refresh", which can come before the layout that shows the list overflows.
        for attribute in ("show_vertical_scrollbar", "virtual_size", "scroll_y"):
            self.watch(options, attribute, self._say_more_below, init=False)

    def _say_more_below(self) -> None:
        """Say when options are hidden below the list's last visible line: a student submitted a select-all
        with (g) never seen (a scroll bar two cells wide was all that showed it), and (g) was "missed"."""
        hint, options = self.query_one("#choice-hint", Static), self.query_one(OptionList)
        if not hint.has_class("refused"):
            hidden = options.max_scroll_y > 0 and options.scroll_y < options.max_scroll_y
            hint.update(f"↓ more below · {self._hint()}" if hidden else self._hint())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click: a single choice is the answer; in a multi question a click toggles."""
        event.stop()
        if self.multi:
            self.toggle(event.option_index)
        else:
            self.post_message(self.Submitted(letter(event.option_index)))

    def on_key(self, event: Key) -> None:
        """A letter picks (or toggles) its option, ↑/↓/home/end move, space toggles; enter submits a multi
        selection."""
        if self.gate.early(event):
            return
        self.scroll_visible(animate=False)
        options = self.query_one(OptionList)
        if event.key == "enter" and (self.multi or options.highlighted is None):
            event.stop()
            self.action_submit()
        elif event.key in self.MOVES:
            event.stop()
            event.prevent_default()
            getattr(options, f"action_{self.MOVES[event.key]}")()
        elif event.key == "space":
            event.stop()
            event.prevent_default()
            self.toggle_highlighted()
        elif len(event.key) == 1 and "a" <= event.key < letter(len(self.options)):
            event.stop()
            index = ord(event.key) - ord("a")
            options.highlighted = index
            if self.multi:
                self.toggle(index)

    def toggle(self, index: int) -> None:
        self.chosen ^= {index}
        self.query_one(OptionList).replace_option_prompt_at_index(index, self._label(index))
        self._withdraw_warning()

    def toggle_highlighted(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if self.multi and highlighted is not None:
            self.toggle(highlighted)

    def action_submit(self) -> None:
        """Submit the options picked (a single choice submits through its list; this is reached without a pick)."""
        if self.chosen:
            self.post_message(self.Submitted(", ".join(letter(i) for i in sorted(self.chosen))))
            return
        # Said where the keys are explained, in the warning colour, as the answer box says it cannot read an
        # answer: a notice at the top of the screen was missed, and covered the question's title.
        hint = self.query_one("#choice-hint", Static)
        hint.update("✘ nothing selected: pick the true statements (a letter or space), then enter" if self.multi
                    else "✘ nothing picked: pick an option (a letter or ↑/↓), then enter")
        hint.add_class("refused")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if not self.multi:  # a single choice's pick is its highlight
            self._withdraw_warning()

    def _withdraw_warning(self) -> None:
        """A pick answers the warning that nothing was picked: the keys are shown again."""
        hint = self.query_one("#choice-hint", Static)
        if hint.has_class("refused"):
            hint.remove_class("refused")
            self._say_more_below()
