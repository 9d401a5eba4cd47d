"""A mastery percentage as a short coloured bar for tables.

The colours are chosen per theme for contrast with the table's background (WCAG's 3:1 for graphics, at
the least): the terminal's plain yellow measured about 2:1 on the light theme's grey.
"""

from __future__ import annotations

from rich.text import Text

WIDTH = 10
# mastered, on the way (60 % and more), below: each ≥ 3:1 on the theme's background (#121212 dark, #E0E0E0 light).
COLOURS = {False: ("green3", "gold3", "bright_red"), True: ("dark_green", "orange4", "red3")}


def mastery_bar(p: float, width: int = WIDTH, *, mastered: bool = False, light: bool = False) -> Text:
    """`████▌░░░░░  45%`, green once the mastery model says mastered, amber from 60 %, red below."""
    filled = round(max(0.0, min(1.0, p)) * width * 2) / 2
    bar = "█" * int(filled) + ("▌" if filled % 1 else "")
    done, near, low = COLOURS[light]
    style = done if mastered else near if p >= 0.6 else low
    return Text.assemble((bar.ljust(width, "░"), style), f" {p:4.0%}")
