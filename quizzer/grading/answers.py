"""Read what students type into values, one parser per answer kind.

People type maths in many ways: ``4.2×10^6``, ``4,204,032``, ``√2/2``, ``x²``, ``2d``,
``−0.25`` with a Unicode minus.  This module rewrites all of them into the project's
expression language (:mod:`quizzer.grading.expr`), lets that bounded evaluator do the
arithmetic, and checks the result is the kind of value the question asks for.

Every parser takes the raw text and returns the value or raises
:class:`AnswerFormatError` with a short message saying what was expected; that message
is shown to the student as is.  :func:`describe` renders a parsed value back as text
("this is how I read your answer").
"""

from __future__ import annotations

import ast
import contextlib
import functools
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from quizzer.common.errors import did_you_mean
from quizzer.grading.expr import MATH_CONSTANTS, Compiled, ExprError, compile_expr, evaluate

MAX_ANSWER_CHARS = 2000
KINDS = ("number", "integer", "vector", "matrix", "shape", "bool", "choice", "multi", "expression", "text")

# `inf` is left out on purpose: no typed answer may be infinite.
CONSTANTS: dict[str, float] = {"pi": MATH_CONSTANTS["pi"], "e": MATH_CONSTANTS["e"]}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt, "exp": math.exp, "log": math.log, "log2": math.log2, "log10": math.log10,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "tanh": math.tanh,
    "abs": abs, "min": min, "max": max,
}


class AnswerFormatError(ValueError):
    """A typed answer that cannot be read; the message tells the student what was expected."""


class ExpressionAnswer(NamedTuple):
    """A typed expression, compiled, with the variables it may use."""

    compiled: Compiled
    variables: tuple[str, ...]

    @property
    def source(self) -> str:
        """The normalized source text (``^`` already rewritten to ``**`` etc.)."""
        return self.compiled.source

    def value_at(self, assignment: Mapping[str, float]) -> int | float:
        """Evaluate at one assignment of the variables; raises ExprError or AnswerFormatError."""
        value = evaluate(self.compiled, {**CONSTANTS, **assignment}, FUNCTIONS)
        return _finite_real(value, self.source)


# --------------------------------------------------------------------------- cleaning

_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SYMBOLS = str.maketrans({
    "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "﹣": "-",
    "∗": "*", "∕": "/", "⁄": "/",
})
_VULGAR_AFTER_DIGIT = re.compile(r"[0-9]\s*[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]")
_LEADING_DECORATION = re.compile(r"^(?:=|≈|~|≃)\s*")
_ASCII_SPACE = re.compile(r"[\t\v\f\x1c-\x1f]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")


def clean(text: str) -> str:
    """Tidy the Unicode of a typed answer (shared by every kind); empty → AnswerFormatError."""
    if not isinstance(text, str):
        raise AnswerFormatError("expected the answer as text")
    if _VULGAR_AFTER_DIGIT.search(text):
        # NFKC would turn 1½ into 11⁄2, silently 5.5; ask instead of guessing.
        raise AnswerFormatError("write mixed numbers like 1½ as 1.5 or 3/2")
    text = text.replace("\r\n", "\n")
    if text.isascii():  # the common case, without a per-character pass
        text = _ASCII_CONTROL.sub("", _ASCII_SPACE.sub(" ", text.replace("\r", "\n")))
    else:
        text = "".join(_clean_char(ch) for ch in text)
    # Superscripts first: NFKC would flatten x² into x2.
    text = _SUPERSCRIPT_RUN.sub(lambda m: "**" + m.group().translate(_SUPERSCRIPT_DIGITS), text)
    text = unicodedata.normalize("NFKC", text).translate(_SYMBOLS)
    text = _LEADING_DECORATION.sub("", text.strip())
    if len(text) > 1 and text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()  # a full stop ends the sentence, it is not part of the answer
    if not text:
        raise AnswerFormatError("empty answer")
    return text


def _clean_char(ch: str) -> str:
    """Unify one character: line breaks, exotic spaces and digits; drop invisible ones."""
    if ch in "\n\r\u2028\u2029":
        return "\n"
    if ch.isspace():
        return " "
    if unicodedata.category(ch).startswith("C"):  # controls, zero-width, surrogates, unassigned
        return ""
    if ch.isdecimal() and not ch.isascii():
        return str(unicodedata.decimal(ch))
    return ch


