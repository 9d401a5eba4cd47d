"""Read what students type into values: one reader per answer kind except choices.

Every ``parse_*`` reader takes the raw text and returns the value, or raises
:class:`~quizzer.grading.typed.AnswerFormatError` saying what was expected.  Numbers,
vectors, matrices and shapes share :func:`read_real` and the list splitting here;
choice and multi answers are read in :mod:`quizzer.grading.choices`.

Over 400 lines on purpose: the readers share the bracket, list and number helpers here, which a
module per kind would each import from the others.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from quizzer.grading.describe import format_number
from quizzer.grading.expr import ExprError
from quizzer.grading.typed import (
    CONSTANTS,
    FUNCTIONS,
    OPENING,
    AnswerFormatError,
    ExpressionAnswer,
    Token,
    check_arithmetic,
    clean,
    compile_typed,
    evaluate_constant,
    finite_real,
    fold_powers_of_ten,
    lex,
    normalize,
    quote,
)
from quizzer.grading.units import strip_unit

# ----------------------------------------------------------------------------- numbers

_LITERAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE](?P<exponent>[+-]?[0-9]+))?")
_COMMA_GROUPS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_SPACE_GROUPS = re.compile(r"[+-]?[0-9]{1,3}(?: [0-9]{3})+(?:\.[0-9]+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")
_MAX_EXPONENT = 1000  # 10**1000 is ~3300 bits: exact, yet far below the evaluator's integer limit
_MAX_LITERAL_CHARS = 1000  # also keeps int() below Python's 4300-digit conversion limit
_NUMBER_HINT = "a number may use pi and e"

Real = int | float | Fraction  # int: a whole-number literal; Fraction: an exact decimal literal; float: computed


def read_real(text: str, *, percent: bool = False) -> Real:
    """The one number reader behind number, integer, vector and matrix answers."""
    typed = clean(text)
    if percent and typed.endswith("%"):
        return _divide(read_real(typed[:-1]), 100)
    plain = typed.replace(",", "") if _COMMA_GROUPS.fullmatch(typed) else typed
    plain = plain.replace(" ", "") if _SPACE_GROUPS.fullmatch(plain) else plain
    literal = _LITERAL.fullmatch(plain)
    if literal:
        return _literal_value(literal)
    if _DECIMAL_COMMA.fullmatch(plain):
        raise AnswerFormatError(
            f"could not read {quote(typed)} as a number: use a point for decimals "
            f"({plain.replace(',', '.')})")
    compiled = compile_typed(normalize(plain, CONSTANTS), typed, "a number")
    check_arithmetic(compiled, CONSTANTS, _NUMBER_HINT)
    return evaluate_constant(compiled, typed)


def _literal_value(literal: re.Match[str]) -> int | Fraction:
    """Read a decimal literal exactly (25224192 stays 25224192; 4.204032e6 is exactly 4204032)."""
    text = literal.group()
    if len(text) > _MAX_LITERAL_CHARS:
        raise AnswerFormatError("the number has too many digits")
    if abs(int(literal["exponent"] or 0)) > _MAX_EXPONENT:
        raise AnswerFormatError("the number is too large" if "-" not in (literal["exponent"] or "")
                                else "the number is too small")
    if not any(ch in text for ch in ".eE"):
        return int(text)
    return Fraction(text)


def _scaled(value: Real, factor: Fraction | int) -> Real:
    return value if factor == 1 else value * factor if isinstance(value, float) else Fraction(value) * factor


def _divide(value: Real, divisor: int) -> Real:
    return value / divisor if isinstance(value, float) else Fraction(value) / divisor


def as_float(value: Real) -> float:
    """Convert a reading to float, refusing values beyond the float range."""
    try:
        result = float(value)
    except OverflowError:
        raise AnswerFormatError("the number is too large") from None
    if not math.isfinite(result):
        raise AnswerFormatError("the number is too large")
    return result


def parse_number(text: str, units: tuple[str, ...] = ()) -> int | float:
    """A real number: an int for a whole-number literal such as ``4204032``, else a float; followed, maybe, by
    a scale word or the question's own unit (``units``: quizzer.grading.units)."""
    number, factor, percent_dropped = strip_unit(text, units)
    value = _scaled(read_real(number, percent=not percent_dropped), factor)
    if isinstance(value, int):
        return finite_real(value, text)
    return as_float(value)


