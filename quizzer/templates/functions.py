"""The functions a template expression may call: the engine, a maths whitelist, and formatters.

Everything here is reachable from a YAML file, so every entry is pure, returns plain data, and
comes with a **cost rule** (:class:`~quizzer.grading.budget.Costed`): from the call's arguments,
before it runs, the element operations it will do and the elements its result will have.  The
evaluator charges both to the instance's budget and refuses the call first if either is over a
limit, so no single call can sort 10⁹ items or build a 10⁸-element array while the step clock is
not looking.  The rules are upper bounds, kept cheap (a few shape lookups per call).  Engine calls
go through ``engine``'s dispatching functions, so ``with engine.use_backend("torch")`` recomputes
a whole template with the independent PyTorch backend.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from quizzer.grading.budget import Costed
from quizzer.grading.expr import check_allocation, check_broadcast, weight
from quizzer.templates.formatting import exact_int, fmt, num, show, sig, terms, tex

Function = Callable[..., Any]
Cost = tuple[int, int]  # (element operations, result elements)

# Relative costs, in NumPy element operations: a Python-level comparison or list step (sorted, min of
# many values) is about fifty times dearer; formatting one number as text about a thousand times;
# drawing a normal random number about four times.
PYTHON_STEP = 50
FORMAT_ONE = 1000
DRAW = 4  # one normal random number


# --- cost rules: one per function, from the arguments' sizes -----------------------------------

def _linear(*args: Any, **kwargs: Any) -> Cost:
    """Element-wise maps, reductions and copies: one operation per input element, a result at most as large."""
    n = sum(weight(a) for a in (*args, *kwargs.values()))
    return n, n


def _scalar(*args: Any, **kwargs: Any) -> Cost:
    """Functions of a few numbers (int, len, mha_params, …) or of an array's shape."""
    return 1, 0


def _python_loop(*args: Any, **kwargs: Any) -> Cost:
    """Python-level work over every value (min/max of many values)."""
    return PYTHON_STEP * sum(weight(a) for a in args), 0


def _sorting(x: Any, *_: Any, **__: Any) -> Cost:
    n = weight(x)
    return PYTHON_STEP * n * max(n, 2).bit_length(), n


def _formatting(value: Any, *_: Any, **__: Any) -> Cost:
    return text_cost(value), 0


def text_cost(value: Any) -> int:
    """Writing a value as text: a thousand operations per number, one per character of text."""
    kind = type(value)
    if kind is int or kind is float:  # most values written: one number
        return FORMAT_ONE
    return len(value) if isinstance(value, str) else FORMAT_ONE * weight(value)


def _broadcasting(*args: Any, **kwargs: Any) -> Cost:
    """where/clip/maximum/minimum/isclose: the broadcast result; where(condition) alone lists indices per axis."""
    if len(args) == 1:
        size = weight(args[0]) * max(np.ndim(args[0]), 1)
        return size, size
    size = check_broadcast(*args)
    return size, size


