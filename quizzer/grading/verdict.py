"""Compare a typed answer with the expected one and say, kindly, what was right or wrong.

:func:`grade` is total over all strings: text that cannot be read gives an ``invalid``
verdict (never counted as an attempt) carrying the parser's message.  The scoring rules are
those of ``questions/README.md`` ("Scoring rules"), and they are all here: each kind's grader
scores the answer on its own merits, and only then is a wrong answer checked against the
question's misconceptions — wrong answers computed under one named mistake — so the student
hears about the mistake they most likely made.  A recognised mistake adds its feedback and
its id; it never changes the score.  Sameness is
:func:`~quizzer.grading.match.values_match`; the feedback hints (sign, power of ten,
entries off, constant factor) are here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from quizzer.grading.budget import MAX_ANSWER_STEPS, Budget, shared_budget
from quizzer.grading.describe import describe, format_number
from quizzer.grading.expr import ExprError
from quizzer.grading.match import (
    MIN_AGREEING_POINTS,
    as_bool,
    elementwise,
    equivalent,
    is_discrete,
    is_permutation,
    nearly_equal,
    same_dim,
    selection,
    shapes_match,
    single_option,
    value_pairs,
    values_match,
)
from quizzer.grading.ordering import order_feedback, order_score
from quizzer.grading.parse import parse
from quizzer.grading.readers import Dim, as_shape, check_length, check_shape, read_expression, whole_number
from quizzer.grading.tolerance import Tolerance
from quizzer.grading.typed import AnswerFormatError, ExpressionAnswer, clean

VERDICTS = ("correct", "incorrect", "partial", "invalid")
# The version of the scoring rules.  Raise it with any change that can change a stored score, verdict
# or misconception: every bank then regrades its attempts once (quizzer.learning.regrade).
# 1: until 2026-12; 2: select-all right-minus-wrong, mistakes never cost credit, discrete answers exact.
# 3: wrong answers matching no listed misconception may be named by a discovered engine slip.
RULES_VERSION = 3


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

    kind: str               # number integer vector matrix shape choice multi order bool expression text
    expected: Any
    tolerance: Tolerance = Tolerance()
    options: tuple[str, ...] = ()          # choice/multi/order displayed texts, displayed order
    variables: tuple[str, ...] = ()        # expression kind
    wrong_answers: tuple[WrongAnswer, ...] = ()
    expected_text: str | None = None       # how the question displays its answer, when it decides that itself
    sizes: Mapping[str, int] = field(default_factory=dict)  # shape kind: the question's named sizes (T = 31)
    # Further wrong answers, asked for only when an answer matches none of `wrong_answers`: the
    # template's answer recomputed under each engine slip (quizzer.templates.discovery), lazily.
    discover: Callable[[AnswerSpec], tuple[WrongAnswer, ...]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Verdict:
    """The outcome of grading one response."""

    verdict: str            # "correct" | "incorrect" | "partial" | "invalid"
    score: float            # in [0, 1]
    expected: str           # the expected answer as display text
    feedback: str
    misconception: str | None = None
    reading: str | None = None   # how the response was read; None when invalid

    def to_json(self, key: str, seed: int, *, recorded: bool) -> dict[str, Any]:
        """The fields `quizzer grade --json` prints for one graded answer (batch results add line and learner)."""
        return {"key": key, "seed": seed, "verdict": self.verdict, "score": self.score, "expected": self.expected,
                "feedback": self.feedback, "misconception": self.misconception, "reading": self.reading,
                "recorded": recorded}


@dataclass(frozen=True)
class _Outcome:
    """A grader's judgement, before the display texts are added."""

    verdict: str
    score: float
    feedback: str
    misconception: str | None = None


_CORRECT = _Outcome("correct", 1.0, "correct")


# ----------------------------------------------------------------------------- grade

def grade(spec: AnswerSpec, response: str) -> Verdict:
    """Grade one typed response; unreadable text gives an ``invalid`` verdict, never an exception.
    Reading and checking it spend from one budget of MAX_ANSWER_STEPS steps (and one deadline)."""
    if spec.kind == "text":
        return self_grade(spec, response)
    with shared_budget(Budget(max_steps=MAX_ANSWER_STEPS)):
        return _grade(spec, response)


