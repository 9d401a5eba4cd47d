"""Draw an instance's figure with matplotlib: SVG for HTML exports, PNG for PDF.

Made for print: the viridis colour map (its lightness rises steadily, so it survives
greyscale printing and colour blindness), values written in every heatmap cell in
black or white by the cell's luminance, masked cells hatched grey, curves told apart
by line style as well as colour.  Output is deterministic: the same instance gives
the same bytes (fixed SVG ids, no dates).  Text stays text in the SVG (selectable,
searchable, small); math in titles and labels is drawn as Unicode, as in the terminal.

matplotlib is imported inside the functions: it takes a noticeable part of a second.
"""

from __future__ import annotations

import io
import textwrap
from typing import TYPE_CHECKING, Any

from quizzer.templates.figure import Figure, cell_text, contrast_ink, plain_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as Canvas

    from quizzer.templates.instance import Instance

# Okabe–Ito: distinguishable with every common colour-vision deficiency.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
# A second cue beside colour, so curves and bars stay apart in greyscale print.
LINE_STYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)), (0, (3, 1, 1, 1, 1, 1)))
HATCHES = ("", "//", "..", "xx", "\\\\", "--", "++", "oo")
BLOCKED_FILL, BLOCKED_HATCH, BLOCKED_INK = "#ececec", "#bdbdbd", "#333333"
MAX_WRITTEN_SIDE = 16  # beyond this many rows or columns, cell values would be too small to read
MAX_WRITTEN_BARS = 16

_STYLE = {
    "svg.hashsalt": "quizzer-figure",  # fixed ids instead of random ones: identical bytes every time
    "svg.fonttype": "none",  # text as <text>, not glyph paths
    "font.family": "DejaVu Sans",  # shipped with matplotlib: the same glyphs on every machine
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "text.parse_math": False,  # texts arrive as Unicode; a '$' is just a dollar sign
    "legend.frameon": False,
}
_METADATA = {"svg": {"Date": None}, "png": {"Software": None}}


def figure_svg(instance: Instance) -> str | None:
    """The instance's figure as a standalone ``<svg>`` document, or None when it has none."""
    if instance.figure is None:
        return None
    svg = _draw(instance.figure, "svg", dpi=72).decode("utf-8")
    return svg[svg.index("<svg"):]  # drop the XML prolog and doctype: the string embeds inline in HTML


def figure_png(instance: Instance, *, dpi: int = 200) -> bytes | None:
    """The instance's figure as PNG bytes at ``dpi`` (200 suits print), or None when it has none."""
    if instance.figure is None:
        return None
    return _draw(instance.figure, "png", dpi=dpi)


def _draw(figure: Figure, fmt: str, *, dpi: int) -> bytes:
    import matplotlib
    from matplotlib.figure import Figure as Canvas

    with matplotlib.rc_context(_STYLE):
        canvas = Canvas(figsize=_size(figure), layout="constrained")
        axes = canvas.add_subplot()
        {"heatmap": _heatmap, "lines": _lines, "bars": _bars}[figure.kind](axes, figure)
        _texts(canvas, axes, figure)
        buffer = io.BytesIO()
        canvas.savefig(buffer, format=fmt, dpi=dpi, metadata=_METADATA[fmt], facecolor="white")
    return buffer.getvalue()


def _size(figure: Figure) -> tuple[float, float]:
    """Inches: heatmap cells about 0.6 in wide so two-decimal values fit; plots at a page's half width."""
    if figure.kind == "heatmap":
        rows, columns = len(figure.cells), len(figure.cells[0])
        return min(max(1.6 + 0.62 * columns, 4.2), 8.0), min(max(1.4 + 0.45 * rows, 2.4), 8.0)
    if figure.kind == "bars":
        return min(max(2.0 + 0.5 * len(figure.categories) * len(figure.series), 4.5), 8.0), 3.6
    return 6.4, 3.8


def _heatmap(axes: Axes, figure: Figure) -> None:
    import matplotlib
    import numpy as np

    values = np.array([[np.nan if v is None else v for v in row] for row in figure.cells])
    blocked = np.array(figure.blocked, dtype=bool)
    norm = _norm(values[~blocked & np.isfinite(values)])
    cmap = matplotlib.colormaps["viridis"]
    axes.imshow(np.ma.masked_array(values, mask=blocked), cmap=cmap, norm=norm, aspect="auto")
    _block(axes, blocked)
    _cell_grid(axes, figure)
    if max(blocked.shape) <= MAX_WRITTEN_SIDE:
        for (row, column), value in np.ndenumerate(values):
            value_or_none = None if np.isnan(value) else float(value)
            ink = BLOCKED_INK if blocked[row, column] else contrast_ink(cmap(norm(value)))
            axes.text(column, row, cell_text(value_or_none, figure.decimals), ha="center", va="center",
                      color=ink, fontsize=_cell_font(values.shape))
    else:
        axes.figure.colorbar(axes.images[0], ax=axes, shrink=0.8)