# ------------------------------------------------------------------- tokens, normalizing

_TOKEN = re.compile(r"""
    (?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<pi>π)
  | (?P<name>(?:(?!π)[^\W\d])(?:(?!π)\w)*)
  | (?P<space>\s+)
  | (?P<op>\*\*|.)
""", re.VERBOSE | re.DOTALL)
_OPERATORS = {"^": "**", "×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/"}
_OPENING = {"(": ")", "[": "]", "{": "}"}

Token = tuple[str, str]  # (kind, text); kind is num, pi, name, space or op


def _tokens(text: str) -> list[Token]:
    """Split text into numbers, names, spaces and single operators (a lexer, not a parser)."""
    return [(match.lastgroup or "op", match.group()) for match in _TOKEN.finditer(text)]


def normalize(text: str, names: Collection[str] = ()) -> str:
    """Rewrite cleaned typed maths into expression-language source.

    ``×·÷^`` become ``* / **``, ``π`` → ``pi``, ``ln`` → ``log``, ``√x`` → ``sqrt(x)``,
    ``4.2×10^6`` → ``4.2e6``, and a product written without ``*`` gets one where that is
    unambiguous: ``2d``, ``2pi``, ``2(…)``, ``(…)(…)``, ``d(…)`` when ``d`` is in ``names``.
    """
    tokens = _rewrite_tokens(_tokens(fold_powers_of_ten(text)), names)
    out: list[str] = []
    previous: Token | None = None
    for token in tokens:
        if previous is not None and _implicit_product(previous, token, names):
            out.append("*")
        out.append(token[1])
        previous = token
    return "".join(out)


def _rewrite_tokens(tokens: list[Token], names: Collection[str]) -> list[Token]:
    """Translate symbols token by token; √ takes the following number or name as its argument."""
    out: list[Token] = []
    index = 0
    while index < len(tokens):
        kind, text = tokens[index]
        index += 1
        if kind == "pi":
            out.append(("pi", "pi"))
        elif kind == "name":
            out.extend(_name_tokens(_canonical_name(text, names), names))
        elif text == "√":
            out.append(("name", "sqrt"))
            if index < len(tokens) and tokens[index][0] in ("num", "name", "pi"):
                argument = _rewrite_tokens([tokens[index]], names)[0]
                out.extend([("op", "("), argument, ("op", ")")])
                index += 1
        elif kind == "op":
            out.append(("op", _OPERATORS.get(text, text)))
        else:
            out.append((kind, text))
    return out


def _canonical_name(name: str, names: Collection[str]) -> str:
    """Map ln → log and SQRT/Pi → sqrt/pi, unless the question uses that name as a variable."""
    if name in names:
        return name
    lowered = name.lower()
    if lowered == "ln":
        return "log"
    if lowered in FUNCTIONS or lowered == "pi":
        return lowered
    return name


def _name_tokens(name: str, names: Collection[str]) -> list[Token]:
    """``df`` → ``d*f`` when ``df`` is unknown but splits into the question's variables in one way only."""
    variables = [known for known in names if known not in CONSTANTS]
    parts = None if name in names or name in FUNCTIONS else _unique_split(name, variables)
    if not parts:
        return [("name", name)]
    tokens: list[Token] = []
    for part in parts:
        tokens.extend([("op", "*"), ("name", part)] if tokens else [("name", part)])
    return tokens


def _unique_split(word: str, parts: Collection[str]) -> list[str] | None:
    """The only way to write ``word`` as a concatenation of ``parts``, or None (none, or ambiguous)."""
    if len(word) > 40 or not parts:
        return None
    ways = [0] * len(word) + [1]  # ways[i]: splittings of word[i:], capped at 2 (we only need "one")
    first: list[str | None] = [None] * (len(word) + 1)
    for start in range(len(word) - 1, -1, -1):
        for part in parts:
            if part and word.startswith(part, start) and ways[start + len(part)]:
                ways[start] = min(ways[start] + ways[start + len(part)], 2)
                first[start] = part
    if ways[0] != 1:
        return None
    split: list[str] = []
    start = 0
    while start < len(word):
        chosen = first[start]
        assert chosen is not None  # ways[start] == 1 guarantees a part
        split.append(chosen)
        start += len(chosen)
    return split


