"""Show a value as it was read: ``0.7311``, ``[0.5, 1]``, ``[B, T, 64]``, ``(b) 0.25``, ``4d² + 2df``.

Used for the "I read: …" preview, for the student's and the expected answer in feedback, and by
the exports.  An expression is shown as maths (:mod:`quizzer.text.exprtext`), the same way for
what was typed and what was expected, never in the Python syntax it was normalised to.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from quizzer.grading.typed import ExpressionAnswer
from quizzer.text.exprtext import expression_unicode


def format_number(value: Any, digits: int = 4) -> str:
    """A number as short text: exact when short (0.000699), else to ``digits`` significant figures."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    try:
        number = float(value)
    except OverflowError:
        return "a very large number"
    if not math.isfinite(number):
        return str(number)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    for precision in range(digits, 13):  # the shortest form that reads back exactly
        text = f"{number:.{precision}g}"
        if float(text) == number:
            return _tidy_exponent(text)
    return _tidy_exponent(f"{number:.{digits}g}")


def _tidy_exponent(text: str) -> str:
    """1e+20 → 1e20, 6.99e-05 → 6.99e-5."""
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m[1] == "-" else "") + m[2], text)


def option_letter(index: int) -> str:
    """The letter that names option ``index`` (a, b, …; past z, its 1-based number)."""
    return chr(ord("a") + index) if index < 26 else str(index + 1)


def _describe_option(index: int, options: Sequence[str]) -> str:
    label = f"({option_letter(index)})"
    return f"{label} {options[index]}" if 0 <= index < len(options) else label


def describe(kind: str, value: Any, *, options: Sequence[str] = (), digits: int = 4) -> str:
    """How a parsed value reads back: ``0.7311``, ``12,293,120``, ``[0.5, 1]``, ``[B, T, 64]``, ``(b) 0.25``."""
    if kind == "integer":  # grouped as templates write the expected count, so the two compare at a glance
        return f"{int(value):,}"
    if kind == "number":
        return format_number(value, digits)
    if kind == "vector":
        return "[" + ", ".join(format_number(x, digits) for x in np.ravel(np.asarray(value, dtype=float))) + "]"
    if kind == "matrix":
        return "[" + ", ".join(describe("vector", row, digits=digits)
                               for row in np.atleast_2d(np.asarray(value, dtype=float))) + "]"
    if kind == "shape":
        return "[" + ", ".join(str(dim) for dim in value) + "]"
    if kind == "bool":
        return "true" if value else "false"
    if kind == "choice":
        return _describe_option(int(value), options)
    if kind == "multi":
        # "; " because option texts may contain commas
        return "; ".join(_describe_option(index, options) for index in sorted(value)) or "none"
    if kind == "order":
        return ", ".join(option_letter(int(step)) for step in value)
    if kind == "expression":
        return expression_unicode(value.compiled.tree.body) if isinstance(value, ExpressionAnswer) else str(value)
    if kind == "text":
        return str(value)
    raise ValueError(f"unknown answer kind {kind!r}")
