"""Whether two answers of a kind are the same answer: :func:`values_match`.

The one notion of "same answer", shared by grading (the expected value and each
misconception) and template validation.  Numbers agree within the question's tolerance,
except discrete ones: integers, and arrays whose expected entries are all whole numbers
(token ids, indices, 0/1 masks), agree only exactly.  Expressions, and symbolic shape sizes,
are the same when they agree at deterministic random points wherever the expected one is
defined; a shape size may also be written as a name the question gives a value (``T``).
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from quizzer.grading.expr import ExprError
from quizzer.grading.readers import Dim, as_shape, parse_bool, read_expression, whole_number
from quizzer.grading.tolerance import Tolerance
from quizzer.grading.typed import AnswerFormatError, ExpressionAnswer

# Expression equivalence: agree at EXPRESSION_POINTS assignments where the expected value is
# defined, and at least MIN_AGREEING_POINTS of them; candidates cover expressions with domain gaps.
EXPRESSION_POINTS = 8
MIN_AGREEING_POINTS = 5
CANDIDATE_POINTS = 24
EQUIVALENCE_REL, EQUIVALENCE_ABS = 1e-9, 1e-12


# ----------------------------------------------------------------------- values_match

NO_SIZES: Mapping[str, int] = {}


def values_match(kind: str, got: Any, expected: Any, tolerance: Tolerance = Tolerance(), *,
                 sizes: Mapping[str, int] = NO_SIZES) -> bool:
    """Whether two answers of ``kind`` are the same answer (shared with template validation).

    ``sizes`` are the question's named sizes, which a shape answer may use for their values."""
    if kind == "shape":
        return shapes_match(got, expected, sizes)
    matcher = _MATCHERS.get(kind)
    if matcher is None:
        raise ValueError(f"unknown answer kind {kind!r}")
    return matcher(got, expected, tolerance)


def _numbers_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    return tolerance.accepts(got, expected)


def _integers_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    whole = whole_number(got)
    return whole is not None and whole == whole_number(expected)


def _arrays_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got.shape == expected.shape and bool(elementwise(tolerance, got, expected).all())


def is_discrete(values: np.ndarray) -> bool:
    """Whether every entry is a whole number: token ids, indices, counts and 0/1 masks are graded exactly."""
    # The arrays' own all(): np.all() wraps it in Python-level dispatch that costs more than the test.
    return bool(np.isfinite(values).all() and (values == np.round(values)).all())


