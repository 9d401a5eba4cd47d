"""How values appear in prompts and solutions: the text of ``{{ value }}`` (:func:`show`) and the
formatters a template may call (``fmt``, ``sig``, ``terms``, ``num``, ``tex``).

Pure functions of a value; :mod:`quizzer.templates.functions` puts them in the table templates call,
each behind its cost rule and a bound on the digits asked for.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def exact_int(x: Any) -> int:
    """``x`` as an int, when it is exactly a whole number (4.0 is; 4.5 is an error): a template's ``int()``
    and ``num()``.  Grading's ``readers.whole_number`` is the lenient reading of an answer (a few ulps of
    rounding allowed, None instead of an error)."""
    value = float(x)
    if not value.is_integer():
        raise ValueError(f"{value} is not a whole number")
    return int(value)


def show(value: Any, decimals: int = 4) -> str:
    """Default text for ``{{ value }}``: plain numbers, bracketed lists, trimmed floats."""
    if type(value) is float:  # the commonest value by far (every entry of an array): straight to its text
        return _trim(value, decimals)
    if type(value) is int:  # the commonest placeholder: a size or a count
        return str(value)
    if type(value) is str:  # a formatter's text: {{ tex(x) }}
        return value
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _trim(float(value), decimals)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return show(value.item(), decimals)
        value = value.tolist()  # nested lists of Python numbers, written alike and faster than NumPy scalars
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([show(item, decimals) for item in value]) + "]"
    return str(value)


def _trim(x: float, decimals: int) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x != 0 and (abs(x) < 10 ** -decimals or abs(x) >= 1e12):
        return f"{x:.{max(decimals - 1, 1)}e}"
    text = f"{round(x, decimals):.{decimals}f}"
    if "." in text:  # trim only decimals: 820 with 0 decimals stays 820
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt(value: Any, decimals: int = 4) -> str:
    """Fixed decimals, trailing zeros kept: ``fmt(0.73105, 4)`` → ``0.7311``."""
    if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) > 0:
        return "[" + ", ".join(fmt(item, decimals) for item in np.asarray(value)) + "]"
    return f"{float(value):.{int(decimals)}f}"


def sig(value: Any, digits: int = 4) -> str:
    """Significant figures without exponent notation where readable: ``sig(0.0006987712, 4)`` → ``0.0006988``."""
    if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value) > 0:
        return "[" + ", ".join(sig(item, digits) for item in np.asarray(value)) + "]"
    x = float(value)
    if x == 0:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    if -7 <= exponent < 15:
        return f"{x:.{max(int(digits) - 1 - exponent, 0)}f}"
    return f"{x:.{int(digits) - 1}e}"


def terms(values: Any, decimals: int = 4) -> str:
    """A sum written out, each sign once: ``terms([2, -3, -1])`` → ``2 - 3 - 1``, never ``2 + -3 + -1``."""
    items = [float(x) if isinstance(x, (float, np.floating)) else x for x in np.ravel(values).tolist()]
    if not items:
        return "0"
    text = show(items[0], decimals)
    for item in items[1:]:
        text += f" - {show(-item, decimals)}" if item < 0 else f" + {show(item, decimals)}"
    return text


def num(value: Any) -> str:
    """A whole number with thousands separators: ``num(4204032)`` → ``4,204,032``."""
    return f"{exact_int(value):,}"


def tex(value: Any, decimals: int = 4) -> str:
    """LaTeX for use inside ``$…$``: grouped integers, and vectors/matrices as ``bmatrix``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return f"{int(value):,}".replace(",", "{,}")
    array = np.asarray(value) if isinstance(value, (np.ndarray, list)) else None
    if array is not None and array.dtype.kind in "fiu" and array.ndim in (1, 2):
        rows = array.reshape(1, -1) if array.ndim == 1 else array
        places = _shared_decimals(rows, decimals)
        body = r" \\ ".join(" & ".join(_entry(x, places, decimals) for x in row) for row in rows)
        return rf"\begin{{bmatrix}} {body} \end{{bmatrix}}"
    return show(value, decimals)


def _shared_decimals(rows: np.ndarray, decimals: int) -> int:
    """One precision for a whole matrix: the most decimals any entry needs (up to ``decimals``), so
    its columns line up and 1.951 is not printed beside 0.9933."""
    shown = [show(x, decimals) for x in rows.flat]
    return max((len(text.partition(".")[2]) for text in shown if "e" not in text), default=0)


def _entry(x: Any, places: int, decimals: int) -> str:
    """A matrix entry to ``places`` decimals (∞ and numbers too small or large for them as ``show`` writes them)."""
    text = show(x, decimals)
    return text if "e" in text or "∞" in text or not places else f"{float(x):.{places}f}"
