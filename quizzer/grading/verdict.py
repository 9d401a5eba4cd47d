"""Compare a typed answer with the expected one and say, kindly, what was right or wrong.

:func:`grade` is total over all strings: text that cannot be read gives an ``invalid``
verdict (never counted as an attempt) carrying the parser's message.  A wrong answer is
checked against the question's misconceptions — wrong answers computed under one named
mistake — so the student hears about the mistake they most likely made.
:func:`values_match` is the one notion of "same answer", shared with template validation.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from quizzer.grading import answers
from quizzer.grading.answers import AnswerFormatError, ExpressionAnswer
from quizzer.grading.expr import ExprError

VERDICTS = ("correct", "incorrect", "partial", "invalid")
DEFAULT_SIG = 3
# Expression equivalence: agree at EXPRESSION_POINTS assignments where the expected value is
# defined, and at least MIN_AGREEING_POINTS of them; candidates cover expressions with domain gaps.
EXPRESSION_POINTS = 8
MIN_AGREEING_POINTS = 5
CANDIDATE_POINTS = 24
EQUIVALENCE_REL, EQUIVALENCE_ABS = 1e-9, 1e-12
_BOUND_SLACK = 1e-9  # so 1.01 is within 1% of 1.0 despite binary rounding


@dataclass(frozen=True)
class Tolerance:
    """How close a number must be; accepted if ANY given criterion accepts (default: 3 s.f.)."""

    rel: float | None = None   # |got-exp| <= rel*|exp|
    abs: float | None = None   # |got-exp| <= abs
    sig: int | None = None     # agrees with exp to `sig` significant figures

    def __post_init__(self) -> None:
        if (self.rel is not None and not self.rel >= 0) or (self.abs is not None and not self.abs >= 0):
            raise ValueError("tolerances must be ≥ 0")
        if self.sig is not None and self.sig < 1:
            raise ValueError("sig must be at least 1")

    def _criteria(self) -> tuple[float | None, float | None, int | None]:
        if self.rel is None and self.abs is None and self.sig is None:
            return None, None, DEFAULT_SIG
        return self.rel, self.abs, self.sig

    def accepts(self, got: float, expected: float) -> bool:
        """Whether ``got`` is close enough to ``expected``."""
        have, want = _finite_float(got), _finite_float(expected)
        if have is None or want is None:
            return False
        error = math.fabs(have - want)
        rel, absolute, sig = self._criteria()
        bounds = [
            rel * math.fabs(want) if rel is not None else None,
            absolute,
            half_unit(want, sig) if sig is not None else None,
        ]
        return any(bound is not None and error <= bound * (1 + _BOUND_SLACK) for bound in bounds)

    def loosened(self) -> Tolerance:
        """Ten times looser (one significant figure fewer): what counts as a near miss."""
        rel, absolute, sig = self._criteria()
        return Tolerance(rel=None if rel is None else rel * 10,
                         abs=None if absolute is None else absolute * 10,
                         sig=None if sig is None else max(sig - 1, 1))

    def describe(self) -> str:
        """``to 3 significant figures``, ``within 1%``, ``within ±0.001`` (joined by 'or')."""
        rel, absolute, sig = self._criteria()
        parts = []
        if sig is not None:
            parts.append(f"to {sig} significant figure{'s' if sig != 1 else ''}")
        if rel is not None:
            parts.append(f"within {rel * 100:g}%")
        if absolute is not None:
            parts.append(f"within ±{absolute:g}")
        return " or ".join(parts)

    def display_digits(self) -> int:
        """Significant figures to show the expected value with: at least 4, more for tight tolerances."""
        rel, _, sig = self._criteria()
        digits = [4, (sig or 0) + 1]
        if rel:
            digits.append(math.ceil(-math.log10(rel)) + 1)
        return min(max(digits), 15)


def half_unit(expected: float, sig: int) -> float:
    """Half a unit in the ``sig``-th significant figure of ``expected`` (0 for expected 0)."""
    if expected == 0:
        return 0.0
    leading = Decimal(expected).adjusted()  # exact exponent of the leading digit, no log10 rounding
    return 0.5 * 10.0 ** (leading - sig + 1)


def _finite_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class WrongAnswer:
    """A misconception: a wrong answer computed under one named mistake (``id`` None: a
    choice distractor that has feedback of its own but names no catalogued mistake)."""

    id: str | None
    value: Any              # same type as the expected value (choice/multi: index / frozenset of indices)
    feedback: str


@dataclass(frozen=True)
class AnswerSpec:
    """What a question expects and how to grade it."""

    kind: str               # number integer vector matrix shape choice multi bool expression text
    expected: Any
    tolerance: Tolerance = Tolerance()
    options: tuple[str, ...] = ()          # choice/multi displayed texts, displayed order
    variables: tuple[str, ...] = ()        # expression kind
    wrong_answers: tuple[WrongAnswer, ...] = ()
    expected_text: str | None = None       # how the question displays its answer, when it decides that itself


@dataclass(frozen=True)
class Verdict:
    """The outcome of grading one response."""

    verdict: str            # "correct" | "incorrect" | "partial" | "invalid"
    score: float            # in [0, 1]
    expected: str           # the expected answer as display text
    feedback: str
    misconception: str | None = None
    reading: str | None = None   # how the response was read; None when invalid


@dataclass(frozen=True)
class _Outcome:
    """A grader's judgement, before the display texts are added."""

    verdict: str
    score: float
    feedback: str
    misconception: str | None = None