def _grade(spec: AnswerSpec, response: str) -> Verdict:
    expected = expected_text(spec)
    try:
        got = parse(spec.kind, response, **_parse_context(spec))
    except (AnswerFormatError, ExprError) as exc:
        return Verdict("invalid", 0.0, expected, str(exc))
    outcome = _name_mistake(spec, got, _GRADERS[spec.kind](spec, got))
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
        "shape": as_shape, "bool": as_bool, "multi": selection,
        "vector": lambda value: np.asarray(value, dtype=float),
        "matrix": lambda value: np.asarray(value, dtype=float),
    }
    return converters.get(spec.kind, lambda value: value)(spec.expected)


def _describe(spec: AnswerSpec, value: Any) -> str:
    return describe(spec.kind, value, options=spec.options, digits=spec.tolerance.display_digits())


def _parse_context(spec: AnswerSpec) -> dict[str, Any]:
    """Context the parser needs; vector/matrix sizes are checked after misconceptions instead."""
    if spec.kind in ("choice", "multi", "order"):
        return {"options": spec.options}
    if spec.kind == "expression":
        return {"variables": spec.variables}
    return {}


def _find_misconception(spec: AnswerSpec, got: Any) -> WrongAnswer | None:
    """The first wrong answer the response matches (with the question's tolerance): a listed one
    first, then one discovered by rerunning the question with a slip (so a listed one always wins)."""
    for wrong in spec.wrong_answers:
        if values_match(spec.kind, got, wrong.value, spec.tolerance, sizes=spec.sizes):
            return wrong
    for wrong in spec.discover(spec) if spec.discover else ():
        if values_match(spec.kind, got, wrong.value, spec.tolerance, sizes=spec.sizes):
            return wrong
    return None


def _name_mistake(spec: AnswerSpec, got: Any, outcome: _Outcome) -> _Outcome:
    """Name the mistake a wrong answer matches, keeping the score it earned on its own.

    A recognised mistake must never cost credit that the same answer would keep with no
    catalogue at all, so only the feedback and the id change.  One exception to "keep the
    outcome": an answer of another shape (a transposed matrix) that matches a mistake is a
    readable wrong answer, not an unreadable one."""
    if outcome.verdict == "correct" or outcome.misconception:
        return outcome
    wrong = _find_misconception(spec, got)
    if wrong is None:
        return outcome
    if outcome.verdict == "invalid":
        return _Outcome("incorrect", 0.0, wrong.feedback, wrong.id)
    feedback = wrong.feedback if outcome.verdict == "incorrect" else f"{wrong.feedback} ({outcome.feedback})"
    return replace(outcome, feedback=feedback or outcome.feedback, misconception=wrong.id)


def _grade_number(spec: AnswerSpec, got: Any) -> _Outcome:
    if values_match(spec.kind, got, spec.expected, spec.tolerance):
        return _CORRECT
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


def _whole(value: Any) -> int:
    """The expected value of an integer question, as an int."""
    whole = whole_number(value)
    if whole is None:
        raise ValueError(f"an integer answer must be a whole number, got {value!r}")
    return whole


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
    try:  # unreadable unless it names a mistake (say, a transpose): see _name_mistake
        if spec.kind == "vector":
            check_length(got, len(expected))
        else:
            check_shape(got, expected.shape)
    except AnswerFormatError as exc:
        return _Outcome("invalid", 0.0, str(exc))
    right = elementwise(spec.tolerance, got, expected)
    whole = " (every entry is a whole number)" if is_discrete(expected) and not is_discrete(got) else ""
    if not right.any():
        return _Outcome("incorrect", 0.0, f"none of the entries match{whole}")
    wrong_positions = [tuple(int(i) + 1 for i in index) for index in np.argwhere(~right)]
    return _Outcome("partial", float(right.mean()), _positions_off(wrong_positions) + whole)


def _positions_off(positions: Sequence[tuple[int, ...]], noun: tuple[str, str] = ("entry", "entries"),
                   limit: int = 6) -> str:
    """``entry 2 is off``, ``entries 2 and 4 are off``, ``entries (1, 2) and (2, 1) are off``."""
    names = [str(p[0]) if len(p) == 1 else "(" + ", ".join(map(str, p)) + ")" for p in positions]
    if len(names) == 1:
        return f"{noun[0]} {names[0]} is off"
    if len(names) > limit:
        names = [*names[:limit], f"{len(names) - limit} more"]
    return f"{noun[1]} {', '.join(names[:-1])} and {names[-1]} are off"


