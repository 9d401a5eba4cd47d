"""A template's figure with its values computed: plain numbers and texts, ready to draw anywhere.

``build_figure`` turns the declarative ``figure:`` field into a :class:`Figure` by
evaluating its expressions with the same restricted evaluator as every other field
(nothing is executed as Python).  The result holds only tuples of floats and strings,
so it is cheap to keep on an instance, drawn without NumPy, and written to JSON as is.
Drawing lives elsewhere: ``quizzer.figures`` (SVG, for exports) and the TUI's figure widget
(terminal colours); both colour a heatmap with :func:`viridis` and write on it with :func:`contrast_ink`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import msgspec
import numpy as np

from quizzer.templates.formatting import show
from quizzer.templates.schema import FigureSpec, Labels
from quizzer.text.mathtext import terminal_text

MAX_SIDE = 64  # rows, columns or bars of one figure: beyond this no number in a cell is readable
MAX_POINTS = 2000  # points per curve

Evaluate = Callable[[Any, str, dict[str, Any]], Any]  # (expression, field, extra names) -> value
Render = Callable[[str, str], str]  # (text with {{ }} placeholders, field) -> text


class FigureDataError(ValueError):
    """A figure expression gave a value the figure cannot draw; ``field`` names where."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


class Series(msgspec.Struct, frozen=True):
    label: str
    y: tuple[float, ...]


class Mark(msgspec.Struct, frozen=True):
    x: float
    label: str


class Figure(msgspec.Struct, frozen=True):
    """One computed figure.  Texts are Markdown with ``$…$`` math, like prompts.

    heatmap: ``cells`` rows × columns, ``None`` for −∞ (a masked score); ``blocked`` marks
    masked cells.  lines: curves ``series[k].y`` over the shared ``x``, with vertical
    ``marks``.  bars: one bar per category per series.
    """

    kind: str
    where: str
    title: str = ""
    caption: str = ""
    xlabel: str = ""
    ylabel: str = ""
    cells: tuple[tuple[float | None, ...], ...] = ()
    blocked: tuple[tuple[bool, ...], ...] = ()
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    decimals: int = 2
    x: tuple[float, ...] = ()
    categories: tuple[str, ...] = ()
    series: tuple[Series, ...] = ()
    marks: tuple[Mark, ...] = ()
    ylim: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return cast(dict[str, Any], _lists(self))


def build_figure(spec: FigureSpec, evaluate: Evaluate, render: Render) -> Figure:
    """Evaluate every expression of ``spec`` and check the values fit the figure's kind and size."""
    title, caption, xlabel, ylabel = (render(getattr(spec, name), f"figure.{name}")
                                      for name in ("title", "caption", "xlabel", "ylabel"))
    build = {"heatmap": _heatmap, "lines": _lines, "bars": _bars}[spec.kind]
    return Figure(kind=spec.kind, where=spec.where, title=title, caption=caption, xlabel=xlabel, ylabel=ylabel,
                  **build(spec, evaluate, render))


def _heatmap(spec: FigureSpec, evaluate: Evaluate, render: Render) -> dict[str, Any]:
    assert spec.data is not None
    data = _matrix(evaluate(spec.data, "figure.data", {}))
    blocked = np.isneginf(data)
    if spec.mask is not None:
        mask = np.asarray(evaluate(spec.mask, "figure.mask", {}))
        if mask.dtype != bool or mask.shape != data.shape:
            raise FigureDataError("figure.mask", f"must be a true/false matrix of the data's shape {data.shape} "
                                                 f"(True = blocked), got {show(mask)}")
        blocked = blocked | mask
    rows, columns = data.shape
    return {
        "cells": tuple(tuple(None if np.isneginf(v) else float(v) for v in row) for row in data),
        "blocked": tuple(tuple(bool(b) for b in row) for row in blocked),
        "row_labels": _labels(spec.row_labels, "figure.row_labels", evaluate, render, count=rows),
        "col_labels": _labels(spec.col_labels, "figure.col_labels", evaluate, render, count=columns),
        "decimals": spec.decimals,
    }


def _lines(spec: FigureSpec, evaluate: Evaluate, render: Render) -> dict[str, Any]:
    x = _finite_vector(evaluate(spec.x, "figure.x", {}), "figure.x", limit=MAX_POINTS)
    marks = tuple(Mark(_number(evaluate(mark.x, f"figure.marks.{i}.x", {}), f"figure.marks.{i}.x"),
                       render(mark.label, f"figure.marks.{i}.label")) for i, mark in enumerate(spec.marks))
    return {"x": x, "series": _series(spec, evaluate, render, len(x), {"x": np.array(x)}), "marks": marks,
            "ylim": _ylim(spec, evaluate)}


def _bars(spec: FigureSpec, evaluate: Evaluate, render: Render) -> dict[str, Any]:
    categories = _labels(spec.categories, "figure.categories", evaluate, render, count=None)
    return {"categories": categories, "series": _series(spec, evaluate, render, len(categories), {}),
            "ylim": _ylim(spec, evaluate)}


def _ylim(spec: FigureSpec, evaluate: Evaluate) -> tuple[float, float] | None:
    """The y range shown, when the author fixes it (a term that explodes near 0 would flatten the rest)."""
    if spec.ylim is None:
        return None
    low, high = (_number(evaluate(bound, f"figure.ylim.{i}", {}), f"figure.ylim.{i}")
                 for i, bound in enumerate(spec.ylim))
    if low >= high:
        raise FigureDataError("figure.ylim", f"the low end ({low:g}) must be below the high end ({high:g})")
    return low, high


