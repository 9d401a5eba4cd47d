"""A text box that takes no key read before it was drawn for what it now asks.

When the box is reused for the next item (the scanner's queue: one box, row after row), a key typed
ahead (a second enter, the ``-`` meant for the row before) would land in the next row unseen.  Every
key, printable or not, read before the box's first frame since :meth:`KeyGate.arm` is dropped.
"""

from __future__ import annotations

from textual.events import Key
from textual.widgets import Input

from quizzer.tui.widgets.key_gate import KeyGate


class GatedInput(Input):
    """An Input with a :class:`KeyGate`: arm it whenever the box starts asking something new."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.gate = KeyGate()

    async def _on_key(self, event: Key) -> None:
        # Runs before Input's own handler and its bindings (enter: submit); stopped, neither sees the key.
        self.gate.early(event)
