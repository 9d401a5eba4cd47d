"""The functions a template expression may call: the engine, a maths whitelist, and formatters.

Everything here is reachable from a YAML file, so every entry is pure, returns
plain data, and refuses to allocate more than ``quizzer.grading.expr.MAX_ARRAY_ELEMENTS``
elements *before* allocating.  Engine calls go through ``engine``'s dispatching
functions, so ``with engine.use_backend("torch")`` recomputes a whole template
with the independent PyTorch backend.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from quizzer.grading.expr import check_allocation, check_broadcast

Function = Callable[..., Any]


def _first(n: Any, *_: Any, **__: Any) -> tuple[Any, ...]:
    return (n,)


# Engine functions whose integer arguments decide how much they allocate.
_ALLOCATING: dict[str, Callable[..., tuple[Any, ...]]] = {
    "causal_mask": lambda T, *_, **__: (T, T),
    "padding_mask": lambda lengths, T, *_, **__: (len(np.atleast_1d(lengths)), T),
    "sinusoidal_encoding": lambda n, d, *_, **__: (n, d),
    "offset_rotation": lambda k, d, *_, **__: (d, d),
    "encoding_dot": lambda k, d, *_, **__: (d,),
    "encoding_sq_distance": lambda k, d, *_, **__: (d,),
    "label_smoothing_targets": _first,
}
# Takes a random generator; templates use dot_product_variances below instead.
_NOT_FOR_TEMPLATES = {"dot_product_variance"}
# The notes' variance experiment draws 2 × 20,000 × (4+16+64+256) = 13.6 M numbers: allowed, not much more.
MAX_VARIANCE_DRAWS = 16_000_000


def dot_product_variances(seed: int, widths: Any, n_samples: int = 20000) -> np.ndarray:
    """[[Var(q·k), Var(q·k/√d_k)] per width], drawing from one generator in order, like the notes'
    code block 5.2 (seed 42, widths [4, 16, 64, 256] reproduces its printed table)."""
    dims = [int(w) for w in np.atleast_1d(widths)]
    if 2 * int(n_samples) * sum(dims) > MAX_VARIANCE_DRAWS or min(dims, default=1) < 1:
        raise ValueError(f"at most {MAX_VARIANCE_DRAWS:,} draws (2 × n_samples × sum of widths)")
    rng = np.random.default_rng(int(seed))
    return np.array([engine.dot_product_variance(rng, d, int(n_samples)) for d in dims])


def _extent(array: np.ndarray) -> int:
    """An array's longest side once its leading axes are flattened into rows: rows or columns."""
    columns = array.shape[-1] if array.ndim else 1
    return max(array.size // max(columns, 1), columns)


def _pairwise_guard(function: Function) -> Function:
    """Refuse an engine call whose intermediates could exceed the element limit before it runs.

    An engine layer is at most bilinear in its arrays: attention scores are rows(Q) × rows(K), a
    projection rows(X) × columns(W).  So no intermediate is larger than the product of the two
    longest extents among its arguments; a (30000, 1) query and key would need 9·10⁸ scores."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        extents = sorted((_extent(a) for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)), reverse=True)
        if len(extents) > 1:
            check_allocation(extents[0], extents[1])
        return function(*args, **kwargs)
    return call


def guarded_as(name: str, function: Function) -> Function:
    """`function` behind the size check of engine function `name`: the engine's own entries, and
    an engine slip (engine.mutations) that quizzer.templates.discovery puts in their place."""
    shape_of = _ALLOCATING.get(name)
    if shape_of is None:
        return _pairwise_guard(function)

    def call(*args: Any, **kwargs: Any) -> Any:
        check_allocation(*shape_of(*args, **kwargs))
        return function(*args, **kwargs)

    call.__name__ = name
    return call


def _engine_functions() -> dict[str, Function]:
    return {name: guarded_as(name, getattr(engine, name)) for name in engine.PUBLIC_API
            if name not in _NOT_FOR_TEMPLATES}


def _array_maker(make: Callable[..., np.ndarray]) -> Function:
    def call(*shape: Any) -> np.ndarray:
        dims = tuple(int(d) for d in (shape[0] if len(shape) == 1 and np.ndim(shape[0]) else shape))
        check_allocation(*dims)
        return make(dims)

    return call


def _eye(n: int) -> np.ndarray:
    check_allocation(n, n)
    return np.eye(int(n))


def _arange(*bounds: Any) -> np.ndarray:
    span = range(*(int(b) for b in bounds))
    check_allocation(len(span))
    return np.arange(span.start, span.stop, span.step, dtype=float)


def _relu(x: Any) -> Any:
    return np.maximum(0.0, x)


def _round(x: Any, decimals: int = 0) -> Any:
    """Round half to even like NumPy; a scalar rounded to 0 decimals is a whole number."""
    if decimals == 0 and np.ndim(x) == 0:
        return int(np.round(x))
    return np.round(x, int(decimals))


def _extreme(pick: Callable[..., Any], reduce: Callable[..., Any]) -> Function:
    """min/max of several values, or of every entry of one array (any shape), like NumPy's."""
    def call(*values: Any) -> Any:
        if len(values) == 1 and isinstance(values[0], np.ndarray):
            return reduce(values[0])
        return pick(*values)
    return call


def _elementwise(function: Function) -> Function:
    """A NumPy function that broadcasts its arguments, size-checked before it runs."""
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        check_broadcast(*args)
        return function(*args, **kwargs)
    return call


def _outer(a: Any, b: Any) -> np.ndarray:
    check_allocation(np.size(a), np.size(b))
    return np.outer(a, b)


def _dot(a: Any, b: Any) -> Any:
    """np.dot's result shape is a.shape[:-1] + b.shape[:-2] + b.shape[-1:]."""
    left, right = np.shape(a), np.shape(b)
    check_allocation(*left[:-1], *right[:-2], *right[-1:] if len(right) > 1 else ())
    return np.dot(a, b)


def _joined(join: Callable[[tuple[Any, ...]], np.ndarray]) -> Function:
    """concat/stack: the result holds every input, so their sizes together are bounded."""
    def call(*arrays: Any) -> np.ndarray:
        check_allocation(sum(int(np.size(a)) for a in arrays))
        return join(arrays)
    return call


def _as_int(x: Any) -> int:
    value = float(x)
    if not value.is_integer():
        raise ValueError(f"{value} is not a whole number")
    return int(value)


MATH: dict[str, Function] = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "abs": np.abs,
    "floor": math.floor, "ceil": math.ceil, "round": _round, "int": _as_int, "float": float,
    "min": _extreme(min, np.min), "max": _extreme(max, np.max), "sum": np.sum, "prod": np.prod, "mean": np.mean,
    "var": np.var, "std": np.std,
    "argmax": lambda x: int(np.argmax(x)), "argmin": lambda x: int(np.argmin(x)),
    "all": lambda x: bool(np.all(x)), "any": lambda x: bool(np.any(x)), "len": len,
    "array": lambda x: np.array(x, dtype=float), "zeros": _array_maker(np.zeros), "ones": _array_maker(np.ones),
    "eye": _eye, "arange": _arange, "transpose": np.transpose, "dot": _dot, "outer": _outer,
    "concat": _joined(lambda xs: np.concatenate(xs, axis=-1)), "stack": _joined(np.stack),
    "reshape": lambda x, *shape: np.reshape(x, tuple(int(d) for d in shape)), "shape": lambda x: tuple(np.shape(x)),
    "where": _elementwise(np.where), "clip": _elementwise(np.clip), "maximum": _elementwise(np.maximum),
    "minimum": _elementwise(np.minimum), "relu": _relu,
    "isclose": lambda a, b: bool(np.allclose(a, b)), "sorted": sorted, "unique": np.unique,
}


