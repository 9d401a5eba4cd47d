"""The baseline of the app's start-up: a one-widget Textual app, run exactly as ``quizzer`` is.

``bench/bench_ratios.py`` starts it in a pty and times it until its one line of text is on the
terminal, as it times ``quizzer`` until the dashboard's title is; no quizzer import, nothing else.
"""

from textual.app import App, ComposeResult
from textual.widgets import Static

MARKER = "Tiny Textual app ready"


class TinyApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(MARKER)


if __name__ == "__main__":
    TinyApp().run()