def _implicit_product(previous: Token, current: Token, names: Collection[str]) -> bool:
    """Whether two adjacent tokens are a product written without '*' (2d, 2pi, (a)(b), d(…))."""
    prev_kind, prev_text = previous
    kind, text = current
    starts_factor = kind in ("name", "pi") or text == "("
    if prev_kind in ("num", "pi") or prev_text == ")":
        # 4.2.1 lexes as two adjacent numbers; joining them with '*' would hide the typo.
        return starts_factor or (kind == "num" and prev_kind != "num")
    if prev_kind == "name" and prev_text not in FUNCTIONS and (prev_text in names or prev_text in CONSTANTS):
        return text == "(" or kind == "pi"
    return False


_TIMES_TEN = re.compile(r"""
    (?<![\w.])(?P<mantissa>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)
    \s*[xX×*·⋅∙]\s*10\s*(?:\^|\*\*)\s*
    (?:(?P<exponent>[+-]?[0-9]+)|\(\s*(?P<bracketed>[+-]?[0-9]+)\s*\))
    (?![\w.(^]|\s*(?:\^|\*\*))
""", re.VERBOSE)


def fold_powers_of_ten(text: str) -> str:
    """Turn ``4.2×10^6``, ``4.2 x 10^6`` and ``4.2*10**6`` into the exact literal ``4.2e6``."""
    def fold(match: re.Match[str]) -> str:
        if not _may_fold(match.string, match.start()):
            return match.group()
        return f"{match['mantissa']}e{match['exponent'] or match['bracketed']}"

    return _TIMES_TEN.sub(fold, text)


def _may_fold(text: str, start: int) -> bool:
    """Folding a×10^k into one literal keeps the value only when nothing binds tighter on the left."""
    before = text[:start]
    stripped = before.rstrip(" \t")
    if not stripped or stripped[-1] in "([{,;\n":
        return True
    if stripped != before and (stripped[-1].isalnum() or stripped[-1] in ")]}"):
        return True  # a space after an operand separates list elements: "1 4.2 x 10^6"
    if stripped[-1] in "+-":
        # 2**-3*10**6 and a/-3*10**6 must stay as they are; a sign or a binary +/- is fine.
        prior = stripped[:-1].rstrip(" \t")
        return not prior or prior[-1] in "([{,;\n)]}." or prior[-1].isalnum()
    return False


# -------------------------------------------------------------- compiling and checking

_ARITHMETIC_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.Call,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd,
)
_NOT_ARITHMETIC = {
    ast.Mod: "'%'", ast.FloorDiv: "'//'", ast.MatMult: "'@'", ast.Compare: "a comparison",
    ast.BoolOp: "'and'/'or'", ast.Not: "'not'", ast.IfExp: "'if'", ast.Subscript: "indexing",
    ast.keyword: "a keyword argument", ast.Slice: "a slice",
}


def _quote(text: str) -> str:
    """The student's text, quoted and shortened for a message."""
    shown = text if len(text) <= 40 else text[:39] + "…"
    return "'" + shown.replace("\n", " ") + "'"


def _compile(source: str, typed: str, what: str) -> Compiled:
    """Compile normalized source; a syntax problem is reported against what the student typed."""
    try:
        return compile_expr(source)
    except ExprError:
        raise AnswerFormatError(f"could not read {_quote(typed)} as {what}") from None


def _check_arithmetic(compiled: Compiled, allowed: Collection[str] | None, hint: str) -> frozenset[str]:
    """Allow only numbers, names, + - * / ** and whitelisted calls; return the names used.

    ``allowed=None`` accepts any name (symbolic shape dimensions).
    """
    nodes = list(ast.walk(compiled.tree))
    callees = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    used: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.List, ast.Tuple)):
            raise AnswerFormatError("expected one value, not a list")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise AnswerFormatError(f"{node.value!r} is not a number")
        elif isinstance(node, ast.Call):
            _check_callee(node)
        elif isinstance(node, ast.Name) and id(node) not in callees:
            _check_name(node.id, allowed, hint)
            used.add(node.id)
        elif not isinstance(node, _ARITHMETIC_NODES):
            raise AnswerFormatError(f"{_NOT_ARITHMETIC.get(type(node), 'that')} is not allowed in an answer")
    return frozenset(used)