# --- formatting: how values appear in prompts and solutions -------------------------------------

def show(value: Any, decimals: int = 4) -> str:
    """Default text for ``{{ value }}``: plain numbers, bracketed lists, trimmed floats."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _trim(float(value), decimals)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return show(value.item(), decimals)
        return "[" + ", ".join(show(item, decimals) for item in value) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(item, decimals) for item in value) + "]"
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


def num(value: Any) -> str:
    """A whole number with thousands separators: ``num(4204032)`` → ``4,204,032``."""
    return f"{_as_int(value):,}"


def tex(value: Any, decimals: int = 4) -> str:
    """LaTeX for use inside ``$…$``: grouped integers, and vectors/matrices as ``bmatrix``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return f"{int(value):,}".replace(",", "{,}")
    array = np.asarray(value) if isinstance(value, (np.ndarray, list)) else None
    if array is not None and array.dtype.kind in "fiu" and array.ndim in (1, 2):
        rows = array.reshape(1, -1) if array.ndim == 1 else array
        body = r" \\ ".join(" & ".join(show(x, decimals) for x in row) for row in rows)
        return rf"\begin{{bmatrix}} {body} \end{{bmatrix}}"
    return show(value, decimals)


MAX_DIGITS = 17  # a float64 has 17 significant digits at most: more decimals only print noise


def _digits_bounded(formatter: Function) -> Function:
    """A formatter whose digit count is checked first: fmt(x, 10**8) would build a 100 MB string."""
    @functools.wraps(formatter)
    def call(value: Any, digits: Any = 4) -> str:
        if not 0 <= int(digits) <= MAX_DIGITS:
            raise ValueError(f"the number of digits must be from 0 to {MAX_DIGITS}, got {digits!r}")
        return str(formatter(value, int(digits)))
    return call


FORMATTERS: dict[str, Function] = {name: _digits_bounded(formatter) for name, formatter in
                                   {"show": show, "fmt": fmt, "sig": sig, "tex": tex}.items()} | {"num": num}


@functools.cache
def template_functions() -> dict[str, Function]:
    """Everything a template expression may call, built once per process."""
    return {**MATH, **FORMATTERS, **_engine_functions(), "dot_product_variances": dot_product_variances}
