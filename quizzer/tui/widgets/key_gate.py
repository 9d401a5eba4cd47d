"""Keys pressed before a screen part was drawn were meant for what the student saw before it.

A student who presses enter twice to submit, or a letter and enter in quick succession,
must not have the second key act on a widget that was not yet on screen when it was
pressed (advance past feedback never shown, submit option (a) of the next exam question).
Each key event carries the moment it was read; a gated widget accepts only keys read
after its first paint.  This is ordering, not a delay: a key pressed after the paint acts
at once, however soon.

The paint is stamped by the app when it has written the first frame that lays the widget out
(:class:`GatedApp`, through Textual's ``post_display_hook``), not by a callback scheduled to
run after the refresh: such a callback can run long after the frame reached the terminal (on a
busy machine, after the keys the student typed on seeing it), and those keys were dropped.
"""

from __future__ import annotations

import math

from textual import _time  # the clock Textual stamps every event with
from textual.app import App
from textual.events import Key
from textual.widget import Widget


class KeyGate:
    """When the gated widget was first drawn since :meth:`arm`; which keys came too early."""

    def __init__(self) -> None:
        self.drawn_at = math.inf
        self._widget: Widget | None = None

    def arm(self, widget: Widget) -> None:
        """Refuse keys until a frame showing ``widget`` has been written (its app is a GatedApp)."""
        app = widget.app
        if not isinstance(app, GatedApp):
            raise TypeError(f"a key gate needs a GatedApp; {type(app).__name__} is not one")
        self.drawn_at = math.inf
        self._widget = widget
        app.armed_gates.append(self)
        widget.refresh()

    def frame_written(self, now: float) -> bool:
        """Stamp the gate if its widget was laid out in the frame just written (then it is done)."""
        if self._widget is None or not self._widget.region.area:
            return False
        self.drawn_at = now
        return True

    def early(self, event: Key) -> bool:
        """Whether ``event`` was read before the widget was on screen (then it is swallowed)."""
        if event.time < self.drawn_at:
            event.stop()
            event.prevent_default()
            return True
        return False


class GatedApp(App[None]):
    """An app that stamps its armed key gates as each frame is written."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.armed_gates: list[KeyGate] = []

    def post_display_hook(self) -> None:
        super().post_display_hook()
        if self.armed_gates:
            now = _time.get_time()
            self.armed_gates = [gate for gate in self.armed_gates if not gate.frame_written(now)]