def _check_callee(node: ast.Call) -> None:
    name = node.func.id if isinstance(node.func, ast.Name) else "?"
    if name not in FUNCTIONS:
        suggestion = did_you_mean(name, FUNCTIONS) or f" (functions: {', '.join(FUNCTIONS)})"
        raise AnswerFormatError(f"unknown function {name!r}{suggestion}")


def _check_name(name: str, allowed: Collection[str] | None, hint: str) -> None:
    if allowed is not None and name in allowed:
        return
    if name in FUNCTIONS:
        raise AnswerFormatError(f"{name!r} is a function: write {name}(…)")
    if allowed is not None:
        raise AnswerFormatError(f"unknown name {name!r} ({hint})")


def _evaluate(compiled: Compiled, typed: str) -> int | float:
    """Evaluate a checked constant expression to a finite real number."""
    try:
        value = evaluate(compiled, CONSTANTS, FUNCTIONS)
    except ExprError as exc:
        raise AnswerFormatError(f"could not work out {_quote(typed)}: {exc}") from None
    return _finite_real(value, typed)


def _finite_real(value: Any, typed: str) -> int | float:
    """Accept a finite real number (bounded to the float range); anything else is an error."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise AnswerFormatError(f"could not read {_quote(typed)} as a number")
    if isinstance(value, (int, np.integer)):
        if abs(int(value)).bit_length() > 1020:
            raise AnswerFormatError("the number is too large")
        return int(value)
    if not math.isfinite(value):
        raise AnswerFormatError("the result is not a finite number")
    return float(value)


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
            f"could not read {_quote(typed)} as a number: use a point for decimals "
            f"({plain.replace(',', '.')})")
    compiled = _compile(normalize(plain, CONSTANTS), typed, "a number")
    _check_arithmetic(compiled, CONSTANTS, _NUMBER_HINT)
    return _evaluate(compiled, typed)


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


def parse_number(text: str) -> int | float:
    """A real number: an int for a whole-number literal such as ``4204032``, else a float."""
    value = read_real(text, percent=True)
    if isinstance(value, int):
        return _finite_real(value, text)
    return as_float(value)


def parse_integer(text: str) -> int:
    """A whole number, exactly (``4.204032e6`` → 4204032; ``3.5`` is an error)."""
    value = read_real(text)
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

def _strip_outer(text: str) -> str:
    """Remove one pair of brackets that encloses the whole text, if there is one."""
    text = text.strip()
    if len(text) < 2 or text[0] not in _OPENING:
        return text
    depth = 0
    for index, ch in enumerate(text):
        if ch in _OPENING:
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                encloses = index == len(text) - 1 and ch == _OPENING[text[0]]
                return text[1:-1].strip() if encloses else text
    return text


_WRAPPER = re.compile(r"(?:(?:np|numpy|torch)\.)?(?:array|tensor|Size)\s*(?=\()")


def _unwrap(text: str) -> str:
    """Accept pasted Python: ``np.array([...])``, ``tensor([...])``, ``torch.Size([...])``."""
    match = _WRAPPER.match(text)
    if match:
        rest = text[match.end():]
        inner = _strip_outer(rest)
        if inner != rest.strip():
            return inner
    return text


def _split_at_depth_zero(text: str, separators: str) -> list[str]:
    """Split at separator characters that are outside all brackets."""
    parts: list[str] = []
    depth = start = 0
    for index, ch in enumerate(text):
        if ch in _OPENING:
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
    tokens = _tokens(text)
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for index, (kind, token) in enumerate(tokens):
        if kind == "space" and depth == 0 and _space_separates(tokens, index):
            parts.append("".join(current))
            current = []
            continue
        if kind == "op":
            depth += (token in _OPENING) - (token in ")]}")
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


def _element_texts(text: str) -> list[str]:
    """The elements of a typed list: split at commas/semicolons/newlines, else at spaces."""
    inner = _strip_outer(_unwrap(text.strip()))
    if not inner:
        raise AnswerFormatError("no numbers in your answer")
    parts = _split_at_depth_zero(inner, ",;\n")
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
    return [as_float(read_real(part)) for part in _element_texts(text)]


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
    rows = [_read_floats(row) for row in _row_texts(fold_powers_of_ten(clean(text)))]
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise AnswerFormatError(f"row {number} has {_plural(len(row), 'number')}, row 1 has {len(rows[0])}")
    matrix = np.array(rows, dtype=float).reshape(len(rows), len(rows[0]))
    check_shape(matrix, shape)
    return matrix


def _row_texts(text: str) -> list[str]:
    """Split a typed matrix into row texts: at ``;``/newlines, or into bracketed ``[..], [..]`` rows."""
    inner = _strip_outer(_unwrap(text))
    rows = [row.strip().strip(",;").strip() for row in _split_at_depth_zero(inner, ";\n")]
    rows = [row for row in rows if row]
    if not rows:
        raise AnswerFormatError("no numbers in your answer")
    if len(rows) == 1:
        parts = _element_texts(rows[0])
        if len(parts) > 1 and all(_strip_outer(part) != part for part in parts):
            return parts
    return rows


# ------------------------------------------------------------------------------ shapes

_BY = re.compile(r"\s*×\s*|\s+[xX]\s+|(?<=[0-9])[xX](?=[0-9])")

Dim = int | str


def parse_shape(text: str) -> tuple[Dim, ...]:
    """A tensor shape: ``[B, T, 64]``, ``(2, 4, 3, 5)``, ``2x4x3x5``, ``B x T x d_model``."""
    inner = _strip_outer(_unwrap(clean(text)))
    parts = _dim_texts(inner)
    for position, part in enumerate(parts, start=1):
        if not part.strip():
            raise AnswerFormatError(f"dimension {position} is empty")
    return tuple(read_dim(part, position) for position, part in enumerate(parts, start=1))


def _dim_texts(inner: str) -> list[str]:
    """Split a shape at commas, else at ×/x ("by"), else at spaces."""
    if not inner:
        return []  # "()" is the shape of a scalar
    parts = _split_at_depth_zero(inner, ",")
    if len(parts) > 1:
        if not parts[-1].strip():
            parts.pop()  # (2,) is a one-dimensional shape
        return parts
    if _BY.search(inner):
        return _BY.split(inner)
    return _split_on_spaces(inner)


def read_dim(text: str, position: int = 1) -> Dim:
    """One shape dimension: a whole number, or a product of symbols kept as a compact string."""
    try:
        expression = read_expression(str(text))
        if expression.variables:
            return re.sub(r"\s+", "", expression.source)
        value = whole_number(_evaluate(expression.compiled, str(text)))
    except AnswerFormatError as exc:
        typed = str(text).strip()
        if " " in typed and "*" not in typed:
            raise AnswerFormatError(f"could not read dimension {position} {_quote(typed)}: "
                                    "write products with *") from None
        if str(exc).startswith("could not read"):
            raise AnswerFormatError(f"could not read dimension {position} {_quote(typed)}") from None
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


# ---------------------------------------------------------------------- bool and choices

_BOOLEANS = {
    "true": True, "t": True, "yes": True, "y": True, "1": True, "correct": True,
    "false": False, "f": False, "no": False, "n": False, "0": False, "incorrect": False,
}
_LETTER = re.compile(r"[(\[]?([a-zA-Z])[)\].:]?")
_LETTER_AND_TEXT = re.compile(r"[(\[]?([a-zA-Z])[)\].:]\s+(.+)", re.DOTALL)
_NONE = {"none", "nothing", "no option", "no options"}


def parse_bool(text: str) -> bool:
    """true/false, yes/no, t/f, y/n, 1/0, correct/incorrect (any case)."""
    value = _BOOLEANS.get(clean(text).rstrip("!").strip().casefold())
    if value is None:
        raise AnswerFormatError("expected true or false (or yes/no)")
    return value


def _letter(index: int) -> str:
    return chr(ord("a") + index) if index < 26 else str(index + 1)


def _option_key(text: str) -> str:
    """Compare option texts ignoring case, spacing and how the maths was typed."""
    with contextlib.suppress(AnswerFormatError):  # an unreadable option is compared as typed
        text = normalize(clean(text))
    return re.sub(r"\s+", "", text).casefold()


def _numeric(text: str) -> float | None:
    try:
        return as_float(read_real(text))
    except AnswerFormatError:
        return None


@functools.lru_cache(maxsize=512)
def _prepared(options: tuple[str, ...]) -> _Choices:
    """Options are prepared once per question, not once per typed answer."""
    return _Choices(options)


class _Choices:
    """The displayed options, prepared once for matching typed text against them."""

    def __init__(self, options: Sequence[str]) -> None:
        if not options:
            raise ValueError("a choice question needs options")
        self.options = tuple(options)
        self.keys = [_option_key(option) for option in options]
        self.values = [_numeric(option) for option in options]
        # Letters name options unless the options are themselves single letters (shape symbols, say).
        self.by_letter = len(options) <= 26 and not any(_LETTER.fullmatch(option.strip()) for option in options)
        # How many typed comma/semicolon pieces one option's own text may span.
        self.span = 1 + max(len(re.findall(r"[,;]", option)) for option in options)

    def choose_message(self) -> str:
        last = len(self.options) - 1
        return f"choose one of a–{_letter(last)}" if last else "choose a"

    def mismatch(self, typed: str) -> str:
        """Why ``typed`` matches no option."""
        with_text = _LETTER_AND_TEXT.fullmatch(typed)
        index = ord(with_text[1].lower()) - ord("a") if with_text and self.by_letter else -1
        if 0 <= index < len(self.options):
            return f"({_letter(index)}) is {_quote(self.options[index])}: type just the letter"
        return f"could not match {_quote(typed)} to an option: {self.choose_message()}"

    def match(self, typed: str) -> int | None:
        """One option typed as a letter, its text, ``(b) its text`` or a number; None if none matches."""
        letter = _LETTER.fullmatch(typed)
        if letter and self.by_letter:
            return self.letter_index(letter[1])
        key = _option_key(typed)
        if key in self.keys:
            return self.keys.index(key)
        with_text = _LETTER_AND_TEXT.fullmatch(typed)
        if with_text and self.by_letter:  # "(b) 0.25", as the preview shows it
            index = ord(with_text[1].lower()) - ord("a")
            consistent = index < len(self.options) and _option_key(with_text[2]) == self.keys[index]
            return index if consistent else None
        return self.match_number(typed)

    def letter_index(self, letter: str) -> int:
        index = ord(letter.lower()) - ord("a")
        if index >= len(self.options):
            raise AnswerFormatError(self.choose_message())
        return index

    def match_number(self, typed: str) -> int | None:
        """Numeric options compare by value (0.25 = 0.250); otherwise a number is the option's position."""
        if any(value is not None for value in self.values):
            value = _numeric(typed)
            for index, option_value in enumerate(self.values):
                if value is not None and option_value is not None and math.isclose(
                        value, option_value, rel_tol=1e-9, abs_tol=1e-12):
                    return index
            return None
        if re.fullmatch(r"[0-9]{1,3}", typed):
            position = int(typed)
            if not 1 <= position <= len(self.options):
                raise AnswerFormatError(self.choose_message())
            return position - 1
        return None


