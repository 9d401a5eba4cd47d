"""Typed maths into the expression language: cleaning, normalizing, and the arithmetic checks.

People type maths in many ways: ``4.2×10^6``, ``4,204,032``, ``√2/2``, ``x²``, ``2d``,
``−0.25`` with a Unicode minus.  This module tidies that text (:func:`clean`), rewrites it
into the project's expression language (:func:`normalize`, :mod:`quizzer.grading.expr`),
and lets that bounded evaluator do the arithmetic once only numbers, names, ``+ - * / **``
and whitelisted functions remain.  Every reader builds on it; a problem is raised as
:class:`AnswerFormatError`, whose message is shown to the student as is.
"""

from __future__ import annotations

import ast
import keyword
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Mapping
from typing import Any, NamedTuple

import numpy as np

from quizzer.common.errors import did_you_mean
from quizzer.common.untrusted import terminal_safe
from quizzer.grading.expr import MATH_CONSTANTS, Compiled, ExprError, compile_expr, evaluate

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
        return finite_real(value, self.source)


# --------------------------------------------------------------------------- cleaning

_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻]+")
# A name's subscript as the app and the notes print it (dₖ, dᵥ, T_q): NFKC would flatten dₖ into dk.
_SUBSCRIPTS = "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₀₁₂₃₄₅₆₇₈₉"
_SUBSCRIPT_RUN = re.compile(f"(?<=[A-Za-z])[{_SUBSCRIPTS}]+")
_SUBSCRIPT_LETTERS = str.maketrans(_SUBSCRIPTS, "aehijklmnoprstuvx0123456789")
_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SYMBOLS = str.maketrans({
    "−": "-", "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "﹣": "-",
    "∗": "*", "∕": "/", "⁄": "/",
})
_VULGAR_AFTER_DIGIT = re.compile(r"[0-9]\s*[½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞]")
# "≈ 0.73", and the name of what is given as on paper: "y = [-0.05, 0.1]", "d_k = 64", "W^O ≈ …" (a student's
# vector was refused as "could not read … as a number").
_LEADING_DECORATION = re.compile(r"^(?:[^\W\d][\w^{}']*\s*)?(?:=|≈|~|≃)\s*")
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
    text = _SUBSCRIPT_RUN.sub(lambda m: "_" + m.group().translate(_SUBSCRIPT_LETTERS), text)
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
OPENING = {"(": ")", "[": "]", "{": "}"}

Token = tuple[str, str]  # (kind, text); kind is num, pi, name, space or op


def lex(text: str) -> list[Token]:
    """Split text into numbers, names, spaces and single operators (a lexer, not a parser)."""
    return [(match.lastgroup or "op", match.group()) for match in _TOKEN.finditer(text)]


def normalize(text: str, names: Collection[str] = (), *, spaces_multiply: bool = False) -> str:
    """Rewrite cleaned typed maths into expression-language source.

    ``×·÷^`` become ``* / **``, ``π`` → ``pi``, ``ln`` → ``log``, ``√x`` → ``sqrt(x)``,
    ``4.2×10^6`` → ``4.2e6``, and a product written without ``*`` gets one where that is
    unambiguous: ``2d``, ``2pi``, ``2(…)``, ``(…)(…)``, ``d(…)`` when ``d`` is in ``names``.
    With ``spaces_multiply`` (expressions, not numbers) a space between factors is a product
    too, as on paper: ``2 d N_e``, ``4 d (N_e + N_d)``.
    """
    tokens = _rewrite_tokens(lex(fold_powers_of_ten(text)), names)
    out: list[str] = []
    previous: Token | None = None  # the last token that is not a space
    spaced = False  # whether a space came between it and this one
    for token in tokens:
        if token[0] == "space":
            spaced = True
        elif previous is not None and (_spaced_product(previous, token, names) if spaced and spaces_multiply
                                       else not spaced and _implicit_product(previous, token, names)):
            out.append("*")
        out.append(token[1])
        if token[0] != "space":
            previous, spaced = token, False
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


def _spaced_product(previous: Token, current: Token, names: Collection[str]) -> bool:
    """Whether a space between two tokens of an expression stands for '*': a product written without it
    (above), or a variable then any name (``d N_e``, ``d sqrt(2)``); never before a number, since
    ``2 3`` is as likely a typo for 23, nor before a word of Python's (``d if f else 1`` is refused by name)."""
    if current[0] == "num" or keyword.iskeyword(current[1]):
        return False
    if previous[0] == "name" and previous[1] in names and previous[1] not in FUNCTIONS and current[0] == "name":
        return True
    return _implicit_product(previous, current, names)


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


def quote(text: str) -> str:
    """The student's text, quoted and shortened for a message."""
    shown = text if len(text) <= 40 else text[:39] + "…"
    return "'" + terminal_safe(shown.replace("\n", " ")) + "'"


def compile_typed(source: str, typed: str, what: str) -> Compiled:
    """Compile normalized source; a syntax problem is reported against what the student typed."""
    try:
        return compile_expr(source)
    except ExprError:
        raise AnswerFormatError(f"could not read {quote(typed)} as {what}") from None


def check_arithmetic(compiled: Compiled, allowed: Collection[str] | None, hint: str) -> frozenset[str]:
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


def evaluate_constant(compiled: Compiled, typed: str) -> int | float:
    """Evaluate a checked constant expression to a finite real number."""
    try:
        value = evaluate(compiled, CONSTANTS, FUNCTIONS)
    except ExprError as exc:
        raise AnswerFormatError(f"could not work out {quote(typed)}: {exc}") from None
    return finite_real(value, typed)


def finite_real(value: Any, typed: str) -> int | float:
    """Accept a finite real number (bounded to the float range); anything else is an error."""
    if type(value) is float and math.isfinite(value):  # nearly every value, at every point of an equivalence check
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise AnswerFormatError(f"could not read {quote(typed)} as a number")
    if isinstance(value, (int, np.integer)):
        if abs(int(value)).bit_length() > 1020:
            raise AnswerFormatError("the number is too large")
        return int(value)
    if not math.isfinite(value):
        raise AnswerFormatError("the result is not a finite number")
    return float(value)