def _grade_shape(spec: AnswerSpec, got: tuple[Dim, ...]) -> _Outcome:
    expected = _expected_value(spec)
    if shapes_match(got, expected, spec.sizes):
        return _CORRECT
    if len(got) != len(expected):
        return _Outcome("incorrect", 0.0, f"expected {len(expected)} dimensions, got {len(got)}")
    if is_permutation(got, expected, spec.sizes):
        return _Outcome("incorrect", 0.0, "right sizes, wrong order")
    pairs = enumerate(zip(got, expected, strict=True), start=1)
    off = [(position,) for position, (dim, want) in pairs if not same_dim(dim, want, spec.sizes)]
    return _Outcome("incorrect", 0.0, _positions_off(off, ("dimension", "dimensions")))


def _grade_choice(spec: AnswerSpec, got: int) -> _Outcome:
    if got == spec.expected:
        return _CORRECT
    return _Outcome("incorrect", 0.0, "that option is not the right one")


def _grade_multi(spec: AnswerSpec, got: frozenset[int]) -> _Outcome:
    expected = _expected_value(spec)
    if got == expected:
        return _CORRECT
    missed, extra = sorted(expected - got), sorted(got - expected)
    # Right picks minus wrong picks, over the right options: "none" and "all" earn nothing, and
    # an unpicked wrong option is no evidence of knowledge (counting it gave "none" over half).
    score = max(0.0, (len(got & expected) - len(extra)) / len(expected))
    parts = []
    if missed:
        parts.append(f"you missed {_letters(missed)}")
    if extra:
        parts.append(f"{_letters(extra)} should not be selected")
    feedback = "; ".join(parts) or "nothing selected"
    # Each selected distractor explains itself, whatever else was chosen; the first named mistake is recorded.
    chosen = [wrong for wrong in spec.wrong_answers if single_option(wrong.value) in extra]
    if len(chosen) == 1:
        feedback = f"{feedback} — {chosen[0].feedback}"
    elif chosen:
        feedback = f"{feedback} — " + " ".join(f"{_letters([int(w.value)])}: {w.feedback}" for w in chosen)
    named = next((wrong.id for wrong in chosen if wrong.id), None)
    return _Outcome("partial" if score > 0 else "incorrect", score, feedback, named)


def _grade_order(spec: AnswerSpec, got: tuple[int, ...]) -> _Outcome:
    if tuple(got) == tuple(spec.expected):
        return _CORRECT
    score = order_score(got, spec.expected)  # pairs right minus pairs inverted: see quizzer.grading.ordering
    return _Outcome("partial" if score > 0 else "incorrect", score, order_feedback(got, spec.expected))


def _letters(indices: Sequence[int]) -> str:
    labels = [describe("choice", index) for index in indices]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _grade_bool(spec: AnswerSpec, got: bool) -> _Outcome:
    expected = _expected_value(spec)
    if got == expected:
        return _CORRECT
    return _Outcome("incorrect", 0.0, f"the statement is {'true' if expected else 'false'}")


def _grade_expression(spec: AnswerSpec, got: ExpressionAnswer) -> _Outcome:
    expected = read_expression(spec.expected, spec.variables)
    if equivalent(got, expected):
        return _CORRECT
    return _Outcome("incorrect", 0.0, _expression_hint(got, expected))


def _expression_hint(got: ExpressionAnswer, expected: ExpressionAnswer) -> str:
    """Name a constant factor or offset between the two expressions when there is one."""
    pairs = value_pairs(got, expected)
    if len(pairs) >= MIN_AGREEING_POINTS:
        differences = [have - want for have, want in pairs]
        if all(nearly_equal(d, differences[0]) for d in differences):
            offset = format_number(differences[0])
            return f"your expression differs from the expected one by a constant ({offset})"
        if all(want != 0 for _, want in pairs):
            ratios = [have / want for have, want in pairs]
            if all(nearly_equal(r, ratios[0]) for r in ratios):
                return f"your expression is {format_number(ratios[0])}× the expected one"
    return "not equivalent to the expected expression"


_GRADERS: dict[str, Callable[[AnswerSpec, Any], _Outcome]] = {
    "number": _grade_number, "integer": _grade_number, "vector": _grade_array, "matrix": _grade_array,
    "shape": _grade_shape, "choice": _grade_choice, "multi": _grade_multi, "order": _grade_order, "bool": _grade_bool,
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
        word = clean(rating).casefold()
    except AnswerFormatError:
        word = ""
    word = _RATING_ALIASES.get(word, word)
    if word not in _RATINGS:
        return Verdict("invalid", 0.0, expected, "rate your answer: again, hard, good or easy (or 0–3)")
    verdict, score, feedback = _RATINGS[word]
    return Verdict(verdict, score, expected, feedback, None, word)