def parse_choice(text: str, options: Sequence[str]) -> int:
    """The 0-based index of the chosen option: a letter ``b``/``(b)``/``b)``, its text, or its number."""
    choices = _prepared(tuple(options))
    typed = clean(text)
    index = choices.match(typed)
    if index is None:
        raise AnswerFormatError(choices.mismatch(typed))
    return index


def parse_multi(text: str, options: Sequence[str]) -> frozenset[int]:
    """The set of chosen indices: ``a, c``, ``ac``, ``A C``, ``a and c``, ``{a,c}``, option texts, or none."""
    choices = _prepared(tuple(options))
    typed = clean(text)
    key = _option_key(typed)
    if key in choices.keys:  # one option, whose text may contain commas or brackets
        return frozenset({choices.keys.index(key)})
    inner = _strip_outer(typed)
    if inner.casefold() in _NONE:
        return frozenset()
    letters = _run_of_letters(inner, choices)
    if letters is not None:
        return letters
    # Semicolons are the stronger separator: with one present, commas belong to option texts.
    separator = ";" if len(_split_at_depth_zero(inner, ";")) > 1 else ","
    chosen = _match_pieces(_split_at_depth_zero(inner, separator), separator, choices)
    if not chosen:
        raise AnswerFormatError(f"no options chosen: {choices.choose_message()}")
    return frozenset(chosen)