def _series(spec: FigureSpec, evaluate: Evaluate, render: Render, length: int,
            names: dict[str, Any]) -> tuple[Series, ...]:
    """Each series' values, one per x (or category); a single number is drawn as a constant.
    ``names`` adds ``x`` (a lines figure's x values) for the ``y`` expressions."""
    out = []
    for i, series in enumerate(spec.series):
        field = f"figure.series.{i}.y"
        values = np.asarray(evaluate(series.y, field, names), dtype=object)
        if values.ndim == 0:
            values = np.full(length, values.item())
        y = _finite_vector(values, field, limit=length)
        if len(y) != length:
            raise FigureDataError(field, f"has {len(y)} values but there are {length} x positions")
        out.append(Series(render(series.label, f"figure.series.{i}.label"), y))
    return tuple(out)


def cell_text(value: float | None, decimals: int) -> str:
    """A cell's or bar's value as printed: fixed decimals, a true minus sign, −∞ for a masked score."""
    if value is None:
        return "−∞"
    text = f"{value:.{decimals}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", "−")


# matplotlib's viridis at 33 even steps (its 256-entry table every 8th entry); linear interpolation
# between them stays within one unit of the full table.  Its lightness rises steadily, so a heatmap
# survives greyscale printing and colour-vision deficiencies.
VIRIDIS = tuple(tuple(int(code[i:i + 2], 16) for i in (0, 2, 4)) for code in (
    "440154 470d60 48186a 482374 472d7b 453781 424086 3e4989 3b528b 375b8d 33638d 2f6b8e 2c728e 297a8e 26828e "
    "23898e 21918c 1f988b 1fa088 22a785 28ae80 32b67a 3fbc73 4ec36b 5ec962 70cf57 84d44b 98d83e addc30 c2df23 "
    "d8e219 ece51b fde725").split())


def viridis(fraction: float) -> tuple[int, int, int]:
    """The viridis colour (0–255 RGB) at ``fraction`` of the scale, clamped to 0..1."""
    position = min(max(fraction, 0.0), 1.0) * (len(VIRIDIS) - 1)
    index = min(int(position), len(VIRIDIS) - 2)
    weight = position - index
    start, end = VIRIDIS[index], VIRIDIS[index + 1]
    red, green, blue = (round(a + (b - a) * weight) for a, b in zip(start, end, strict=True))
    return red, green, blue


def contrast_ink(rgb: tuple[float, ...]) -> str:
    """Black on light backgrounds, white on dark ones (WCAG relative luminance of RGB in 0..1)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(c) for c in rgb[:3])
    return "black" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.18 else "white"


def plain_text(text: str) -> str:
    """A figure text's Markdown and $…$ math as plain Unicode: a picture shows text, not markup.
    Only bold and code marks are dropped: a single * or _ can be real text."""
    return terminal_text(text).replace("`", "").strip() if text else ""


def _matrix(value: Any) -> np.ndarray:
    """The heatmap's data: a matrix (a vector is one row), finite except −∞ for masked entries."""
    data = _floats(value, "figure.data")
    if data.ndim == 1:
        data = data[None, :]
    if data.ndim != 2 or not (1 <= data.shape[0] <= MAX_SIDE and 1 <= data.shape[1] <= MAX_SIDE):
        raise FigureDataError("figure.data", f"must be a matrix of at most {MAX_SIDE}×{MAX_SIDE} entries, "
                                             f"got shape {data.shape}")
    if np.isnan(data).any() or np.isposinf(data).any():
        raise FigureDataError("figure.data", "has NaN or +inf entries (only -inf, a masked score, can be drawn)")
    return data


def _finite_vector(value: Any, field: str, *, limit: int) -> tuple[float, ...]:
    data = _floats(value, field)
    if data.ndim != 1 or not 1 <= len(data) <= limit:
        raise FigureDataError(field, f"must be a list of 1 to {limit} numbers, got shape {data.shape}")
    if not np.isfinite(data).all():
        raise FigureDataError(field, f"has entries that are not finite: {show(data)}")
    return tuple(data.tolist())  # Python floats, as float(v) of each, without a Python step per point


def _number(value: Any, field: str) -> float:
    data = _floats(value, field)
    if data.ndim != 0 or not np.isfinite(data):
        raise FigureDataError(field, f"must be one finite number, got {show(value)}")
    return float(data)


def _floats(value: Any, field: str) -> np.ndarray:
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise FigureDataError(field, f"must be numbers, got {show(value)}") from None


def _labels(spec: Labels | None, field: str, evaluate: Evaluate, render: Render, *,
            count: int | None) -> tuple[str, ...]:
    """Labels written as a list of texts, or computed by one expression; by default 1, 2, 3, …"""
    if spec is None:
        return tuple(str(i) for i in range(1, (count or 0) + 1))
    if isinstance(spec, str):
        value = evaluate(spec, field, {})
        items = list(value) if isinstance(value, (list, tuple, np.ndarray)) else None
        if items is None:
            raise FigureDataError(field, f"must give a list of labels, got {show(value)}")
        labels = tuple(item if isinstance(item, str) else show(item) for item in items)
    else:
        labels = tuple(render(text, f"{field}.{i}") for i, text in enumerate(spec))
    if count is None and not 1 <= len(labels) <= MAX_SIDE:
        raise FigureDataError(field, f"must give 1 to {MAX_SIDE} labels, got {len(labels)}")
    if count is not None and len(labels) != count:
        raise FigureDataError(field, f"has {len(labels)} labels for {count} entries")
    return labels


def _lists(value: Any) -> Any:
    """Structs become dicts and tuples lists all the way down, so the JSON form is plain (not
    msgspec.to_builtins: the values are often NumPy floats, which it refuses)."""
    if isinstance(value, msgspec.Struct):
        value = msgspec.structs.asdict(value)
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(item) for item in value]
    return value
