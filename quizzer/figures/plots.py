"""Curves over a shared x (``lines``) and grouped bars (``bars``) on one pair of axes.

Series are told apart by colour (Okabe–Ito, safe for every common colour-vision deficiency)
and a second cue that survives greyscale print: a dash pattern for curves, a white hatch for
bars.  The first curve is the main one, drawn thickest and on top.  The legend goes to the
corner where it hides the least of the data and of the marks' labels.
"""

from __future__ import annotations

import math
from typing import TypedDict

from quizzer.figures.axes import Scale, nice_ticks, tick_labels
from quizzer.figures.svg import Svg, element, points_path, text_width
from quizzer.templates.figure import Figure, cell_text, plain_text

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
# Dash patterns in multiples of the line's width: solid, dashed, dotted, dash-dot, and four more.
DASHES = ((), (3.7, 1.6), (1.0, 1.65), (6.4, 1.6, 1.0, 1.6), (5, 1, 1, 1), (1, 1), (8, 2), (3, 1, 1, 1, 1, 1))
# White hatches on an 8-point tile, one per bar series: none, /, \, ×, —, +, |, dots.
HATCHES = ("", "M-2,2L2,-2M0,8L8,0M6,10L10,6", "M-2,6L2,10M0,0L8,8M6,-2L10,2",
           "M0,8L8,0M0,0L8,8", "M0,4H8", "M0,4H8M4,0V8", "M4,0V8", "M2,2h0.01M6,6h0.01")
GRID_INK, MARK_INK, MARK_LABEL_INK = "#dddddd", "#444444", "#222222"
TICK_SIZE, LEGEND_SIZE, MARK_SIZE = 10.0, 9.0, 9.0
MAX_WRITTEN_BARS = 16  # beyond this many bars their values would collide
LEGEND_ROW, LEGEND_SWATCH = 13.0, 24.0
Box = tuple[float, float, float, float]  # left, top, right, bottom in points