_CORRECT = _Outcome("correct", 1.0, "correct")


def _misconceived(wrong: WrongAnswer) -> _Outcome:
    return _Outcome("incorrect", 0.0, wrong.feedback, wrong.id)


# ----------------------------------------------------------------------------- grade

def grade(spec: AnswerSpec, response: str) -> Verdict:
    """Grade one typed response; unreadable text gives an ``invalid`` verdict, never an exception."""
    if spec.kind == "text":
        return self_grade(spec, response)
    expected = expected_text(spec)
    try:
        got = answers.parse(spec.kind, response, **_parse_context(spec))
    except (AnswerFormatError, ExprError) as exc:
        return Verdict("invalid", 0.0, expected, str(exc))
    outcome = _GRADERS[spec.kind](spec, got)
    reading = None if outcome.verdict == "invalid" else _describe(spec, got)
    return Verdict(outcome.verdict, outcome.score, expected, outcome.feedback, outcome.misconception, reading)


def expected_text(spec: AnswerSpec) -> str:
    """The expected answer as the student will see it."""
    if spec.expected_text is not None:
        return spec.expected_text
    return _describe(spec, _expected_value(spec))


def _expected_value(spec: AnswerSpec) -> Any:
    """The spec's expected value in the form the parser produces for that kind."""
    converters: dict[str, Callable[[Any], Any]] = {
        "shape": answers.as_shape, "bool": _as_bool, "multi": _selection,
        "vector": lambda value: np.asarray(value, dtype=float),
        "matrix": lambda value: np.asarray(value, dtype=float),
    }
    return converters.get(spec.kind, lambda value: value)(spec.expected)


def _describe(spec: AnswerSpec, value: Any) -> str:
    return answers.describe(spec.kind, value, options=spec.options, digits=spec.tolerance.display_digits())


def _parse_context(spec: AnswerSpec) -> dict[str, Any]:
    """Context the parser needs; vector/matrix sizes are checked after misconceptions instead."""
    if spec.kind in ("choice", "multi"):
        return {"options": spec.options}
    if spec.kind == "expression":
        return {"variables": spec.variables}
    return {}


def _find_misconception(spec: AnswerSpec, got: Any) -> WrongAnswer | None:
    """The first wrong answer the response matches (with the question's tolerance)."""
    for wrong in spec.wrong_answers:
        if values_match(spec.kind, got, wrong.value, spec.tolerance):
            return wrong
    return None


def _grade_number(spec: AnswerSpec, got: Any) -> _Outcome:
    if values_match(spec.kind, got, spec.expected, spec.tolerance):
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    return _Outcome("incorrect", 0.0, _number_hint(spec.kind, spec.tolerance, got, spec.expected))


