"""Keys pressed before a screen part was drawn were meant for what the student saw before it.

A student who presses enter twice to submit, or a letter and enter in quick succession,
must not have the second key act on a widget that was not yet on screen when it was
pressed (advance past feedback never shown, submit option (a) of the next exam question).
Each key event carries the moment it was read; a gated widget accepts only keys read
after its first paint.  This is ordering, not a delay: a key pressed after the paint acts
at once, however soon.
"""

from __future__ import annotations

import math

from textual import _time  # the clock Textual stamps every event with
from textual.events import Key
from textual.widget import Widget


class KeyGate:
    """When ``widget`` was last (re)drawn after :meth:`arm`; which keys came too early."""

    def __init__(self) -> None:
        self.drawn_at = math.inf

    def arm(self, widget: Widget) -> None:
        """Refuse keys until ``widget``'s next refresh has been painted."""
        self.drawn_at = math.inf
        widget.call_after_refresh(self._drawn)

    def _drawn(self) -> None:
        self.drawn_at = _time.get_time()

    def early(self, event: Key) -> bool:
        """Whether ``event`` was read before the widget was on screen (then it is swallowed)."""
        if event.time < self.drawn_at:
            event.stop()
            event.prevent_default()
            return True
        return False