def _norm(visible: Any) -> Any:
    """Colour scale over the unmasked values; a constant matrix gets the middle colour."""
    from matplotlib.colors import Normalize

    if visible.size == 0:
        return Normalize(0.0, 1.0)
    low, high = float(visible.min()), float(visible.max())
    return Normalize(low - 0.5, high + 0.5) if low == high else Normalize(low, high)


def _block(axes: Axes, blocked: Any) -> None:
    from matplotlib.patches import Rectangle

    for row, column in zip(*blocked.nonzero(), strict=True):
        axes.add_patch(Rectangle((column - 0.5, row - 0.5), 1, 1, facecolor=BLOCKED_FILL, edgecolor=BLOCKED_HATCH,
                                 hatch="///", linewidth=0))


def _cell_grid(axes: Axes, figure: Figure) -> None:
    """Row labels left, column labels on top (as a matrix is read), white lines between cells."""
    rows, columns = len(figure.cells), len(figure.cells[0])
    axes.set_xticks(range(columns), [plain_text(label) for label in figure.col_labels])
    axes.set_yticks(range(rows), [plain_text(label) for label in figure.row_labels])
    axes.xaxis.tick_top()
    axes.xaxis.set_label_position("top")
    axes.set_xticks([c - 0.5 for c in range(1, columns)], minor=True)
    axes.set_yticks([r - 0.5 for r in range(1, rows)], minor=True)
    axes.grid(which="minor", color="white", linewidth=2)
    axes.tick_params(which="both", length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)


def _cell_font(shape: tuple[int, ...]) -> float:
    return 10.0 if max(shape) <= 8 else 8.0 if max(shape) <= 12 else 6.5


def _lines(axes: Axes, figure: Figure) -> None:
    for i, series in enumerate(figure.series):
        # The first series is the main one: drawn thickest and on top of the others.
        axes.plot(figure.x, series.y, color=PALETTE[i], linestyle=LINE_STYLES[i], linewidth=2.6 if i == 0 else 1.6,
                  zorder=3 if i == 0 else 2, label=plain_text(series.label) or None)
    for mark in figure.marks:
        axes.axvline(mark.x, color="#444444", linestyle=(0, (2, 2)), linewidth=1)
        if mark.label:
            axes.annotate(plain_text(mark.label), xy=(mark.x, 1), xycoords=("data", "axes fraction"),
                          xytext=(3, -3), textcoords="offset points", ha="left", va="top", fontsize=9,
                          color="#222222", bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    axes.grid(color="#dddddd", linewidth=0.8)
    axes.margins(x=0)
    _legend(axes, figure)


def _bars(axes: Axes, figure: Figure) -> None:
    count = len(figure.series)
    width = 0.8 / count
    for i, series in enumerate(figure.series):
        offsets = [position + (i - (count - 1) / 2) * width for position in range(len(figure.categories))]
        bars = axes.bar(offsets, series.y, width, color=PALETTE[i], hatch=HATCHES[i], edgecolor="white",
                        label=plain_text(series.label) or None)
        if len(figure.categories) * count <= MAX_WRITTEN_BARS:
            axes.bar_label(bars, [cell_text(v, figure.decimals) for v in series.y], padding=2, fontsize=9)
    axes.set_xticks(range(len(figure.categories)), [plain_text(label) for label in figure.categories])
    axes.axhline(0, color="#444444", linewidth=0.8)
    axes.grid(axis="y", color="#dddddd", linewidth=0.8)
    axes.set_axisbelow(True)
    _legend(axes, figure)


def _legend(axes: Axes, figure: Figure) -> None:
    if figure.ylim is not None:
        axes.set_ylim(*figure.ylim)
    if any(series.label for series in figure.series):
        axes.legend(loc="best", fontsize=9)


def _texts(canvas: Canvas, axes: Axes, figure: Figure) -> None:
    """Title, axis labels and a caption under the plot, wrapped to the figure's width."""
    axes.set_title(plain_text(figure.title))
    axes.set_xlabel(plain_text(figure.xlabel))
    axes.set_ylabel(plain_text(figure.ylabel))
    if figure.caption:
        width = int(canvas.get_figwidth() * 14)  # characters of 9-point italic per line
        canvas.supxlabel(textwrap.fill(plain_text(figure.caption), width), fontsize=9, style="italic",
                         color="#333333")
