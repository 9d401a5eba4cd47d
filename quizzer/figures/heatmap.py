"""A heatmap: a matrix read as printed, row labels down the left and column labels along the top.

Each cell is coloured on the viridis scale over the unmasked values, with its value written
in black or white (whichever contrasts); masked cells are light grey with a diagonal hatch and
dark ink.  White gaps separate the cells.  Beyond ``MAX_WRITTEN_SIDE`` rows or columns the
values would be too small to read: a colour bar with ticks replaces them.
"""

from __future__ import annotations

import math

from quizzer.figures.axes import nice_ticks, tick_labels
from quizzer.figures.svg import Svg, element, text_width
from quizzer.templates.figure import Figure, cell_text, contrast_ink, plain_text, viridis

MAX_WRITTEN_SIDE = 16
MAX_GRID = (500.0, 440.0)  # points: the widest and tallest grid still fits a page's text block
CELL = (46.0, 32.0)  # a cell's preferred width and height: room for "−0.00" at 10 points
MIN_WIDTH = 300.0
LABEL_SIZE, AXIS_LABEL_SIZE = 10.0, 10.0
GAP = 2.0  # white between cells
BLOCKED_FILL, BLOCKED_HATCH, BLOCKED_INK = "#ececec", "#bdbdbd", "#333333"
COLOR_BAR = (14.0, 12.0)  # the gap before the bar, its width


