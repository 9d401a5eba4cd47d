"""Keys pressed before a screen part was drawn were meant for what the student saw before it.

A student who presses enter twice to submit, or a letter and enter in quick succession,
must not have the second key act on a widget that was not yet on screen when it was
pressed (advance past feedback never shown, submit option (a) of the next exam question).
Each key event carries the moment it was read; a gated widget accepts only keys read
after its first paint.  This is ordering, not a delay: a key pressed after the paint acts
at once, however soon.

The paint is stamped by the app with the moment it began writing the first frame that lays the
widget out (:class:`GatedApp`, around Textual's ``_display``).  Not by a callback scheduled to
run after the refresh, nor by a clock read once the frame is written: on a busy machine either
can run long after the frame reached the terminal, after the keys the student typed on seeing
it, and those keys were dropped (a student's "a" then enter on the class server became
"nothing picked").  A key read while the frame is being turned into text (a millisecond) is
taken as seen: dropping a key the student saw is the worse mistake.
"""

from __future__ import annotations

import math

from rich.console import RenderableType
from textual import _time  # the clock Textual stamps every event with
from textual.app import App
from textual.events import Key
from textual.screen import Screen
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

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        # The clock is read before the frame is written, so that no key the student typed on seeing it
        # can be read before the stamp.  Textual calls _display for every frame (headless too, unwritten).
        started = _time.get_time()
        super()._display(screen, renderable)
        if self.armed_gates and renderable is not None and not self._batch_count:
            self.armed_gates = [gate for gate in self.armed_gates if not gate.frame_written(started)]