def _number_hint(kind: str, tolerance: Tolerance, got: Any, expected: Any) -> str:
    """Say what is wrong with a number: its sign, its power of ten, or how close it is."""
    exact = kind == "integer"
    target: Any = _whole(expected) if exact else float(expected)
    matches: Callable[[Any], bool] = ((lambda value: value == target) if exact
                                      else (lambda value: tolerance.accepts(value, target)))
    if got != 0 and matches(-got):
        return "right size, wrong sign"
    power = _power_of_ten_gap(got, target)
    if power and matches(Fraction(got) / Fraction(10) ** power):
        return f"your answer is {_factor(power)} the expected value — check units and powers of ten"
    if exact:
        difference = got - target
        if 0 < abs(difference) <= max(10, abs(target) // 100):
            return f"close: off by {abs(difference):,} (too {'large' if difference > 0 else 'small'})"
        return "not the expected value (whole numbers must be exact)"
    if tolerance.loosened().accepts(got, target):
        return f"close, but not {tolerance.describe()}"
    return f"not the expected value (accepted {tolerance.describe()})"


def _power_of_ten_gap(got: Any, expected: Any) -> int | None:
    """k when got ≈ expected × 10^k for a whole k ≠ 0 (exact arithmetic: integers may be huge)."""
    if got == 0 or expected == 0:
        return None
    ratio = abs(Fraction(got) / Fraction(expected))
    power = round(math.log10(ratio.numerator) - math.log10(ratio.denominator))
    return power if 1 <= abs(power) <= 15 else None


def _factor(power: int) -> str:
    if power > 0:
        return f"{10 ** power:,}×" if power <= 6 else f"10^{power}×"
    return f"1/{10 ** -power:,} of" if power >= -6 else f"10^{power}×"


def _grade_array(spec: AnswerSpec, got: np.ndarray) -> _Outcome:
    expected = _expected_value(spec)
    if values_match(spec.kind, got, expected, spec.tolerance):
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    try:  # only now: a misconception (say, a transpose) may have another shape
        if spec.kind == "vector":
            answers.check_length(got, len(expected))
        else:
            answers.check_shape(got, expected.shape)
    except AnswerFormatError as exc:
        return _Outcome("invalid", 0.0, str(exc))
    right = _elementwise(spec.tolerance, got, expected)
    if not right.any():
        return _Outcome("incorrect", 0.0, "none of the entries match")
    wrong_positions = [tuple(int(i) + 1 for i in index) for index in np.argwhere(~right)]
    return _Outcome("partial", float(right.mean()), _positions_off(wrong_positions))


def _elementwise(tolerance: Tolerance, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """A boolean array: which entries are within tolerance."""
    flags = [tolerance.accepts(a, b) for a, b in zip(got.ravel().tolist(), expected.ravel().tolist(), strict=True)]
    return np.array(flags, dtype=bool).reshape(expected.shape)


def _positions_off(positions: Sequence[tuple[int, ...]], noun: tuple[str, str] = ("entry", "entries"),
                   limit: int = 6) -> str:
    """``entry 2 is off``, ``entries 2 and 4 are off``, ``entries (1, 2) and (2, 1) are off``."""
    names = [str(p[0]) if len(p) == 1 else "(" + ", ".join(map(str, p)) + ")" for p in positions]
    if len(names) == 1:
        return f"{noun[0]} {names[0]} is off"
    if len(names) > limit:
        names = [*names[:limit], f"{len(names) - limit} more"]
    return f"{noun[1]} {', '.join(names[:-1])} and {names[-1]} are off"


def _grade_shape(spec: AnswerSpec, got: tuple[answers.Dim, ...]) -> _Outcome:
    expected = _expected_value(spec)
    if _shapes_match(got, expected):
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    if len(got) != len(expected):
        return _Outcome("incorrect", 0.0, f"expected {len(expected)} dimensions, got {len(got)}")
    if _is_permutation(got, expected):
        return _Outcome("incorrect", 0.0, "right sizes, wrong order")
    pairs = enumerate(zip(got, expected, strict=True), start=1)
    off = [(position,) for position, (dim, want) in pairs if not _same_dim(dim, want)]
    return _Outcome("incorrect", 0.0, _positions_off(off, ("dimension", "dimensions")))


def _grade_choice(spec: AnswerSpec, got: int) -> _Outcome:
    if got == spec.expected:
        return _CORRECT
    wrong = _find_misconception(spec, got)
    return _misconceived(wrong) if wrong else _Outcome("incorrect", 0.0, "that option is not the right one")


def _grade_multi(spec: AnswerSpec, got: frozenset[int]) -> _Outcome:
    expected = _expected_value(spec)
    if got == expected:
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    missed, extra = sorted(expected - got), sorted(got - expected)
    score = max(1 - (len(missed) + len(extra)) / max(len(spec.options), 1), 0.0)
    parts = []
    if missed:
        parts.append(f"you missed {_letters(missed)}")
    if extra:
        parts.append(f"{_letters(extra)} should not be selected")
    feedback = "; ".join(parts)
    # Each selected distractor explains itself, whatever else was chosen; the first named mistake is recorded.
    chosen = [wrong for wrong in spec.wrong_answers if _single_option(wrong.value) in extra]
    if len(chosen) == 1:
        feedback = f"{feedback} — {chosen[0].feedback}"
    elif chosen:
        feedback = f"{feedback} — " + " ".join(f"{_letters([int(w.value)])}: {w.feedback}" for w in chosen)
    named = next((wrong.id for wrong in chosen if wrong.id), None)
    return _Outcome("partial" if score > 0 else "incorrect", score, feedback, named)


def _single_option(value: Any) -> int | None:
    """The option a multi misconception names, when it names one option rather than a set."""
    return int(value) if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else None


def _selection(value: Any) -> frozenset[int]:
    """A multi answer as a set of indices (a single index stands for itself alone)."""
    single = _single_option(value)
    return frozenset({single}) if single is not None else frozenset(value)


def _letters(indices: Sequence[int]) -> str:
    labels = [answers.describe("choice", index) for index in indices]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _grade_bool(spec: AnswerSpec, got: bool) -> _Outcome:
    expected = _expected_value(spec)
    if got == expected:
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    return _Outcome("incorrect", 0.0, f"the statement is {'true' if expected else 'false'}")


def _as_bool(value: Any) -> bool:
    """A bool, also from the text "True"/"False" a template may carry (bool("False") is True)."""
    return answers.parse_bool(value) if isinstance(value, str) else bool(value)


def _grade_expression(spec: AnswerSpec, got: ExpressionAnswer) -> _Outcome:
    expected = answers.read_expression(spec.expected, spec.variables)
    if _equivalent(got, expected):
        return _CORRECT
    wrong = _find_misconception(spec, got)
    if wrong:
        return _misconceived(wrong)
    return _Outcome("incorrect", 0.0, _expression_hint(got, expected))


def _expression_hint(got: ExpressionAnswer, expected: ExpressionAnswer) -> str:
    """Name a constant factor or offset between the two expressions when there is one."""
    pairs = _value_pairs(got, expected)
    if len(pairs) >= MIN_AGREEING_POINTS:
        differences = [have - want for have, want in pairs]
        if all(_close(d, differences[0]) for d in differences):
            offset = answers.format_number(differences[0])
            return f"your expression differs from the expected one by a constant ({offset})"
        if all(want != 0 for _, want in pairs):
            ratios = [have / want for have, want in pairs]
            if all(_close(r, ratios[0]) for r in ratios):
                return f"your expression is {answers.format_number(ratios[0])}× the expected one"
    return "not equivalent to the expected expression"


_GRADERS: dict[str, Callable[[AnswerSpec, Any], _Outcome]] = {
    "number": _grade_number, "integer": _grade_number, "vector": _grade_array, "matrix": _grade_array,
    "shape": _grade_shape, "choice": _grade_choice, "multi": _grade_multi, "bool": _grade_bool,
    "expression": _grade_expression,
}


# ------------------------------------------------------------------------ self-grading

_RATINGS: dict[str, tuple[str, float, str]] = {
    "again": ("incorrect", 0.0, "marked to come back soon"),
    "hard": ("partial", 0.5, "counted as half right"),
    "good": ("correct", 1.0, "well done"),
    "easy": ("correct", 1.0, "well done"),
}
_RATING_ALIASES = {"0": "again", "1": "hard", "2": "good", "3": "easy",
                   "a": "again", "h": "hard", "g": "good", "e": "easy"}


def self_grade(spec: AnswerSpec, rating: str) -> Verdict:
    """A text answer rated by the student: again / hard / good / easy (or 0–3)."""
    expected = str(spec.expected)
    try:
        word = answers.clean(rating).casefold()
    except AnswerFormatError:
        word = ""
    word = _RATING_ALIASES.get(word, word)
    if word not in _RATINGS:
        return Verdict("invalid", 0.0, expected, "rate your answer: again, hard, good or easy (or 0–3)")
    verdict, score, feedback = _RATINGS[word]
    return Verdict(verdict, score, expected, feedback, None, word)


# ----------------------------------------------------------------------- values_match

def values_match(kind: str, got: Any, expected: Any, tolerance: Tolerance = Tolerance()) -> bool:
    """Whether two answers of ``kind`` are the same answer (shared with template validation)."""
    matcher = _MATCHERS.get(kind)
    if matcher is None:
        raise ValueError(f"unknown answer kind {kind!r}")
    return matcher(got, expected, tolerance)


def _numbers_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    return tolerance.accepts(got, expected)


def _integers_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    whole = answers.whole_number(got)
    return whole is not None and whole == answers.whole_number(expected)


def _arrays_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    return got.shape == expected.shape and bool(_elementwise(tolerance, got, expected).all())


def _shapes_match(got: Any, expected: Any, tolerance: Tolerance | None = None) -> bool:
    got, expected = answers.as_shape(got), answers.as_shape(expected)
    return len(got) == len(expected) and all(_same_dim(a, b) for a, b in zip(got, expected, strict=True))


def _same_dim(got: answers.Dim, expected: answers.Dim) -> bool:
    """Sizes compare by value; symbolic sizes as expressions at random whole-number values."""
    if isinstance(got, int) and isinstance(expected, int):
        return got == expected
    if isinstance(got, str) and isinstance(expected, str):
        return got == expected or _equivalent(answers.read_expression(got), answers.read_expression(expected),
                                              integer=True)
    return False


def _is_permutation(got: Sequence[answers.Dim], expected: Sequence[answers.Dim]) -> bool:
    """Whether got lists the expected sizes in another order."""
    unused = list(expected)
    for dim in got:
        match = next((i for i, candidate in enumerate(unused) if _same_dim(dim, candidate)), None)
        if match is None:
            return False
        unused.pop(match)
    return True


def _expressions_match(got: Any, expected: Any, tolerance: Tolerance) -> bool:
    return _equivalent(_as_expression(got), _as_expression(expected))


def _as_expression(value: Any) -> ExpressionAnswer:
    return value if isinstance(value, ExpressionAnswer) else answers.read_expression(str(value))


def _text_key(text: Any) -> str:
    return " ".join(str(text).split()).casefold()


_MATCHERS: dict[str, Callable[[Any, Any, Tolerance], bool]] = {
    "number": _numbers_match,
    "integer": _integers_match,
    "vector": _arrays_match,
    "matrix": _arrays_match,
    "shape": _shapes_match,
    "choice": lambda got, expected, _: int(got) == int(expected),
    "multi": lambda got, expected, _: _selection(got) == _selection(expected),
    "bool": lambda got, expected, _: _as_bool(got) == _as_bool(expected),
    "expression": _expressions_match,
    "text": lambda got, expected, _: _text_key(got) == _text_key(expected),
}


# ---------------------------------------------------------------- expression equivalence

def _sample_points(seed_text: str, names: Sequence[str], integer: bool) -> list[dict[str, float]]:
    """Deterministic random assignments, seeded by hashlib (Python's hash() is salted per run)."""
    digest = hashlib.sha256(seed_text.encode("utf-8", "surrogatepass")).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    draw: Callable[[], float] = (lambda: rng.randint(2, 64)) if integer else (lambda: rng.uniform(0.5, 3.0))
    return [{name: draw() for name in names} for _ in range(CANDIDATE_POINTS)]


def _value_or_none(expression: ExpressionAnswer, point: dict[str, float]) -> float | None:
    try:
        return float(expression.value_at(point))
    except (ExprError, AnswerFormatError):
        return None


def _value_pairs(got: ExpressionAnswer, expected: ExpressionAnswer, integer: bool = False) -> list[tuple[float, float]]:
    """(got, expected) values at up to EXPRESSION_POINTS points where the expected one is defined.

    A point where only the expected value is defined ends the list early: the student's
    expression is undefined where it should not be, so the two cannot be equivalent.
    """
    names = sorted(set(got.variables) | set(expected.variables))
    pairs: list[tuple[float, float]] = []
    for point in _sample_points(expected.source, names, integer):
        want = _value_or_none(expected, point)
        if want is None:
            continue
        have = _value_or_none(got, point)
        if have is None:
            return [*pairs, (math.nan, want)]
        pairs.append((have, want))
        if len(pairs) == EXPRESSION_POINTS or not names:
            break
    return pairs


def _equivalent(got: ExpressionAnswer, expected: ExpressionAnswer, integer: bool = False) -> bool:
    """Equal (rel 1e-9) wherever the expected expression is defined, at ≥ MIN_AGREEING_POINTS points."""
    pairs = _value_pairs(got, expected, integer)
    enough = MIN_AGREEING_POINTS if set(got.variables) | set(expected.variables) else 1
    return len(pairs) >= enough and all(_close(have, want) for have, want in pairs)


def _close(a: float, b: float) -> bool:
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return math.fabs(a - b) <= max(EQUIVALENCE_REL * max(math.fabs(a), math.fabs(b)), EQUIVALENCE_ABS)


def _whole(value: Any) -> int:
    """The expected value of an integer question, as an int."""
    whole = answers.whole_number(value)
    if whole is None:
        raise ValueError(f"an integer answer must be a whole number, got {value!r}")
    return whole
