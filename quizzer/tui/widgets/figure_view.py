"""A question's figure in the terminal: a heatmap as a coloured grid with its values, curves as a plot.

The grid uses the same viridis scale and black-or-white value text as the printed figure
(quizzer.figures), so a student sees one picture in both places.  Curves and bars are
drawn by plotext, imported only when such a figure is first shown.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from quizzer.templates.figure import Figure, cell_text, contrast_ink, plain_text, viridis
from quizzer.templates.instance import Instance

BLOCKED_STYLE = "grey35 on grey85"
PLOT_SIZE = (72, 16)  # columns, rows


class FigureView(Static):
    """Shows an instance's figure if it belongs here: ``where`` is "prompt" or "solution"."""

    DEFAULT_CSS = "FigureView { height: auto; margin: 0 0 1 0; } FigureView.-empty { display: none; }"

    def __init__(self, where: str, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.where = where

    def show(self, instance: Instance, *, answered: bool) -> None:
        """A prompt figure shows from the start; a solution figure only once the question is answered."""
        figure = instance.figure
        visible = figure is not None and figure.where == self.where and (answered or self.where == "prompt")
        self.set_class(not visible, "-empty")
        self.update(figure_renderable(figure) if visible and figure is not None else "")


def figure_renderable(figure: Figure) -> RenderableType:
    body = heatmap_table(figure) if figure.kind == "heatmap" else plot_text(figure)
    parts: list[RenderableType] = [Text(plain_text(figure.title), style="bold")] if figure.title else []
    parts.append(body)
    if figure.caption:
        parts.append(Text(plain_text(figure.caption), style="italic"))
    return Group(*parts)


def heatmap_table(figure: Figure) -> Table:
    """Row labels down the left, column labels on top, each value on its colour; blocked cells grey."""
    visible = [v for row, blocked in zip(figure.cells, figure.blocked, strict=True)
               for v, b in zip(row, blocked, strict=True) if not b and v is not None]
    low, high = (min(visible), max(visible)) if visible else (0.0, 1.0)
    table = Table(box=None, padding=(0, 0), collapse_padding=True, show_edge=False,
                  title=_axis_title(figure), title_justify="left")
    table.add_column(plain_text(figure.ylabel), justify="right", style="bold")
    for label in figure.col_labels:
        table.add_column(plain_text(label), justify="center")
    for label, row, blocked in zip(figure.row_labels, figure.cells, figure.blocked, strict=True):
        table.add_row(f"{plain_text(label)} ", *(
            Text(f" {cell_text(value, figure.decimals)} ",
                 style=BLOCKED_STYLE if is_blocked else _cell_style(value, low, high))
            for value, is_blocked in zip(row, blocked, strict=True)))
    return table


def _axis_title(figure: Figure) -> str | None:
    return f"columns: {plain_text(figure.xlabel)}" if figure.xlabel else None


def _cell_style(value: float | None, low: float, high: float) -> str:
    fraction = 0.5 if high == low or value is None else (value - low) / (high - low)
    red, green, blue = viridis(fraction)
    return f"{contrast_ink((red / 255, green / 255, blue / 255))} on rgb({red},{green},{blue})"


def plot_text(figure: Figure) -> Text:
    """Curves or bars as a terminal plot (plotext), with a legend and vertical marks."""
    import plotext  # type: ignore[import-untyped]  # plotext ships no type hints

    plotext.clear_figure()
    plotext.plotsize(*PLOT_SIZE)
    plotext.theme("clear")
    for series in figure.series:
        label = plain_text(series.label) or None
        if figure.kind == "lines":
            plotext.plot(list(figure.x), list(series.y), label=label, marker="braille")
        else:
            plotext.bar([plain_text(c) for c in figure.categories], list(series.y), label=label)
    # Mark labels go along the bottom edge: the legend takes the top-left corner.
    bottom = figure.ylim[0] if figure.ylim else min(min(series.y) for series in figure.series)
    for mark in figure.marks:
        plotext.vline(mark.x)
        if mark.label:
            plotext.text(plain_text(mark.label), mark.x, bottom)
    if figure.ylim is not None:
        plotext.ylim(*figure.ylim)
    plotext.xlabel(plain_text(figure.xlabel))
    plotext.ylabel(plain_text(figure.ylabel))
    return Text.from_ansi(plotext.build())
