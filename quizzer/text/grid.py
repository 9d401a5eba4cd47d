"""Multi-line maths drawn in terminal columns: environments, matrices, tall brackets.

Owns column widths (``text_width``, ``pad``), placing blocks side by side
(``hcat``) and ``layout_environment``: a matrix, ``cases`` or ``aligned`` body as
an aligned grid between tall delimiters in display maths, or on one line inline.
Works on rendered strings only; it knows nothing of LaTeX tokens.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

# Environment name -> (left, right) delimiter; everything else is aligned-like.
_MATRICES = {
    "matrix": ("", ""), "smallmatrix": ("", ""), "array": ("", ""),
    "pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "Bmatrix": ("{", "}"),
    "vmatrix": ("|", "|"), "Vmatrix": ("‖", "‖"),
}  # fmt: skip
_TALL = {
    "[": "⎡⎢⎣", "]": "⎤⎥⎦", "(": "⎛⎜⎝", ")": "⎞⎟⎠",
    "{": "⎧⎪⎩", "}": "⎫⎪⎭", "|": "│││", "‖": "‖‖‖",
}  # fmt: skip

_NUMERIC_CELL = re.compile(r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)")


def text_width(s: str) -> int:
    """Terminal columns used by s (combining marks take none)."""
    return sum(1 for c in s if not unicodedata.combining(c))


def pad(s: str, width: int, align: str) -> str:
    """s padded to width; align is '<' or '>'."""
    fill = " " * (width - text_width(s))
    return s + fill if align == "<" else fill + s


def _align_column(cells: list[str], align: str) -> list[str]:
    """Cells padded to a common width; numbers line up on the decimal point."""
    if align == "auto":
        if all(not c or _NUMERIC_CELL.fullmatch(c) for c in cells):
            heads = [c.partition(".")[0] for c in cells]
            tails = [c[len(h) :] for c, h in zip(cells, heads, strict=True)]
            lw, rw = max(map(len, heads)), max(map(len, tails))
            return [
                h.rjust(lw) + t.ljust(rw) for h, t in zip(heads, tails, strict=True)
            ]
        align = ">"
    width = max(map(text_width, cells))
    return [pad(c, width, align) for c in cells]


def _bracket(ch: str, height: int) -> list[str]:
    """A delimiter drawn over `height` rows."""
    tall = _TALL.get(ch)
    if tall is None or height == 1:
        return [ch] * height
    column = [tall[0]] + [tall[1]] * (height - 2) + [tall[2]]
    if ch in "{}" and height >= 3:
        column[(height - 1) // 2] = "⎨" if ch == "{" else "⎬"
    return column


def _grid(
    rows: list[list[str]], left: str, right: str, aligns: Callable[[int], str], gap: str
) -> str:
    """Rows drawn as an aligned grid between tall delimiters."""
    ncols = max(map(len, rows))
    full = [row + [""] * (ncols - len(row)) for row in rows]
    columns = [_align_column([r[j] for r in full], aligns(j)) for j in range(ncols)]
    lines = [gap.join(col[i] for col in columns) for i in range(len(full))]
    lefts, rights = _bracket(left, len(lines)), _bracket(right, len(lines))
    return "\n".join(
        (f"{lb} " if lb else "") + line + (f" {rb}" if rb else "")
        for lb, line, rb in zip(lefts, lines, rights, strict=True)
    ).rstrip(" ")


def hcat(parts: list[str]) -> str:
    """Multi-line blocks side by side, middle rows aligned."""
    blocks = [p.split("\n") for p in parts if p]
    height = max(map(len, blocks))
    middle = (height - 1) // 2
    rows = [""] * height
    for block in blocks:
        width = max(map(text_width, block))
        top = middle - (len(block) - 1) // 2
        for r in range(height):
            k = r - top
            rows[r] += pad(block[k] if 0 <= k < len(block) else "", width, "<")
    return "\n".join(row.rstrip() for row in rows)


def _matrix_gap(rows: list[list[str]]) -> str:
    """Column gap: compact for numbers and single symbols, wider for expressions."""
    compact = all(text_width(c) <= 1 or _NUMERIC_CELL.fullmatch(c) for r in rows for c in r)
    return " " if compact else "  "


def layout_environment(
    env: str, rows: list[list[str]], grid: bool, delims: tuple[str, str] | None = None
) -> str:
    """An environment's rows, as a grid in display math or on one line inline."""
    if not rows:
        return ""
    if env == "cases":
        if grid:
            return _grid(rows, "{", "", lambda _: "<", "  ")
        return "{" + "; ".join(", ".join(c for c in row if c) for row in rows) + "}"
    if env in _MATRICES or delims is not None:
        left, right = delims or _MATRICES[env]
        if grid and len(rows) > 1:
            return _grid(rows, left, right, lambda _: "auto", _matrix_gap(rows))
        inner = ", ".join("[" + ", ".join(row) + "]" for row in rows)
        flat = inner if len(rows) == 1 else f"[{inner}]"
        return f"{left}{flat}{right}" if left in ("|", "‖") else flat
    # aligned, align*, gathered, split and unknown environments: & is an
    # alignment point, columns alternate right/left as in LaTeX.
    if grid and len(rows) > 1:
        return _grid(rows, "", "", lambda j: ">" if j % 2 == 0 else "<", "")
    return "; ".join("".join(row) for row in rows)

