"""``quizzer scan --confirm``'s app: the scanner's queue screen and nothing else (setup and keys only).

The rows, their images, the check of a typed answer and the saving come from the command
(:mod:`quizzer.cli.scanning`): the app never imports the scanner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.binding import Binding

from quizzer.tui.screens.scan_queue import QueueEntry, ScanQueueScreen
from quizzer.tui.widgets.key_gate import GatedApp
from quizzer.tui.widgets.scan_crop import Gray


class ScanQueueApp(GatedApp):
    TITLE = "quizzer scan"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False)]

    def __init__(self, rows: Sequence[QueueEntry], *, image: Callable[[QueueEntry], Gray | None],
                 check: Callable[[QueueEntry, str], str], save: Callable[[], None], title: str) -> None:
        super().__init__()
        self.rows = rows  # answered in place
        self.save = save
        self.screen_args = image, check, title

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        image, check, title = self.screen_args
        self.push_screen(ScanQueueScreen(self.rows, image=image, check=check, save=self.save, title=title),
                         lambda _: self.exit())