def elementwise(tolerance: Tolerance, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """A boolean array: which entries agree (exactly when the expected entries are all whole numbers)."""
    if is_discrete(expected):
        return np.asarray(got == expected, dtype=bool).reshape(expected.shape)
    flags = [tolerance.accepts(a, b) for a, b in zip(got.ravel().tolist(), expected.ravel().tolist(), strict=True)]
    return np.array(flags, dtype=bool).reshape(expected.shape)


def shapes_match(got: Any, expected: Any, sizes: Mapping[str, int] = NO_SIZES) -> bool:
    got, expected = as_shape(got), as_shape(expected)
    return len(got) == len(expected) and all(same_dim(a, b, sizes) for a, b in zip(got, expected, strict=True))


def same_dim(got: Dim, expected: Dim, sizes: Mapping[str, int] = NO_SIZES) -> bool:
    """Sizes compare by value, a name the question gives a size (``T``) by that size; other
    symbolic sizes as expressions at random whole-number values."""
    got, expected = _resolved(got, sizes), _resolved(expected, sizes)
    if isinstance(got, int) and isinstance(expected, int):
        return got == expected
    if isinstance(got, str) and isinstance(expected, str):
        return got == expected or equivalent(read_expression(got), read_expression(expected), integer=True)
    return False


def _resolved(dim: Dim, sizes: Mapping[str, int]) -> Dim:
    """A symbolic size whose names all have values in ``sizes`` (``2*T`` with T = 31) as its value."""
    if isinstance(dim, int) or not sizes:
        return dim
    try:
        expression = read_expression(dim)
        if not set(expression.variables) <= set(sizes):
            return dim
        value = whole_number(expression.value_at(sizes))
    except (AnswerFormatError, ExprError):
        return dim
    return value if value is not None else dim


def is_permutation(got: Sequence[Dim], expected: Sequence[Dim], sizes: Mapping[str, int] = NO_SIZES) -> bool:
    """Whether got lists the expected sizes in another order."""
    unused = list(expected)
    for dim in got:
        match = next((i for i, candidate in enumerate(unused) if same_dim(dim, candidate, sizes)), None)
        if match is None:
            return False
        unused.pop(match)
    return True


def _expressions_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    return equivalent(_as_expression(got), _as_expression(expected))


def _as_expression(value: Any) -> ExpressionAnswer:
    return value if isinstance(value, ExpressionAnswer) else read_expression(str(value))


def single_option(value: Any) -> int | None:
    """The option a multi misconception names, when it names one option rather than a set."""
    return int(value) if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else None


def selection(value: Any) -> frozenset[int]:
    """A multi answer as a set of indices (a single index stands for itself alone)."""
    single = single_option(value)
    return frozenset({single}) if single is not None else frozenset(value)


def as_bool(value: Any) -> bool:
    """A bool, also from the text "True"/"False" a template may carry (bool("False") is True)."""
    return parse_bool(value) if isinstance(value, str) else bool(value)


def _text_key(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


def _orders_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    return tuple(int(step) for step in got) == tuple(int(step) for step in expected)


_MATCHERS: dict[str, Callable[[Any, Any, Tolerance], bool]] = {
    "order": _orders_match,
    "number": _numbers_match,
    "integer": _integers_match,
    "vector": _arrays_match,
    "matrix": _arrays_match,
    "choice": lambda got, expected, _: int(got) == int(expected),
    "multi": lambda got, expected, _: selection(got) == selection(expected),
    "bool": lambda got, expected, _: as_bool(got) == as_bool(expected),
    "expression": _expressions_match,
    "text": lambda got, expected, _: _text_key(got) == _text_key(expected),
}


# ---------------------------------------------------------------- expression equivalence

def _sample_points(seed_text: str, names: Sequence[str], integer: bool) -> Iterator[dict[str, float]]:
    """Deterministic random assignments, seeded by hashlib (Python's hash() is salted per run), drawn as
    they are asked for: most comparisons need a third of them."""
    digest = hashlib.sha256(seed_text.encode("utf-8", "surrogatepass")).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    draw: Callable[[], float] = (lambda: rng.randint(2, 64)) if integer else (lambda: rng.uniform(0.5, 3.0))
    for _ in range(CANDIDATE_POINTS):
        yield {name: draw() for name in names}


def _value_or_none(expression: ExpressionAnswer, point: dict[str, float]) -> float | None:
    try:
        return float(expression.value_at(point))
    except (ExprError, AnswerFormatError):
        return None


def value_pairs(got: ExpressionAnswer, expected: ExpressionAnswer,
                integer: bool = False) -> Iterator[tuple[float, float]]:
    """(got, expected) values at up to EXPRESSION_POINTS points where the expected one is defined, computed
    as they are asked for (a comparison stops at the first pair that disagrees).

    A point where only the expected value is defined ends the pairs early: the student's
    expression is undefined where it should not be, so the two cannot be equivalent.
    """
    names = sorted(set(got.variables) | set(expected.variables))
    found = 0
    for point in _sample_points(expected.source, names, integer):
        want = _value_or_none(expected, point)
        if want is None:
            continue
        have = _value_or_none(got, point)
        if have is None:
            yield math.nan, want
            return
        yield have, want
        found += 1
        if found == EXPRESSION_POINTS or not names:
            return


def equivalent(got: ExpressionAnswer, expected: ExpressionAnswer, integer: bool = False) -> bool:
    """Equal (rel 1e-9) wherever the expected expression is defined, at ≥ MIN_AGREEING_POINTS points."""
    enough = MIN_AGREEING_POINTS if set(got.variables) | set(expected.variables) else 1
    agreeing = 0
    for have, want in value_pairs(got, expected, integer):
        if not nearly_equal(have, want):
            return False  # one disagreeing point decides: no need to evaluate the rest
        agreeing += 1
    return agreeing >= enough


def nearly_equal(a: float, b: float) -> bool:
    """Equal to EQUIVALENCE_REL (EQUIVALENCE_ABS near zero); never when either is inf or nan."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return math.fabs(a - b) <= max(EQUIVALENCE_REL * max(math.fabs(a), math.fabs(b)), EQUIVALENCE_ABS)