class PlotBody:
    def __init__(self, figure: Figure):
        self.figure = figure
        self.bars = figure.kind == "bars"
        count = len(figure.categories) * len(figure.series)
        self.width = min(max(2.0 + 0.5 * count, 4.5), 8.0) * 72 if self.bars else 461.0
        self.height = 250.0
        self.x_range = (-0.5, len(figure.categories) - 0.5) if self.bars else _x_range(figure)
        self.y_range = _y_range(figure, bars=self.bars, labelled=self._labelled())
        self.y_ticks = nice_ticks(*self.y_range, most=8)
        self.y_labels = tick_labels(self.y_ticks)
        self.left = 8.0 + (16.0 if figure.ylabel else 0.0) + max(text_width(t, TICK_SIZE) for t in self.y_labels) + 8
        self.obstacles: list[tuple[Box, float]] = []  # what a legend should not cover, and how much that matters

    def draw(self, svg: Svg, top: float) -> None:
        bottom = top + self.height - (22.0 + (16.0 if self.figure.xlabel else 0.0))
        x = Scale(*self.x_range, self.left, self.width - 14.0)
        y = Scale(*self.y_range, bottom, top + 4.0)
        clip = element("rect", x=x.start, y=y.end, width=x.end - x.start, height=y.start - y.end)
        svg.define(f'<clipPath id="{svg.id("plot")}">{clip}</clipPath>\n')
        self._grid(svg, x, y)
        if self.bars:
            self._draw_bars(svg, x, y)
        else:
            self._draw_lines(svg, x, y)
            self._marks(svg, x, y)
        self._axes(svg, x, y)
        self._legend(svg, x, y)

    def _labelled(self) -> bool:
        return self.bars and len(self.figure.categories) * len(self.figure.series) <= MAX_WRITTEN_BARS

    def _grid(self, svg: Svg, x: Scale, y: Scale) -> None:
        lines = [(y(t), "h") for t in self.y_ticks] + ([] if self.bars else [(x(t), "v") for t in self._x_ticks()])
        path = "".join(f"M{x.start:.2f},{at:.2f}H{x.end:.2f}" if way == "h" else f"M{at:.2f},{y.start:.2f}V{y.end:.2f}"
                       for at, way in lines)
        svg.add("path", d=path, stroke=GRID_INK, stroke_width=0.8, fill="none")

    def _x_ticks(self) -> list[float]:
        return nice_ticks(*self.x_range, most=max(3, min(10, int((self.width - self.left) / 55))))

    def _draw_lines(self, svg: Svg, x: Scale, y: Scale) -> None:
        # Drawn last to first, so the main (first) curve lies on top.
        for i, series in reversed(list(enumerate(self.figure.series))):
            points = [(x(a), y(b)) for a, b in zip(self.figure.x, series.y, strict=True)]
            width = 2.6 if i == 0 else 1.6
            svg.add("path", d=points_path(points), **_stroke(i, width), clip_path=f"url(#{svg.id('plot')})")
            self.obstacles += [(box, 1.0) for box in _trace_boxes(points, y)]

    def _draw_bars(self, svg: Svg, x: Scale, y: Scale) -> None:
        count = len(self.figure.series)
        width = 0.8 / count
        for i, series in enumerate(self.figure.series):
            fill = _bar_fill(svg, i)
            for position, value in enumerate(series.y):
                centre = position + (i - (count - 1) / 2) * width
                left, right = x(centre - width / 2), x(centre + width / 2)
                high, low = sorted((y(value), y(0.0)))
                svg.add("rect", x=left, y=high, width=right - left, height=low - high, fill=fill, stroke="white",
                        stroke_width=0.8, clip_path=f"url(#{svg.id('plot')})")
                self.obstacles.append(((left, high, right, low), 1.0))
                if self._labelled():
                    self._bar_value(svg, (left + right) / 2, y(value), value, below=value < 0)

    def _bar_value(self, svg: Svg, centre: float, end: float, value: float, *, below: bool) -> None:
        text = cell_text(value, self.figure.decimals)
        svg.text(centre, end + (3 if below else -3), text, size=LEGEND_SIZE, align="top" if below else "baseline")
        half = text_width(text, LEGEND_SIZE) / 2
        box = (centre - half, end, centre + half, end + 12) if below else (centre - half, end - 12, centre + half, end)
        self.obstacles.append((box, 1.0))

    def _marks(self, svg: Svg, x: Scale, y: Scale) -> None:
        """Dashed vertical lines, each labelled at the top on a white patch (beside the line, inside the plot)."""
        for mark in self.figure.marks:
            at = x(mark.x)
            svg.add("line", x1=at, y1=y.start, x2=at, y2=y.end, stroke=MARK_INK, stroke_width=1,
                    stroke_dasharray="2 2", clip_path=f"url(#{svg.id('plot')})")
            label = plain_text(mark.label)
            if not label:
                continue
            width = text_width(label, MARK_SIZE)
            left = at + 3 if at + 3 + width <= x.end else at - 3 - width
            box = (left - 1, y.end + 2, left + width + 1, y.end + 2 + MARK_SIZE + 3)
            svg.add("rect", x=box[0], y=box[1], width=box[2] - box[0], height=box[3] - box[1], fill="white")
            svg.text(left, y.end + 3.5, label, size=MARK_SIZE, anchor="start", align="top", fill=MARK_LABEL_INK)
            self.obstacles.append((box, 1000.0))  # hiding a mark's label is far worse than hiding some curve

    def _axes(self, svg: Svg, x: Scale, y: Scale) -> None:
        """Left and bottom spines with outward ticks and their labels, and the axis titles."""
        svg.add("path", d=f"M{x.start:.2f},{y.end:.2f}V{y.start:.2f}H{x.end:.2f}", stroke="black", stroke_width=0.8,
                fill="none")
        if self.y_range[0] < 0 < self.y_range[1] and self.bars:
            svg.add("line", x1=x.start, y1=y(0), x2=x.end, y2=y(0), stroke=MARK_INK, stroke_width=0.8)
        ticks = "".join(f"M{x.start - 3.5:.2f},{y(t):.2f}h3.5" for t in self.y_ticks)
        for value, label in zip(self.y_ticks, self.y_labels, strict=True):
            svg.text(x.start - 6, y(value), label, size=TICK_SIZE, anchor="end")
        positions, labels = self._x_labels()
        ticks += "".join(f"M{x(t):.2f},{y.start:.2f}v3.5" for t in positions)
        for value, label in zip(positions, labels, strict=True):
            svg.text(x(value), y.start + 6, label, size=TICK_SIZE, align="top")
        svg.add("path", d=ticks, stroke="black", stroke_width=0.8)
        if self.figure.xlabel:
            svg.text((x.start + x.end) / 2, y.start + 22, plain_text(self.figure.xlabel), size=TICK_SIZE, align="top")
        if self.figure.ylabel:
            middle = (y.start + y.end) / 2
            svg.text(15, middle, plain_text(self.figure.ylabel), size=TICK_SIZE,
                     transform=f"rotate(-90 15 {middle:.2f})")

    def _x_labels(self) -> tuple[list[float], list[str]]:
        if not self.bars:
            ticks = self._x_ticks()
            return ticks, tick_labels(ticks)
        labels = [plain_text(c) for c in self.figure.categories]
        slot = (self.width - 14.0 - self.left) / len(labels)
        every = max(1, math.ceil((max(text_width(t, TICK_SIZE) for t in labels) + 4) / slot))
        return [float(i) for i in range(0, len(labels), every)], labels[::every]

    def _legend(self, svg: Svg, x: Scale, y: Scale) -> None:
        entries = [(i, plain_text(series.label)) for i, series in enumerate(self.figure.series) if series.label]
        if not entries:
            return
        width = LEGEND_SWATCH + 14 + max(text_width(label, LEGEND_SIZE) for _, label in entries)
        height = len(entries) * LEGEND_ROW + 6
        corners = [(x.end - width - 4, y.end + 4), (x.start + 4, y.end + 4), (x.start + 4, y.start - height - 4),
                   (x.end - width - 4, y.start - height - 4), ((x.start + x.end - width) / 2, y.end + 4)]
        left, top = min(corners, key=lambda c: self._hidden((c[0], c[1], c[0] + width, c[1] + height)))
        svg.add("rect", x=left, y=top, width=width, height=height, fill="white", fill_opacity=0.85, rx=2)
        for row, (i, label) in enumerate(entries):
            middle = top + 3 + (row + 0.5) * LEGEND_ROW
            if self.bars:
                svg.add("rect", x=left + 4, y=middle - 4.5, width=LEGEND_SWATCH - 6, height=9, fill=_bar_fill(svg, i))
            else:
                svg.add("path", d=f"M{left + 4:.2f},{middle:.2f}h{LEGEND_SWATCH - 4}",
                        **_stroke(i, 2.6 if i == 0 else 1.6))
            svg.text(left + LEGEND_SWATCH + 6, middle, label, size=LEGEND_SIZE, anchor="start")

    def _hidden(self, box: Box) -> float:
        """How much of the drawing a legend at ``box`` would cover (the area it shares with the obstacles)."""
        return sum(weight * max(0.0, min(box[2], o[2]) - max(box[0], o[0]))
                   * max(0.0, min(box[3], o[3]) - max(box[1], o[1])) for o, weight in self.obstacles)


