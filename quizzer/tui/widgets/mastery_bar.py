"""A mastery percentage as a short coloured bar for tables."""

from __future__ import annotations

from rich.text import Text

WIDTH = 10


def mastery_bar(p: float, width: int = WIDTH, *, mastered: bool = False) -> Text:
    """`████▌░░░░░  45%`, green once the mastery model says mastered, amber from 60 %, red below."""
    filled = round(max(0.0, min(1.0, p)) * width * 2) / 2
    bar = "█" * int(filled) + ("▌" if filled % 1 else "")
    style = "green" if mastered else "yellow" if p >= 0.6 else "red"
    return Text.assemble((bar.ljust(width, "░"), style), f" {p:4.0%}")