def _run_of_letters(inner: str, choices: _Choices) -> frozenset[int] | None:
    """Read ``ac``, ``A C``, ``a, c``, ``a and c`` as letters, when every letter names an option."""
    if not choices.by_letter:
        return None
    words = [word for word in re.split(r"[\s,;&]+|\band\b", inner) if word]
    if not words or not all(word.isascii() and word.isalpha() for word in words):
        return None
    indices = {ord(letter) - ord("a") for letter in "".join(words).lower()}
    return frozenset(indices) if max(indices) < len(choices.options) else None


def _match_pieces(pieces: list[str], separator: str, choices: _Choices) -> set[int]:
    """Match separated pieces to options, rejoining neighbours when an option's text has the separator."""
    chosen: set[int] = set()
    start = 0
    while start < len(pieces):
        if not pieces[start].strip():
            start += 1
            continue
        for end in range(start + 1, min(len(pieces), start + choices.span) + 1):
            found = _match_piece(separator.join(pieces[start:end]).strip(), choices)
            if found is not None:
                chosen |= found
                start = end
                break
        else:
            raise AnswerFormatError(choices.mismatch(pieces[start].strip()))
    return chosen


def _match_piece(piece: str, choices: _Choices) -> set[int] | None:
    """One option, or several joined by 'and'/'&'; None when that does not match."""
    index = choices.match(piece)
    if index is not None:
        return {index}
    words = [word.strip() for word in re.split(r"\s+and\s+|\s*&\s*", piece) if word.strip()]
    matched = [choices.match(word) for word in words] if len(words) > 1 else [None]
    return None if None in matched else {index for index in matched if index is not None}