def parse_integer(text: str, units: tuple[str, ...] = ()) -> int:
    """A whole number, exactly (``4.204032e6`` → 4204032, ``25.2 million`` → 25200000; ``3.5`` is an error)."""
    number, factor, _ = strip_unit(text, units)
    value = _scaled(read_real(number), factor)
    whole = whole_number(value)
    if whole is None:
        raise AnswerFormatError(f"expected a whole number, got {format_number(value)}")
    return whole


def whole_number(value: Any) -> int | None:
    """The exact int a number equals, or None; floats may carry a few ulps of rounding noise."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else None
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        number = float(value)
        nearest = round(number)
        # 0.1*30 is 3.0000000000000004: computed floats get a few ulps, typed ones are exact Fractions.
        return nearest if abs(number - nearest) <= 4 * math.ulp(number) else None
    return None


# ---------------------------------------------------------------------- vectors, matrices

def strip_outer(text: str) -> str:
    """Remove one pair of brackets that encloses the whole text, if there is one."""
    text = text.strip()
    if len(text) < 2 or text[0] not in OPENING:
        return text
    depth = 0
    for index, ch in enumerate(text):
        if ch in OPENING:
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                encloses = index == len(text) - 1 and ch == OPENING[text[0]]
                return text[1:-1].strip() if encloses else text
    return text


_WRAPPER = re.compile(r"(?:(?:np|numpy|torch)\.)?(?:array|tensor|Size)\s*(?=\()")


def _unwrap(text: str) -> str:
    """Accept pasted Python: ``np.array([...])``, ``tensor([...])``, ``torch.Size([...])``."""
    match = _WRAPPER.match(text)
    if match:
        rest = text[match.end():]
        inner = strip_outer(rest)
        if inner != rest.strip():
            return inner
    return text


def split_at_depth_zero(text: str, separators: str) -> list[str]:
    """Split at separator characters that are outside all brackets."""
    parts: list[str] = []
    depth = start = 0
    for index, ch in enumerate(text):
        if ch in OPENING:
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in separators:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _split_on_spaces(text: str) -> list[str]:
    """Split ``0.5 -1 sqrt(2)`` into elements, keeping ``1 / 2`` and ``sqrt (2)`` whole."""
    tokens = lex(text)
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for index, (kind, token) in enumerate(tokens):
        if kind == "space" and depth == 0 and _space_separates(tokens, index):
            parts.append("".join(current))
            current = []
            continue
        if kind == "op":
            depth += (token in OPENING) - (token in ")]}")
        current.append(token)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


def _space_separates(tokens: list[Token], index: int) -> bool:
    """A space separates two elements when an operand ends before it and another starts after it."""
    if index == 0 or index + 1 >= len(tokens):
        return False
    (prev_kind, prev_text), (kind, text) = tokens[index - 1], tokens[index + 1]
    ends = prev_kind in ("num", "name", "pi") or prev_text in (")", "]", "}", "%")
    signed = text in "+-" and index + 2 < len(tokens) and tokens[index + 2][0] != "space"
    starts = kind in ("num", "name", "pi") or text in ("(", "[", "{", "√") or signed
    is_call = prev_kind == "name" and prev_text.lower() in FUNCTIONS and text == "("
    return ends and starts and not is_call


def element_texts(text: str) -> list[str]:
    """The elements of a typed list: split at commas/semicolons/newlines, else at spaces."""
    inner = strip_outer(_unwrap(text.strip()))
    if not inner:
        raise AnswerFormatError("no numbers in your answer")
    parts = split_at_depth_zero(inner, ",;\n")
    if len(parts) == 1:
        return _split_on_spaces(inner)
    if not parts[-1].strip():
        parts.pop()  # a trailing comma, as in "0.5, 1,"
    for position, part in enumerate(parts, start=1):
        if not part.strip():
            raise AnswerFormatError(f"element {position} is empty")
    return [part.strip() for part in parts]


def _read_floats(text: str) -> list[float]:
    """Read every element of a typed list as a float."""
    return [as_float(read_real(part)) for part in element_texts(text)]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def check_length(values: np.ndarray, length: int | None) -> None:
    """Raise ``expected 2 numbers, got 3`` when a vector has the wrong length."""
    if length is not None and len(values) != length:
        raise AnswerFormatError(f"expected {_plural(length, 'number')}, got {len(values)}")


def check_shape(matrix: np.ndarray, shape: Sequence[int] | None) -> None:
    """Raise ``expected a 2×3 matrix, got 3×2`` when a matrix has the wrong shape."""
    if shape is not None and tuple(matrix.shape) != tuple(shape):
        rows, cols = matrix.shape
        raise AnswerFormatError(f"expected a {shape[0]}×{shape[1]} matrix, got {rows}×{cols}")


def parse_vector(text: str, length: int | None = None) -> np.ndarray:
    """A 1-D float array: ``[0.5, 1]``, ``(0.5, 1)``, ``0.5 1``, ``[1/2, sqrt(2)]``."""
    values = np.array(_read_floats(fold_powers_of_ten(clean(text))), dtype=float)
    check_length(values, length)
    return values


def parse_matrix(text: str, shape: Sequence[int] | None = None) -> np.ndarray:
    """A 2-D float array: ``[[1,0],[0,1]]``, ``1 0; 0 1``, ``[1 0; 0 1]`` or one row per line."""
    rows = [_read_floats(row) for row in row_texts(fold_powers_of_ten(clean(text)))]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise AnswerFormatError(f"row {number} has {_plural(len(row), 'number')}, row 1 has {len(rows[0])}")
    matrix = np.array(rows, dtype=float).reshape(len(rows), len(rows[0]))
    check_shape(matrix, shape)
    return matrix


def row_texts(text: str) -> list[str]:
    """Split a typed matrix into row texts: at ``;``/newlines, or into bracketed ``[..], [..]`` rows."""
    inner = strip_outer(_unwrap(text))
    rows = [row.strip().strip(",;").strip() for row in split_at_depth_zero(inner, ";\n")]
    rows = [row for row in rows if row]
    if not rows:
        raise AnswerFormatError("no numbers in your answer")
    if len(rows) == 1:
        parts = element_texts(rows[0])
        if len(parts) > 1 and all(strip_outer(part) != part for part in parts):
            return parts
    return rows


# ------------------------------------------------------------------------------ shapes

_BY = re.compile(r"\s*×\s*|\s+[xX]\s+|(?<=[0-9])[xX](?=[0-9])")

Dim = int | str


# "Q: [B, T, 64]", "scores.shape = (2, 4)": the name of what the shape is of, before it.
_SHAPE_LABEL = re.compile(r"[A-Za-z_][\w.]*\s*[:=]\s*(?=[(\[])")


def parse_shape(text: str) -> tuple[Dim, ...]:
    """A tensor shape: ``[B, T, 64]``, ``(2, 4, 3, 5)``, ``2x4x3x5``, ``B x T x d_model``, ``Q: [B, T, 64]``."""
    typed = _unwrap(_SHAPE_LABEL.sub("", clean(text)))
    groups, between = _bracketed_groups(typed)
    if len(groups) > 1 and not re.sub(r"[\s,;]", "", between):  # "[2, 5] [2, 4]", not "(T+1) x d"
        raise AnswerFormatError(f"give one shape: this has {len(groups)} ({' and '.join(groups)})")
    inner = strip_outer(typed)
    parts = _dim_texts(inner)
    for position, part in enumerate(parts, start=1):
        if not part.strip():
            raise AnswerFormatError(f"dimension {position} is empty")
    return tuple(read_dim(part, position) for position, part in enumerate(parts, start=1))


def _bracketed_groups(text: str) -> tuple[list[str], str]:
    """The bracketed groups of ``text`` that no bracket encloses (``[2, 5] [2, 4]`` has two), and the
    text outside them."""
    groups: list[str] = []
    outside: list[str] = []
    depth = start = 0
    for index, ch in enumerate(text):
        if ch in OPENING:
            start = index if depth == 0 else start
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
            if depth == 0:
                groups.append(text[start:index + 1])
        elif depth == 0:
            outside.append(ch)
    return groups, "".join(outside)


def _dim_texts(inner: str) -> list[str]:
    """Split a shape at commas, else at ×/x ("by"), else at spaces."""
    if not inner:
        return []  # "()" is the shape of a scalar
    inner = _grouped_thousands(inner)
    parts = split_at_depth_zero(inner, ",")
    if len(parts) > 1:
        if not parts[-1].strip():
            parts.pop()  # (2,) is a one-dimensional shape
        return parts
    if _BY.search(inner):
        return _BY.split(inner)
    return _split_on_spaces(inner)


_LEADING_ZERO_GROUP = re.compile(r"(?<=[0-9]),(?=0[0-9]{2}(?![0-9]))")  # 45,000: no dimension starts with 0
_COMMA_GROUP = re.compile(r"(?<=[0-9]),(?=[0-9]{3}(?![0-9]))")
_SPACE_GROUP = re.compile(r"(?<=[0-9]) (?=[0-9]{3}(?![0-9]))")


def _grouped_thousands(inner: str) -> str:
    """A size written as the prompt writes it, 35,000 or 35 000, as one number: a comma before a group
    of three digits that starts with 0 always groups (no dimension is written 000); when the shape's
    dimensions are separated by ", ", a comma before three digits with no space groups, as does a space
    ([50, 35, 35,500]); in [512,512] every comma separates dimensions."""
    inner = _LEADING_ZERO_GROUP.sub("", inner)
    if ", " in inner:
        inner = _SPACE_GROUP.sub("", _COMMA_GROUP.sub("", inner))
    return inner


def read_dim(text: str, position: int = 1) -> Dim:
    """One shape dimension: a whole number, or a product of symbols kept as a compact string."""
    try:
        expression = read_expression(str(text))
        if expression.variables:
            return re.sub(r"\s+", "", expression.source)
        value = whole_number(evaluate_constant(expression.compiled, str(text)))
    except AnswerFormatError as exc:
        typed = str(text).strip()
        if " " in typed and "*" not in typed:
            raise AnswerFormatError(f"could not read dimension {position} {quote(typed)}: "
                                    "write products with *") from None
        if str(exc).startswith("could not read"):
            raise AnswerFormatError(f"could not read dimension {position} {quote(typed)}") from None
        raise AnswerFormatError(f"could not read dimension {position}: {exc}") from None
    if value is None or value < 0:
        raise AnswerFormatError(f"dimension {position} must be a whole number ≥ 0 or a name")
    return value


def as_shape(value: Any) -> tuple[Dim, ...]:
    """Normalize an expected shape (typed text, or a sequence of sizes and names) like a typed one."""
    if isinstance(value, str):
        return parse_shape(value)
    dims: list[Dim] = []
    for position, dim in enumerate(np.asarray(value, dtype=object).ravel().tolist(), start=1):
        whole = None if isinstance(dim, str) else whole_number(dim)
        dims.append(whole if whole is not None else read_dim(str(dim), position))
    return tuple(dims)


# ------------------------------------------------------------------------ bool and text

_BOOLEANS = {
    "true": True, "t": True, "yes": True, "y": True, "1": True, "correct": True,
    "false": False, "f": False, "no": False, "n": False, "0": False, "incorrect": False,
}


def parse_bool(text: str) -> bool:
    """true/false, yes/no, t/f, y/n, 1/0, correct/incorrect (any case)."""
    value = _BOOLEANS.get(clean(text).rstrip("!").strip().casefold())
    if value is None:
        raise AnswerFormatError("expected true or false (or yes/no)")
    return value


def parse_text(text: str) -> str:
    """Free text (self-graded): the cleaned text itself."""
    return clean(text)


# ------------------------------------------------------------------------- expressions

def read_expression(text: str, variables: Sequence[str] | None = None) -> ExpressionAnswer:
    """Compile a typed expression; ``variables=None`` accepts any name as a variable."""
    return _read_expression(text, None if variables is None else tuple(variables))


@functools.lru_cache(maxsize=1024)  # an instance compares its answer with every mistake's: read each text once
def _read_expression(text: str, variables: tuple[str, ...] | None) -> ExpressionAnswer:
    typed = clean(text)
    names = CONSTANTS.keys() | set(variables or ())
    compiled = compile_typed(normalize(typed, names, spaces_multiply=True), typed, "an expression")
    if variables is None:
        used = check_arithmetic(compiled, None, "")
        return ExpressionAnswer(compiled, tuple(sorted(used - CONSTANTS.keys())))
    hint = f"variables: {', '.join(variables)}" if variables else "use numbers, pi and e"
    check_arithmetic(compiled, names, hint)
    return ExpressionAnswer(compiled, tuple(variables))


def parse_expression(text: str, variables: Sequence[str]) -> ExpressionAnswer:
    """An expression in the given variables, e.g. ``2d f + f + d`` → ``2*d*f + f + d``."""
    expression = read_expression(text, tuple(variables))
    _check_evaluates(expression, text)
    return expression


# Three unrelated points: one can hit a domain edge (log(d - 1) at d = 1), three rarely all do.
_PROBE_VALUES = (1.37, 2.71, 0.83)


def _check_evaluates(expression: ExpressionAnswer, typed: str) -> None:
    """Reject expressions that cannot be evaluated anywhere (``sqrt(d, f)``, ``max(d)``)."""
    first_error = ""
    for value in _PROBE_VALUES:
        try:
            expression.value_at({name: value for name in expression.variables})
            return
        except (ExprError, AnswerFormatError) as exc:
            first_error = first_error or str(exc)
    raise AnswerFormatError(f"could not work out {quote(clean(typed))}: {first_error}")