def _dims(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    """zeros(2, 3) and zeros([2, 3]) alike."""
    return tuple(shape[0]) if len(shape) == 1 and np.ndim(shape[0]) else shape


def _allocating(*shape: Any) -> Cost:
    size = check_allocation(*(int(d) for d in _dims(shape)))
    return size, size


def _reshape_cost(x: Any, *shape: Any) -> Cost:
    return _allocating(*shape)


def _eye_cost(n: Any) -> Cost:
    return _allocating(n, n)


def _arange_cost(*bounds: Any) -> Cost:
    size = check_allocation(len(range(*(int(b) for b in bounds))))
    return size, size


def _outer_cost(a: Any, b: Any) -> Cost:
    size = check_allocation(int(np.size(a)), int(np.size(b)))
    return size, size


def _dot_cost(a: Any, b: Any) -> Cost:
    """np.dot's result shape is a.shape[:-1] + b.shape[:-2] + b.shape[-1:]; each entry sums a.shape[-1] terms."""
    left, right = np.shape(a), np.shape(b)
    size = check_allocation(*left[:-1], *right[:-2], *right[-1:] if len(right) > 1 else ())
    return size * (left[-1] if left else 1), size


def _joined_cost(*arrays: Any) -> Cost:
    """concat/stack: the result holds every input."""
    size = check_allocation(sum(int(np.size(a)) for a in arrays))
    return size, size


def _variance_cost(seed: Any, widths: Any, n_samples: Any = 20000) -> Cost:
    """2 × n_samples × Σ widths normal draws, each a few operations to draw, multiply and sum (the
    function refuses more than MAX_VARIANCE_DRAWS draws itself)."""
    return max(DRAW * 2 * int(n_samples) * int(np.sum(widths)), 0), 2 * int(np.size(widths))


# --- the engine ---------------------------------------------------------------------------------

def _arrays(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[np.ndarray]:
    values = [*args, *kwargs.values()]
    values += [v for d in values if isinstance(d, dict) for v in d.values()]  # a layer's params dict
    return [a for a in values if isinstance(a, np.ndarray)]


def _extent(array: np.ndarray) -> int:
    """An array's longest side once its leading axes are flattened into rows: rows or columns."""
    columns = array.shape[-1] if array.ndim else 1
    return max(array.size // max(columns, 1), columns)


def _bilinear(*args: Any, **kwargs: Any) -> Cost:
    """Attention, projections and layers are at most bilinear in their arrays: no intermediate is larger
    than the product of the two longest extents among the arguments (scores are rows(Q) × rows(K): a
    (30000, 1) query and key would need 9·10⁸), and each of its entries sums at most the longest axis
    of any argument (d_k for QKᵀ, d_model for a projection).  So 64 heads of 1,000 × 1,000 attention
    is refused for its 6·10¹⁰ operations although each input is small."""
    arrays = _arrays(args, kwargs)
    extents = sorted((_extent(a) for a in arrays), reverse=True)
    intermediate = check_allocation(extents[0], extents[1]) if len(extents) > 1 else sum(a.size for a in arrays)
    longest_axis = max((max(a.shape, default=1) for a in arrays), default=1)
    return intermediate * longest_axis, intermediate


def _engine_linear(*args: Any, **kwargs: Any) -> Cost:
    """softmax, the norms, cross-entropy, teacher forcing: a few passes over their arrays."""
    n = sum(a.size for a in _arrays(args, kwargs))
    return n, n


# One cost rule per engine function: a new engine function without one fails template_functions().
_ENGINE_COSTS: dict[str, Callable[..., Cost]] = {
    "softmax": _engine_linear, "layer_norm": _engine_linear, "batch_norm": _engine_linear,
    "smoothed_cross_entropy": _engine_linear, "teacher_forcing_inputs": _engine_linear,
    "scaled_dot_product_attention": _bilinear, "additive_attention": _bilinear,
    "multi_head_attention": _bilinear, "feed_forward": _bilinear, "encoder_layer": _bilinear,
    "decoder_layer": _bilinear,
    "causal_mask": lambda T, *_, **__: _allocating(T, T),
    "padding_mask": lambda lengths, T, *_, **__: _allocating(int(np.size(lengths)), T),
    "sinusoidal_encoding": lambda n, d, *_, **__: _allocating(n, d),
    "offset_rotation": lambda k, d, *_, **__: _allocating(d, d),
    "encoding_dot": lambda k, d, *_, **__: _allocating(d),
    "encoding_sq_distance": lambda k, d, *_, **__: _allocating(d),
    "label_smoothing_targets": lambda n, target, *_, **__: _allocating(int(np.size(target)), n),
    "mha_params": _scalar, "ffn_params": _scalar, "layer_norm_params": _scalar, "encoder_layer_params": _scalar,
    "decoder_layer_params": _scalar, "stack_params": _scalar, "output_projection_params": _scalar,
    "head_projection_params": _scalar, "score_entries": _scalar, "warmup_lr": _scalar,
    "attention_shapes": _scalar,
}
# Takes a random generator; templates use dot_product_variances below instead.
_NOT_FOR_TEMPLATES = {"dot_product_variance"}
# The notes' variance experiment draws 2 × 20,000 × (4+16+64+256) = 13.6 M numbers: allowed, not much more.
MAX_VARIANCE_DRAWS = 16_000_000


def dot_product_variances(seed: int, widths: Any, n_samples: int = 20000) -> np.ndarray:
    """[[Var(q·k), Var(q·k/√d_k)] per width], drawing from one generator in order, like the notes'
    code block 5.2 (seed 42, widths [4, 16, 64, 256] reproduces its printed table)."""
    dims = tuple(int(w) for w in np.atleast_1d(widths))
    if 2 * int(n_samples) * sum(dims) > MAX_VARIANCE_DRAWS or min(dims, default=1) < 1:
        raise ValueError(f"at most {MAX_VARIANCE_DRAWS:,} draws (2 × n_samples × sum of widths)")
    return _variance_table(engine.current_backend(), int(seed), dims, int(n_samples)).copy()


@functools.lru_cache(maxsize=16)
def _variance_table(backend: str, seed: int, dims: tuple[int, ...], n_samples: int) -> np.ndarray:
    """The experiment itself, kept: the notes' run (seed 0 of its template) draws 13.6 M numbers, about
    0.7 s, and the same arguments always give the same table.  The instance's budget is charged by the
    cost rule before the call either way.  Keyed by backend, so the PyTorch backend recomputes it."""
    rng = np.random.default_rng(seed)
    return np.array([engine.dot_product_variance(rng, d, n_samples) for d in dims])


def _engine_functions() -> dict[str, Costed]:
    return {name: guarded_as(name, getattr(engine, name)) for name in engine.PUBLIC_API
            if name not in _NOT_FOR_TEMPLATES}


def guarded_as(name: str, function: Function) -> Costed:
    """`function` under the cost rule of engine function `name`: an engine slip (engine.mutations) that
    quizzer.templates.discovery puts in the engine function's place is charged as the function it replaces."""
    return Costed(function, _ENGINE_COSTS[name])


# --- the maths whitelist ------------------------------------------------------------------------

def _array_maker(make: Callable[..., np.ndarray]) -> Function:
    def call(*shape: Any) -> np.ndarray:
        return make(tuple(int(d) for d in _dims(shape)))
    return call


def _arange(*bounds: Any) -> np.ndarray:
    span = range(*(int(b) for b in bounds))
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


def _no_output(function: Function, positional: int, *keywords: str) -> Function:
    """``function`` with at most ``positional`` arguments and only the named keywords.  NumPy's ufuncs
    and reductions take an output array (``out=``, or a further positional argument) and a ``where=``
    mask that leaves entries unset: either would let one expression overwrite a value computed
    earlier, or produce memory that was never written, so a template's text would not say what runs."""
    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if len(args) > positional:
            raise TypeError(f"takes at most {positional} argument{'s' if positional > 1 else ''}")
        if kwargs and (unknown := sorted(set(kwargs).difference(keywords))):
            raise TypeError(f"unexpected keyword {unknown[0]!r}")
        return function(*args, **kwargs)
    return guarded


def _unary(function: Function) -> Function:
    return _no_output(function, 1)


def _reduction(function: Function, *extra: str) -> Function:
    return _no_output(function, 2, "axis", "keepdims", *extra)


def _spread(function: Function) -> Function:
    """``var`` or ``std`` with ``ddof=`` checked first: with no degrees of freedom left NumPy prints a
    RuntimeWarning past the one-line error (and returns NaN, refused later anyway)."""
    reduce = _reduction(function, "ddof")

    @functools.wraps(function)
    def spread(x: Any, axis: Any = None, **kwargs: Any) -> Any:
        ddof, values = kwargs.get("ddof", 0), np.asarray(x)
        count = values.size if axis is None else values.shape[int(axis)] if values.ndim else 1
        if not 0 <= int(ddof) < count:
            raise ValueError(f"ddof={ddof} leaves no degrees of freedom in {count} value{'s' * (count != 1)}")
        return reduce(x, axis, **kwargs)
    return spread


# Each function with its cost rule.
_MATH_RULES: dict[str, tuple[Function, Callable[..., Cost]]] = {
    "sqrt": (_unary(np.sqrt), _linear), "exp": (_unary(np.exp), _linear), "log": (_unary(np.log), _linear),
    "log2": (_unary(np.log2), _linear), "log10": (_unary(np.log10), _linear), "sin": (_unary(np.sin), _linear),
    "cos": (_unary(np.cos), _linear), "tan": (_unary(np.tan), _linear), "tanh": (_unary(np.tanh), _linear),
    "abs": (_unary(np.abs), _linear), "relu": (_relu, _linear), "round": (_round, _linear),
    "floor": (math.floor, _scalar), "ceil": (math.ceil, _scalar), "int": (exact_int, _scalar),
    "float": (float, _scalar), "len": (len, _scalar), "shape": (lambda x: tuple(np.shape(x)), _linear),
    "min": (_extreme(min, np.min), _python_loop), "max": (_extreme(max, np.max), _python_loop),
    "sum": (_reduction(np.sum), _linear), "prod": (_reduction(np.prod), _linear),
    "mean": (_reduction(np.mean), _linear), "var": (_spread(np.var), _linear),
    "std": (_spread(np.std), _linear), "argmax": (lambda x: int(np.argmax(x)), _linear),
    "argmin": (lambda x: int(np.argmin(x)), _linear), "all": (lambda x: bool(np.all(x)), _linear),
    "any": (lambda x: bool(np.any(x)), _linear), "array": (lambda x: np.array(x, dtype=float), _linear),
    "transpose": (_no_output(np.transpose, 2), _linear),
    "zeros": (_array_maker(np.zeros), _allocating), "ones": (_array_maker(np.ones), _allocating),
    "eye": (lambda n: np.eye(int(n)), _eye_cost), "arange": (_arange, _arange_cost),
    "dot": (_no_output(np.dot, 2), _dot_cost), "outer": (_no_output(np.outer, 2), _outer_cost),
    "concat": (lambda *xs: np.concatenate(xs, axis=-1), _joined_cost),
    "stack": (lambda *xs: np.stack(xs), _joined_cost),
    "reshape": (lambda x, *shape: np.reshape(x, tuple(int(d) for d in _dims(shape))), _reshape_cost),
    "where": (_no_output(np.where, 3), _broadcasting), "clip": (_no_output(np.clip, 3), _broadcasting),
    "maximum": (_no_output(np.maximum, 2), _broadcasting), "minimum": (_no_output(np.minimum, 2), _broadcasting),
    "isclose": (lambda a, b: bool(np.allclose(a, b)), _broadcasting),
    "sorted": (sorted, _sorting), "unique": (_no_output(np.unique, 1), _sorting),
}
MATH: dict[str, Costed] = {name: Costed(function, cost) for name, (function, cost) in _MATH_RULES.items()}


MAX_DIGITS = 17  # a float64 has 17 significant digits at most: more decimals only print noise


def _digits_bounded(formatter: Function) -> Function:
    """A formatter whose digit count is checked first: fmt(x, 10**8) would build a 100 MB string."""
    @functools.wraps(formatter)
    def call(value: Any, digits: Any = 4) -> str:
        if not 0 <= int(digits) <= MAX_DIGITS:
            raise ValueError(f"the number of digits must be from 0 to {MAX_DIGITS}, got {digits!r}")
        return str(formatter(value, int(digits)))
    return call


FORMATTERS: dict[str, Costed] = {name: Costed(_digits_bounded(formatter), _formatting) for name, formatter in
                                 {"show": show, "fmt": fmt, "sig": sig, "tex": tex, "terms": terms}.items()}
FORMATTERS["num"] = Costed(num, _scalar)


@functools.cache
def template_functions() -> dict[str, Costed]:
    """Everything a template expression may call, each with its cost rule, built once per process."""
    return {**MATH, **FORMATTERS, **_engine_functions(),
            "dot_product_variances": Costed(dot_product_variances, _variance_cost)}
