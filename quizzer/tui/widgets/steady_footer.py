"""Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes every key widget each time the screen's bindings are updated (a focus
change, a ``refresh_bindings``), even when the very same keys come back, and a mock exam updates
them at every question: about a tenth of its time went into rebuilding an unchanged footer.  This
one compares what it would show with what it shows and recomposes only on a difference, so the keys
look and click exactly as Textual's own.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

ShownKey = tuple[str, Binding, bool, str]  # the key, its binding, whether it is enabled, its tooltip


class SteadyFooter(Footer):
    """A Footer that recomposes only when a shown key, its state or its tooltip changed."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: list[ShownKey] | None = None  # None until the keys were first composed

    def _keys(self, screen: Screen[object]) -> list[ShownKey]:
        """What Footer.compose reads: every shown binding, and the command palette's key."""
        palette = self.app.COMMAND_PALETTE_BINDING
        return [(key, active.binding, active.enabled, active.tooltip)
                for key, active in screen.active_bindings.items() if active.binding.show or key == palette]

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys(self.screen)
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        unchanged = (self._shown is not None and self.is_attached and screen is self.screen
                     and self._keys(screen) == self._shown)
        if not unchanged:
            super().bindings_changed(screen)
