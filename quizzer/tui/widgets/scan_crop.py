"""A scanned box's image in the terminal: two grey pixels a cell (the upper half block ``▀``, its colour
the upper pixel, its background the lower one).

Why not a library: ``textual-image`` draws real pixels where the terminal speaks the Kitty or Sixel
protocol, but it asks the terminal which one at import (escape sequences written to it) and needs Pillow;
in tmux, over ssh and in ``quizzer serve``'s browser it falls back to these same half blocks.  A crop of a
scanned field is a small grey NumPy array already, and sixty lines draw it the same in every terminal.

Shrinking keeps the strokes: each cell's pixel is the mean of its block of the scan darkened towards the
block's darkest pixel, so a 0.4 mm pen stroke in a 1.5 mm cell still shows as a line, not as grey fog.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widget import Widget

Gray = NDArray[np.uint8]
HALF = "▀"


def shrink(pixels: Gray, height: int, width: int) -> NDArray[np.float64]:
    """``pixels`` as ``height`` × ``width`` blocks: each the mean of its block and its darkest pixel,
    averaged (a block of one pixel, where the image is smaller than the cells, is that pixel)."""
    rows = np.linspace(0, pixels.shape[0], height + 1).astype(int)[:-1]
    columns = np.linspace(0, pixels.shape[1], width + 1).astype(int)[:-1]
    counts = np.outer(_sizes(rows, pixels.shape[0]), _sizes(columns, pixels.shape[1]))
    values = pixels.astype(np.float64)
    sums = np.add.reduceat(np.add.reduceat(values, rows, axis=0), columns, axis=1)
    darkest = np.minimum.reduceat(np.minimum.reduceat(values, rows, axis=0), columns, axis=1)
    return (sums / counts + darkest) / 2


def _sizes(starts: NDArray[np.int_], end: int) -> NDArray[np.int_]:
    """How many pixels each block holds (``reduceat`` takes one pixel where two starts are equal)."""
    sizes = np.diff(np.append(starts, end))
    return np.where(sizes > 0, sizes, 1)


def fitted(shape: tuple[int, int], cells: tuple[int, int]) -> tuple[int, int]:
    """The image's size in half-cell pixels (rows, columns) within ``cells`` (width, height), its aspect
    kept (a half cell is about square)."""
    height, width = shape
    columns, lines = cells
    scale = min(columns / width, 2 * lines / height)
    return max(1, min(2 * lines, round(height * scale))), max(1, min(columns, round(width * scale)))


def strips(pixels: Gray, cells: tuple[int, int]) -> list[Strip]:
    """The image drawn in half blocks, centred in ``cells`` (width, height)."""
    rows, columns = fitted(pixels.shape[:2], cells)
    grey = shrink(pixels, rows, columns).round().astype(int)
    if rows % 2:  # an odd last row: its lower half is the background
        grey = np.vstack([grey, np.full((1, columns), -1)])
    margin = (cells[0] - columns) // 2
    lines = []
    for top, bottom in zip(grey[0::2], grey[1::2], strict=True):
        segments = [Segment(" " * margin)] + [
            Segment(HALF, Style(color=_colour(upper), bgcolor=None if lower < 0 else _colour(lower)))
            for upper, lower in zip(top.tolist(), bottom.tolist(), strict=True)]
        lines.append(Strip(segments, margin + columns))
    return lines


def _colour(level: int) -> Color:
    return Color.from_rgb(level, level, level)


class CropView(Widget):
    """Shows one grey image, as large as fits; a line of text where there is none."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002  (Textual's own name)
        super().__init__(id=id)
        self.pixels: Gray | None = None
        self.note = ""
        self._drawn: tuple[tuple[int, int], list[Strip]] | None = None

    def show(self, pixels: Gray | None, note: str = "") -> None:
        """Draw ``pixels`` (None: no image, ``note`` says why)."""
        self.pixels, self.note, self._drawn = pixels, note, None
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width, height = self.content_size
        if self.pixels is None or not self.pixels.size or width < 1 or height < 1:
            text = self.note if y == height // 2 else ""
            return Strip([Segment(text.center(width)[:width], self.rich_style)])
        if self._drawn is None or self._drawn[0] != (width, height):
            self._drawn = ((width, height), strips(self.pixels, (width, height)))
        lines = self._drawn[1]
        offset = (height - len(lines)) // 2
        line = lines[y - offset] if 0 <= y - offset < len(lines) else Strip.blank(width)
        return line.apply_style(self.rich_style)  # the widget's background where the image has none