class HeatmapBody:
    def __init__(self, figure: Figure):
        self.figure = figure
        self.rows, self.columns = len(figure.cells), len(figure.cells[0])
        self.cell_width = min(CELL[0], MAX_GRID[0] / self.columns)
        # Tall enough for the y label written up its side (a one-row matrix would leave it hanging out).
        label_room = (text_width(plain_text(figure.ylabel), AXIS_LABEL_SIZE) + 8) / self.rows
        self.cell_height = min(max(min(CELL[1], MAX_GRID[1] / self.rows), label_room), 3 * CELL[1])
        self.written = max(self.rows, self.columns) <= MAX_WRITTEN_SIDE
        self.value_size = self._value_size() if self.written else 0.0  # once: it measures every cell's text
        self.low, self.high = _scale(figure)
        self.row_labels = [plain_text(label) for label in figure.row_labels]
        self.col_labels = [plain_text(label) for label in figure.col_labels]
        self.left = 8.0 + (18.0 if figure.ylabel else 0.0) + max(text_width(t, LABEL_SIZE) for t in self.row_labels) + 6
        self.head = 18.0 + (14.0 if figure.xlabel else 0.0)  # column labels, then the x label above them
        grid_width = self.columns * self.cell_width
        bar = 0.0 if self.written else COLOR_BAR[0] + COLOR_BAR[1] + 6 + self._bar_label_width()
        self.width = max(self.left + grid_width + bar + 10.0, MIN_WIDTH)
        self.left += (self.width - (self.left + grid_width + bar + 10.0)) / 2  # centre a grid narrower than the minimum
        self.height = self.head + self.rows * self.cell_height + 6.0

    def draw(self, svg: Svg, top: float) -> None:
        grid_top = top + self.head
        self._define_hatch(svg)
        for row in range(self.rows):
            for column in range(self.columns):
                self._cell(svg, row, column, self.left + column * self.cell_width, grid_top + row * self.cell_height)
        self._labels(svg, top, grid_top)
        if not self.written:
            self._color_bar(svg, grid_top)

    def _cell(self, svg: Svg, row: int, column: int, x: float, y: float) -> None:
        value, blocked = self.figure.cells[row][column], self.figure.blocked[row][column]
        colour = self._colour(value)
        fill = f"url(#{svg.id('blocked')})" if blocked else _hex(colour)
        svg.add("rect", x=x + GAP / 2, y=y + GAP / 2, width=self.cell_width - GAP, height=self.cell_height - GAP,
                fill=fill)
        if self.written:
            ink = BLOCKED_INK if blocked else contrast_ink(tuple(c / 255 for c in colour))
            svg.text(x + self.cell_width / 2, y + self.cell_height / 2, cell_text(value, self.figure.decimals),
                     size=self.value_size, fill=ink)

    def _colour(self, value: float | None) -> tuple[int, int, int]:
        return viridis(0.0 if value is None else (value - self.low) / (self.high - self.low))

    def _value_size(self) -> float:
        """10 points in a small matrix, smaller in a large one, and never wider than the cell."""
        largest = max(self.rows, self.columns)
        size = 10.0 if largest <= 8 else 8.0 if largest <= 12 else 6.5
        widest = max(text_width(cell_text(v, self.figure.decimals), 1.0) for row in self.figure.cells for v in row)
        return min(size, (self.cell_width - GAP - 4) / widest)

    def _labels(self, svg: Svg, top: float, grid_top: float) -> None:
        grid_centre = self.left + self.columns * self.cell_width / 2
        if self.figure.xlabel:
            svg.text(grid_centre, top, plain_text(self.figure.xlabel), size=AXIS_LABEL_SIZE, align="top")
        every = math.ceil(max(text_width(t, LABEL_SIZE) for t in self.col_labels) / (self.cell_width - 3))
        for column in range(0, self.columns, every):
            svg.text(self.left + (column + 0.5) * self.cell_width, grid_top - 9, self.col_labels[column],
                     size=LABEL_SIZE)
        every = math.ceil(LABEL_SIZE * 1.2 / self.cell_height)
        for row in range(0, self.rows, every):
            svg.text(self.left - 6, grid_top + (row + 0.5) * self.cell_height, self.row_labels[row], size=LABEL_SIZE,
                     anchor="end")
        if self.figure.ylabel:
            middle = grid_top + self.rows * self.cell_height / 2
            x = self.left - 6 - max(text_width(t, LABEL_SIZE) for t in self.row_labels) - 10
            svg.text(x, middle, plain_text(self.figure.ylabel), size=AXIS_LABEL_SIZE,
                     transform=f"rotate(-90 {x:.2f} {middle:.2f})")

    def _define_hatch(self, svg: Svg) -> None:
        hatch = element("path", d="M-1,1L1,-1M0,6L6,0M5,7L7,5", stroke=BLOCKED_HATCH, stroke_width=0.8)
        svg.define(f'<pattern id="{svg.id("blocked")}" patternUnits="userSpaceOnUse" width="6" height="6">'
                   f'{element("rect", width=6, height=6, fill=BLOCKED_FILL)}{hatch}</pattern>\n')

    def _color_bar(self, svg: Svg, grid_top: float) -> None:
        """The scale, bottom (low) to top (high), with nicely rounded ticks on its right."""
        x = self.left + self.columns * self.cell_width + COLOR_BAR[0]
        height = self.rows * self.cell_height
        stops = "".join(element("stop", offset=i / 32, stop_color=_hex(viridis(i / 32))) for i in range(33))
        svg.define(f'<linearGradient id="{svg.id("scale")}" x1="0" y1="1" x2="0" y2="0">\n{stops}</linearGradient>\n')
        svg.add("rect", x=x, y=grid_top, width=COLOR_BAR[1], height=height, fill=f"url(#{svg.id('scale')})")
        ticks = nice_ticks(self.low, self.high, most=8)
        for value, label in zip(ticks, tick_labels(ticks), strict=True):
            y = grid_top + height * (self.high - value) / (self.high - self.low)
            svg.add("line", x1=x + COLOR_BAR[1], y1=y, x2=x + COLOR_BAR[1] + 3, y2=y, stroke="black", stroke_width=0.8)
            svg.text(x + COLOR_BAR[1] + 5, y, label, size=LABEL_SIZE - 1, anchor="start")

    def _bar_label_width(self) -> float:
        return max(text_width(label, LABEL_SIZE - 1) for label in tick_labels(nice_ticks(self.low, self.high, most=8)))


def _scale(figure: Figure) -> tuple[float, float]:
    """The colour scale's ends: the unmasked values' range; a constant matrix gets the middle colour."""
    visible = [value for row, blocked in zip(figure.cells, figure.blocked, strict=True)
               for value, is_blocked in zip(row, blocked, strict=True) if not is_blocked and value is not None]
    if not visible:
        return 0.0, 1.0
    low, high = min(visible), max(visible)
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _hex(rgb: tuple[int, ...]) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)
