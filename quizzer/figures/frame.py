"""What every figure has around its body: a bold title above, an italic wrapped caption below."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from quizzer.figures.svg import Svg, wrap

TITLE_SIZE, CAPTION_SIZE = 11.0, 9.0
TITLE_BAND = 20.0  # the title's line and the space under it
CAPTION_LINE = 12.0
MARGIN = 8.0
CAPTION_INK = "#333333"


class Body(Protocol):
    """A figure's drawing: its size in points, drawn with its top edge at ``top``."""

    width: float
    height: float

    def draw(self, svg: Svg, top: float) -> None: ...


@dataclass(frozen=True)
class Frame:
    title: str
    caption: str
    ids: str

    def draw(self, body: Body) -> Svg:
        top = MARGIN + (TITLE_BAND if self.title else 0.0)
        caption = wrap(self.caption, body.width - 2 * MARGIN, CAPTION_SIZE)
        height = top + body.height + len(caption) * CAPTION_LINE + MARGIN
        svg = Svg(body.width, height, ids=self.ids, label=self.title or "figure")
        if self.title:
            svg.text(body.width / 2, MARGIN, self.title, size=TITLE_SIZE, align="top", font_weight="bold")
        body.draw(svg, top)
        for i, line in enumerate(caption):
            svg.text(body.width / 2, top + body.height + i * CAPTION_LINE + 2, line, size=CAPTION_SIZE, align="top",
                     font_style="italic", fill=CAPTION_INK)
        return svg
