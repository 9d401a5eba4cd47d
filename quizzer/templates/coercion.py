"""An answer's form: a value a template computed, checked to be what its kind needs and normalized.

``coerce`` is what the answer, each misconception's answer, a discovered slip's answer and a part's
follow-through answer all pass through: a number is a finite float, an integer a whole number, a
vector or matrix a finite float array of one or two dimensions, a shape a tuple of positive whole
numbers or names, a bool true or false.  Its own module because the instance, discovery and parts
all need it and none of them may import another one above it (the layering in ``pyproject.toml``).

Imports: NumPy, ``quizzer.common``, and of the templates ``draw`` (a field's location), ``formatting`` and
``schema``.
"""

from __future__ import annotations

import math
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

from quizzer.common.errors import TemplateError
from quizzer.templates.draw import template_where
from quizzer.templates.formatting import show
from quizzer.templates.schema import Template


def coerce(template: Template, kind: str, value: Any, where: str) -> Any:
    """Check that a computed value has the form its kind needs, and normalize its type."""
    try:
        return _COERCE[kind](value)
    except (TypeError, ValueError) as exc:
        raise TemplateError(f"field {where!r}: {exc}", where=template_where(template)) from None


_Value = TypeVar("_Value", bound=ArrayLike)


def _finite(value: _Value) -> _Value:
    # A Python float (every number answer) is checked without NumPy, whose scalar path costs ~20 times more.
    if not (math.isfinite(value) if isinstance(value, float) else np.all(np.isfinite(value))):
        raise ValueError(f"is not finite ({show(value)})")
    return value


def _as_number(value: Any) -> float:
    if type(value) in (int, float):  # most answers: the checks below cost more than the conversion
        return _finite(float(value))
    if isinstance(value, (bool, np.bool_)) or np.ndim(value) != 0:
        raise ValueError(f"a 'number' answer must be one number, got {show(value)}")
    return float(_finite(float(value)))


def _as_integer(value: Any) -> int:
    number = _as_number(value)
    if not number.is_integer():
        raise ValueError(f"an 'integer' answer must be a whole number, got {show(value)}")
    return int(value) if isinstance(value, (int, np.integer)) else int(number)


def _as_array(ndim: int) -> Any:
    def check(value: Any) -> np.ndarray:
        array = np.asarray(value, dtype=float)
        if array.ndim != ndim:
            raise ValueError(f"expected {'a vector' if ndim == 1 else 'a matrix'}, got {array.ndim} dimension(s)")
        return _finite(array)
    return check


def _as_shape(value: Any) -> tuple[int | str, ...]:
    dims = tuple(value.tolist() if isinstance(value, np.ndarray) else value)
    out: list[int | str] = []
    for dim in dims:
        if isinstance(dim, str):
            out.append(dim.replace(" ", ""))
        elif float(dim).is_integer() and dim > 0:
            out.append(int(dim))
        else:
            raise ValueError(f"shape entries must be positive whole numbers or names, got {dim!r}")
    return tuple(out)


def _as_bool(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"a 'bool' answer must be true or false, got {show(value)}")
    return bool(value)


_COERCE = {"number": _as_number, "integer": _as_integer, "vector": _as_array(1), "matrix": _as_array(2),
           "shape": _as_shape, "bool": _as_bool}