class _Stroke(TypedDict):
    """The stroke attributes of series ``i``'s curve (its legend swatch too)."""

    stroke: str
    stroke_width: float
    stroke_dasharray: str | None
    fill: str
    stroke_linejoin: str


def _stroke(i: int, width: float) -> _Stroke:
    dashes = " ".join(f"{d * width:.2f}".rstrip("0").rstrip(".") for d in DASHES[i]) or None
    return {"stroke": PALETTE[i], "stroke_width": width, "stroke_dasharray": dashes, "fill": "none",
            "stroke_linejoin": "round"}


def _bar_fill(svg: Svg, i: int) -> str:
    """Series ``i``'s colour, with its white hatch laid over as a pattern (defined on first use)."""
    if not HATCHES[i]:
        return PALETTE[i]
    name = svg.id(f"hatch{i}")
    if name not in "".join(svg.definitions):
        tile = element("rect", width=8, height=8, fill=PALETTE[i])
        lines = element("path", d=HATCHES[i], stroke="white", stroke_width=1.2, stroke_linecap="round")
        svg.define(f'<pattern id="{name}" patternUnits="userSpaceOnUse" width="8" height="8">{tile}{lines}</pattern>\n')
    return f"url(#{name})"


def _trace_boxes(points: list[tuple[float, float]], y: Scale) -> list[Box]:
    """A curve as the bounding boxes of short runs of its points, clipped to the plot, for the legend to avoid."""
    boxes: list[Box] = []
    for start in range(0, max(1, len(points) - 1), 6):
        run = points[start:start + 7]
        xs, ys = [p[0] for p in run], [min(max(p[1], y.end), y.start) for p in run]
        boxes.append((min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1))
    return boxes


def _x_range(figure: Figure) -> tuple[float, float]:
    """The x values' span (no margin: curves run edge to edge), widened to show every mark."""
    values = [*figure.x, *(mark.x for mark in figure.marks)]
    low, high = min(values), max(values)
    return (low - 0.5, high + 0.5) if low == high else (low, high)


def _y_range(figure: Figure, *, bars: bool, labelled: bool) -> tuple[float, float]:
    """The author's ``ylim``, else the data's span with a 5 % margin; bars always start from 0 and
    get room above for their written values."""
    if figure.ylim is not None:
        return figure.ylim
    values = [v for series in figure.series for v in series.y] + ([0.0] if bars else [])
    low, high = min(values), max(values)
    if low == high:
        spread = abs(low) * 0.1 or 0.5
        return low - spread, high + spread
    margin = (high - low) * (0.12 if labelled else 0.05)
    return (low if bars and low == 0 else low - margin), (high if bars and high == 0 else high + margin)