# ------------------------------------------------------------------------- expressions

def read_expression(text: str, variables: Sequence[str] | None = None) -> ExpressionAnswer:
    """Compile a typed expression; ``variables=None`` accepts any name as a variable."""
    typed = clean(text)
    names = CONSTANTS.keys() | set(variables or ())
    compiled = _compile(normalize(typed, names), typed, "an expression")
    if variables is None:
        used = _check_arithmetic(compiled, None, "")
        return ExpressionAnswer(compiled, tuple(sorted(used - CONSTANTS.keys())))
    hint = f"variables: {', '.join(variables)}" if variables else "use numbers, pi and e"
    _check_arithmetic(compiled, names, hint)
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
    raise AnswerFormatError(f"could not work out {_quote(clean(typed))}: {first_error}")


# ------------------------------------------------------------------------ dispatch, text

def parse_text(text: str) -> str:
    """Free text (self-graded): the cleaned text itself."""
    return clean(text)


_PARSERS: dict[str, Callable[..., Any]] = {
    "number": parse_number, "integer": parse_integer, "vector": parse_vector,
    "matrix": parse_matrix, "shape": parse_shape, "bool": parse_bool, "choice": parse_choice,
    "multi": parse_multi, "expression": parse_expression, "text": parse_text,
}


def parse(kind: str, text: str, **context: Any) -> Any:
    """Parse ``text`` as an answer of ``kind``; context: length, shape, options or variables."""
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ValueError(f"unknown answer kind {kind!r} (kinds: {', '.join(KINDS)})")
    # The cap is on what was typed; normalized text may be longer and is bounded by quizzer.grading.expr.
    if isinstance(text, str) and len(text) > MAX_ANSWER_CHARS:
        raise AnswerFormatError("answer is too long")
    return parser(text, **context)


# ---------------------------------------------------------------------------- describe

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


def _describe_option(index: int, options: Sequence[str]) -> str:
    label = f"({_letter(index)})"
    return f"{label} {options[index]}" if 0 <= index < len(options) else label


def describe(kind: str, value: Any, *, options: Sequence[str] = (), digits: int = 4) -> str:
    """How a parsed value reads back: ``0.7311``, ``[0.5, 1]``, ``[B, T, 64]``, ``(b) 0.25``."""
    if kind in ("number", "integer"):
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
    if kind == "expression":
        return value.source if isinstance(value, ExpressionAnswer) else str(value)
    if kind == "text":
        return str(value)
    raise ValueError(f"unknown answer kind {kind!r}")
