"""Compare a typed answer with the expected one and say, kindly, what was right or wrong.

:func:`grade` is total over all strings: text that cannot be read gives an ``invalid``
verdict (never counted as an attempt) carrying the parser's message.  The scoring rules are
those of ``questions/README.md`` ("Scoring rules"), and they are all here: each kind's grader
scores the answer on its own merits, and only then is a wrong answer checked against the
question's misconceptions — wrong answers computed under one named mistake — so the student
hears about the mistake they most likely made.  A recognised mistake adds its feedback and
its id; it never changes the score.  Sameness is
:func:`~quizzer.grading.match.values_match`; the feedback hints (sign, power of ten,
entries off, constant factor) are :mod:`quizzer.grading.hints`'s, chosen here.

Over 400 lines on purpose: every kind's scoring rule sits beside the others, in the order of the
scoring table they implement, so that a change to one is read against all; how the expected answer
is written (``expected_text``, ``asked_text``) stays with them because the precision it is written
to is the precision the number graders hold an answer to.  What is not a scoring rule lives beside
it: reading (``parse``), sameness (``match``), the feedback's hints (``hints``), digits typed
(``digits``) and the precision rule's arithmetic (``tolerance``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any

import msgspec
import numpy as np

from quizzer.grading.budget import MAX_ANSWER_STEPS, Budget, shared_budget
from quizzer.grading.describe import describe, format_number, option_letter
from quizzer.grading.digits import typed_digits
from quizzer.grading.expr import ExprError
from quizzer.grading.hints import (
    entry_positions,
    expression_hint,
    fewer_digits_hint,
    number_hint,
    positions_off,
    precision_hint,
)
from quizzer.grading.match import (
    as_bool,
    elementwise,
    equivalent,
    is_discrete,
    is_permutation,
    same_dim,
    selection,
    shapes_match,
    single_option,
    values_match,
)
from quizzer.grading.ordering import examined_pair_inverted, order_feedback, order_score
from quizzer.grading.parse import parse
from quizzer.grading.readers import Dim, as_shape, check_length, check_shape, read_expression
from quizzer.grading.tolerance import Digits, Precision, Shortfall, Tolerance, rounded, short_of_precision
from quizzer.grading.typed import AnswerFormatError, ExpressionAnswer, clean, quote
from quizzer.text.mathtext import code_span

VERDICTS = ("correct", "incorrect", "partial", "invalid")
# The version of the scoring rules.  Raise it with any change that can change a stored score, verdict
# or misconception: every bank then regrades its attempts once (quizzer.learning.regrade).
# 1: until 2026-12; 2: select-all right-minus-wrong, mistakes never cost credit, discrete answers exact.
# 3: wrong answers matching no listed misconception may be named by a discovered engine slip.
# 4: a number right to the digits it gives but short of the precision the prompt asks earns
#    PRECISION_CREDIT (each such entry of a vector or matrix half an entry), named as no mistake.
# 5: an order that inverts a pair of steps its question examines (the template's must_precede) scores 0.
# 6: entries a vector or matrix question gives away (given_entries) earn no partial credit; masks and token
#    sequences (partial_credit: false) are all or nothing; a part that the learner's own earlier values make
#    zero earns no follow-through (what an answer of zeros would get).
# 7: nor does a part worked from an earlier answer that is one number repeated (a row of zeros: its softmax
#    is uniform, a teacher's chain paid 3.7 of 6 marks for zeros and their averages).
# 8: a square matrix typed transposed scores 0, as a transposed matrix of another shape already did (its shared
#    diagonal kept half the marks of a transposed rotation R(k)).
# 9: the precision a prompt asks is the tolerance: within a unit in its last place of the answer rounded to it
#    (it was each template's own tolerance, ±½ unit to ±5), half credit for one place fewer.
RULES_VERSION = 9
PRECISION_CREDIT = 0.5


class WrongAnswer(msgspec.Struct, frozen=True):
    """A misconception: a wrong answer computed under one named mistake (``id`` None: a
    choice distractor that has feedback of its own but names no catalogued mistake)."""

    id: str | None
    value: Any              # same type as the expected value (choice/multi: index / frozenset of indices)
    feedback: str


class AnswerSpec(msgspec.Struct, frozen=True):
    """What a question expects and how to grade it."""

    kind: str               # number integer vector matrix shape choice multi order bool expression text
    expected: Any
    tolerance: Tolerance = Tolerance()
    options: tuple[str, ...] = ()          # choice/multi/order displayed texts, displayed order
    variables: tuple[str, ...] = ()        # expression kind
    wrong_answers: tuple[WrongAnswer, ...] = ()
    expected_text: str | None = None       # how the question displays its answer, when it decides that itself
    precision: Precision | None = None     # number/vector/matrix: what the prompt asks ("to 4 decimal places")
    sizes: Mapping[str, int] = msgspec.field(default_factory=dict)  # shape kind: the question's named sizes (T = 31)
    must_precede: tuple[tuple[int, int], ...] = ()  # order kind: examined pairs of step numbers (see ordering)
    # vector/matrix: a boolean array of the answer's shape, true for each entry the prompt gives away (a
    # blocked key's weight 0, the BOS id); those earn no partial credit (_grade_array).  None: no entry is.
    given: Any = None
    partial_credit: bool = True  # vector/matrix: false grades all or nothing (a mask, token ids)
    units: tuple[str, ...] = ()  # number/integer: the units the prompt names, which a typed answer may carry
    # Further wrong answers, asked for only when an answer matches none of `wrong_answers`: the
    # template's answer recomputed under each engine slip (quizzer.templates.discovery), lazily.
    discover: Callable[[AnswerSpec], tuple[WrongAnswer, ...]] | None = None


class Verdict(msgspec.Struct, frozen=True):
    """The outcome of grading one response."""

    verdict: str            # "correct" | "incorrect" | "partial" | "invalid"
    score: float            # in [0, 1]
    expected: str           # the expected answer as display text
    feedback: str
    misconception: str | None = None
    reading: str | None = None   # how the response was read; None when invalid
    typed: str | None = None     # an expression's response as typed (its reading is maths: BhT(T+1)/2)

    @property
    def answered(self) -> str:
        """The response as shown back to the student: as read, and an expression also as typed, in a
        code span (``BhT(T+1)/2 (typed `B*h*T*(T+1)/2`)``), so Markdown never eats its stars."""
        reading = self.reading or ""
        return f"{reading} (typed {code_span(self.typed)})" if self.typed and self.typed != reading else reading

    @property
    def note(self) -> str:
        """The grader's note to show under the verdict line: the feedback, unless it only repeats the
        verdict (a right answer's feedback is the bare word "correct"; a right one typed with fewer digits
        than the prompt asks, or right on a value carried forward, says so)."""
        return self.feedback if self.feedback != self.verdict else ""

    def to_json(self, key: str, seed: int, *, recorded: bool) -> dict[str, Any]:
        """The fields `quizzer grade --json` prints for one graded answer (batch results add line and learner)."""
        return {"key": key, "seed": seed, "verdict": self.verdict, "score": self.score, "expected": self.expected,
                "feedback": self.feedback, "misconception": self.misconception, "reading": self.reading,
                "recorded": recorded}


class _Outcome(msgspec.Struct, frozen=True):
    """A grader's judgement, before the display texts are added."""

    verdict: str
    score: float
    feedback: str
    misconception: str | None = None
    short: bool = False   # right but short of the asked precision: no mistake to name


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
    grader = _GRADERS[spec.kind]
    outcome = _name_mistake(spec, got, grader(spec, got, typed_digits(spec.kind, response)) if spec.precision
                            and spec.kind in _PRECISE else grader(spec, got))
    reading = None if outcome.verdict == "invalid" else _describe(spec, got)
    typed = clean(response) if spec.kind == "expression" and reading is not None else None
    return Verdict(outcome.verdict, outcome.score, expected, outcome.feedback, outcome.misconception, reading, typed)


def expected_text(spec: AnswerSpec) -> str:
    """The expected answer as the student will see it: to the precision the prompt asks for, if it asks."""
    if spec.kind == "expression":  # shown as maths, as the student's own answer is
        return _describe(spec, read_expression(spec.expected, spec.variables))
    asked = asked_text(spec.kind, spec.expected, spec.precision, spec.given)
    if asked is not None:
        return asked
    if spec.expected_text is not None:
        return spec.expected_text
    return _describe(spec, _expected_value(spec))


def asked_text(kind: str, expected: Any, asked: Precision | None, given: np.ndarray | None = None) -> str | None:
    """The expected number(s) written to the precision the prompt asks for, zeros kept, as the learner was to
    type them: ``2.24`` for "Give 2 decimals" (not the tolerance's ``2.245``), ``0.00140`` for 3 figures.  None
    when nothing is asked, or for whole numbers (token ids, masks: written as they are), except a number that the
    precision asked rounds: a step count of 8,192,000 asked to 3 significant figures is written 8190000, the
    value the rule grades against, never beside it.  An entry the prompt gives away (``given``: a blocked key's
    weight) is written exactly as given, ``0`` among ``0.7311``, as every export prints it."""
    if asked is None or kind not in ("number", "vector", "matrix"):
        return None
    whole = np.asarray(expected, dtype=float)
    if is_discrete(whole) and (kind != "number" or rounded(float(whole), asked) == float(whole)):
        return None

    def one(value: float) -> str:
        text = f"{value:.{asked.digits}f}" if asked.unit == "decimals" else f"{value:#.{asked.digits}g}".rstrip(".")
        if "e" in text:  # 5.00e+04, a step count: never in scientific notation, written out (50000, 0.0000175)
            text = f"{Decimal(text):f}"
        return text.lstrip("-") if float(text) == 0 else text  # never "-0.0000"

    values = np.asarray(expected, dtype=float)
    if kind == "number":
        return one(float(values))
    printed = np.atleast_2d(np.zeros(values.shape, dtype=bool) if given is None else np.asarray(given, dtype=bool))
    rows = ["[" + ", ".join(format_number(float(v)) if as_given else one(float(v))
                            for v, as_given in zip(row, printed_row, strict=True)) + "]"
            for row, printed_row in zip(np.atleast_2d(values), printed, strict=True)]
    return rows[0] if kind == "vector" else "[" + ", ".join(rows) + "]"


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
    if spec.kind in ("number", "integer"):
        return {"units": spec.units}
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
    if outcome.verdict == "correct" or outcome.misconception or outcome.short:
        return outcome
    wrong = _find_misconception(spec, got)
    if wrong is None:
        return outcome
    if outcome.verdict == "invalid":
        return _Outcome("incorrect", 0.0, wrong.feedback, wrong.id)
    feedback = wrong.feedback if outcome.verdict == "incorrect" else f"{wrong.feedback} ({outcome.feedback})"
    return msgspec.structs.replace(outcome, feedback=feedback or outcome.feedback, misconception=wrong.id)


_PRECISE = ("number", "vector", "matrix")  # the kinds a prompt may ask a precision of


def _grade_number(spec: AnswerSpec, got: Any, digits: Sequence[Digits | None] = ()) -> _Outcome:
    if values_match(spec.kind, got, spec.expected, spec.tolerance):
        return _correct(spec, digits, [spec.expected])
    short = _shortfall(spec, digits[0] if len(digits) == 1 else None, got, spec.expected)
    if short is not None and spec.precision is not None:
        hint = precision_hint(short.given, spec.precision, credited=short.credited)
        # Only a credited shortfall is sure to be a rounding; a rough one may still be a known mistake.
        return _Outcome("partial", PRECISION_CREDIT, hint, short=True) if short.credited else \
            _Outcome("incorrect", 0.0, hint)
    return _Outcome("incorrect", 0.0, number_hint(spec.kind, spec.tolerance, got, spec.expected))


def _correct(spec: AnswerSpec, digits: Sequence[Digits | None], expected: Sequence[Any]) -> _Outcome:
    """Right; with a note when a non-whole entry was typed with fewer digits than the prompt asks (the
    tolerance may accept a coarser rounding than the prompt asks for: the score stays 1)."""
    asked = spec.precision
    if asked is None or len(digits) != len(expected):
        return _CORRECT
    given = [count for d, want in zip(digits, expected, strict=True)
             if d is not None and not _whole(float(want))
             and not _all_digits(count := d.decimals if asked.unit == "decimals" else d.sig, float(want), asked)]
    if not given or min(given) >= asked.digits:
        return _CORRECT
    return _Outcome("correct", 1.0, fewer_digits_hint(min(given), asked))


def _all_digits(given: int, want: float, asked: Precision) -> bool:
    """Whether ``given`` digits already hold every digit of ``want`` the precision asked has: 5.4 typed for 5.4
    asked to 2 decimals (5.40) is short of nothing, and no note says it is."""
    return given >= asked.digits or (given >= (0 if asked.unit == "decimals" else 1)
                                     and rounded(want, Precision(given, asked.unit)) == rounded(want, asked))


def _whole(value: float) -> bool:
    """A whole number, give or take float rounding: 1 / (512 × 0.0001397…²) computes 49999.99999999999
    where the step is 50000, and a learner typing 50000 has typed every digit there is."""
    return math.isfinite(value) and abs(value - round(value)) <= 1e-9 * max(1.0, abs(value))


def _shortfall(spec: AnswerSpec, typed: Digits | None, got: Any, expected: Any) -> Shortfall | None:
    """How a wrong number falls short of the asked precision while right to the digits it gives, if it does."""
    if spec.precision is None or typed is None or spec.kind == "integer":
        return None
    return short_of_precision(typed, got, expected, spec.precision)


def _grade_array(spec: AnswerSpec, got: np.ndarray, digits: Sequence[Digits | None] = ()) -> _Outcome:
    expected = _expected_value(spec)
    if values_match(spec.kind, got, expected, spec.tolerance):
        return _correct(spec, digits, list(np.ravel(expected)))
    try:  # unreadable unless it names a mistake: see _name_mistake
        if spec.kind == "vector":
            check_length(got, len(expected))
        else:
            check_shape(got, expected.shape)
    except AnswerFormatError as exc:
        if spec.kind == "matrix" and got.shape == expected.shape[::-1] and values_match(
                spec.kind, got.T, expected, spec.tolerance):
            # Worked out, in the wrong orientation (K Qᵀ for Q Kᵀ): a wrong answer, as a transposed
            # square matrix is, not an unreadable one.
            rows, cols = expected.shape
            return _Outcome("incorrect", 0.0, f"this is the answer transposed: its rows are the answer's columns "
                            f"(the answer is {rows}×{cols})")
        return _Outcome("invalid", 0.0, str(exc))
    if spec.kind == "matrix" and _transposed(spec, got, expected):
        return _Outcome("incorrect", 0.0, "this is the answer transposed: its rows are the answer's columns")
    right = elementwise(spec.tolerance, got, expected)
    discrete = is_discrete(expected)  # whole-number answers are exact: there is no precision to fall short of
    typed = list(digits) if len(digits) == right.size and not discrete else [None] * right.size
    shortfalls = [None if ok else _shortfall(spec, entry, have, want)
                  for ok, entry, have, want in zip(right.flat, typed, got.flat, expected.flat, strict=True)]
    short = np.array([s is not None for s in shortfalls]).reshape(right.shape)
    credited = np.array([s is not None and s.credited for s in shortfalls]).reshape(right.shape)
    off = ~right & ~short
    whole = " (every entry is a whole number)" if discrete and not is_discrete(got) else ""
    score = _entries_score(right + PRECISION_CREDIT * credited, off, spec)
    precision = ""
    if short.any() and spec.precision is not None:
        counted = [s for s in shortfalls if s is not None and (s.credited or not credited.any())]
        rough = entry_positions(short & ~credited)
        precision = precision_hint(min(s.given for s in counted), spec.precision, credited=bool(credited.any()),
                                   rough=rough if credited.any() else ())
    if not off.any():
        return _Outcome("partial" if score else "incorrect", score, precision, short=bool(credited.any()))
    weights = _weights_hint(got, expected)
    if not right.any() and not short.any():
        return _Outcome("incorrect", 0.0, f"none of the entries match{whole}{weights}")
    wrong_positions = entry_positions(off)
    others = f"; the others are {precision}" if precision else ""
    return _Outcome("partial" if score else "incorrect", score,
                    positions_off(wrong_positions) + whole + others + weights)


def _transposed(spec: AnswerSpec, got: np.ndarray, expected: np.ndarray) -> bool:
    """A square answer typed transposed (Rᵀ for R, K Qᵀ for Q Kᵀ): worked in the wrong orientation, so scored
    as a transposed answer of another shape is, 0; its diagonal, shared with the answer, earns nothing."""
    return expected.shape[0] == expected.shape[1] > 1 and values_match(spec.kind, got.T, expected, spec.tolerance) \
        and not values_match(spec.kind, expected.T, expected, spec.tolerance)


def _weights_hint(got: np.ndarray, expected: np.ndarray) -> str:
    """Where the answer is a row of weights (softmax, attention: each row at least 0 and summing to 1) and the
    learner's is not: say so, the quickest check there is (zeros typed for a masked row sum to 0)."""
    rows, theirs = np.atleast_2d(expected), np.atleast_2d(got)
    if expected.size < 2 or is_discrete(expected) or (rows < 0).any() or not np.allclose(rows.sum(axis=1), 1.0):
        return ""
    if (theirs < 0).any():
        return "; no entry can be negative (they are weights summing to 1)"
    sums = theirs.sum(axis=1)
    off_rows = [i + 1 for i, total in enumerate(sums) if abs(total - 1.0) > 0.01]
    if not off_rows:
        return ""
    if expected.ndim == 1:
        return f"; the entries sum to 1 (yours sum to {format_number(sums[0], 3)})"
    yours = ", ".join(f"row {row} sums to {format_number(sums[row - 1], 3)}" for row in off_rows[:3])
    return f"; each row sums to 1 (yours: {yours}{', …' if len(off_rows) > 3 else ''})"


def _entries_score(earned: np.ndarray, off: np.ndarray, spec: AnswerSpec) -> float:
    """The share of the entries earned (none unless all, without partial credit).  Entries the prompt gives
    away (``spec.given``) earn nothing, and each of them typed wrong costs one entry's worth: typing zeros
    where a mask blocks keys is not half an answer."""
    if not spec.partial_credit:
        return float(earned.min())  # whole-number entries, exact: 1 when every one is right, else 0
    given = spec.given
    if given is None:
        return float(earned.mean())
    free = ~given
    return max(0.0, float(earned[free].sum()) - int((off & given).sum())) / int(free.sum())


def _grade_shape(spec: AnswerSpec, got: tuple[Dim, ...]) -> _Outcome:
    expected = _expected_value(spec)
    if shapes_match(got, expected, spec.sizes):
        return _CORRECT
    unknown = _unknown_names(got, expected, spec.sizes)
    if unknown:  # a size it cannot judge: unread, not wrong ("[B, T, foo]")
        return _Outcome("invalid", 0.0, f"{quote(unknown)} is not a size this question names: write the size as "
                        "a number, or with the names the question gives its sizes")
    if len(got) != len(expected):
        return _Outcome("incorrect", 0.0, f"expected {len(expected)} dimensions, got {len(got)}")
    if is_permutation(got, expected, spec.sizes):
        return _Outcome("incorrect", 0.0, "right sizes, wrong order")
    pairs = enumerate(zip(got, expected, strict=True), start=1)
    off = [(position,) for position, (dim, want) in pairs if not same_dim(dim, want, spec.sizes)]
    return _Outcome("incorrect", 0.0, positions_off(off, ("dimension", "dimensions")))


def _unknown_names(got: Sequence[Dim], expected: Sequence[Dim], sizes: Mapping[str, int]) -> str | None:
    """The first name in a typed shape that is neither one of the question's sizes nor in its answer."""
    known = set(sizes) | {name for dim in expected if isinstance(dim, str) for name in read_expression(dim).variables}
    for dim in got:
        if isinstance(dim, str):
            with contextlib.suppress(AnswerFormatError, ExprError):
                unknown = sorted(set(read_expression(dim).variables) - known)
                if unknown:
                    return unknown[0]
    return None


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
    feedback = order_feedback(got, spec.expected)
    inverted = examined_pair_inverted(got, spec.expected, spec.must_precede)
    if inverted is not None:
        before, after = (option_letter(spec.expected[step - 1]) for step in inverted)
        return _Outcome("incorrect", 0.0, f"step {before} must come before step {after}, the order this question "
                        f"examines; {feedback}")
    score = order_score(got, spec.expected)  # pairs right minus pairs inverted: see quizzer.grading.ordering
    return _Outcome("partial" if score > 0 else "incorrect", score, feedback)


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
    return _Outcome("incorrect", 0.0, expression_hint(got, expected))


_GRADERS: dict[str, Callable[..., _Outcome]] = {
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
# In the order they are numbered, 1 again … 4 easy: the app's keys, Anki's buttons and FSRS's ratings.
RATINGS = tuple(_RATINGS)
_RATING_ALIASES = {str(number): word for number, word in enumerate(RATINGS, 1)} | {word[0]: word for word in RATINGS}


def rating_named(text: str) -> str | None:
    """The rating a typed self-rating names: ``again``, ``hard``, ``good`` or ``easy``, from the word,
    its first letter or its number 1–4; None when it names none."""
    try:
        word = clean(text).casefold()
    except AnswerFormatError:
        return None
    word = _RATING_ALIASES.get(word, word)
    return word if word in _RATINGS else None


def self_grade(spec: AnswerSpec, rating: str) -> Verdict:
    """A text answer rated by the student: again / hard / good / easy (or 1–4)."""
    expected = str(spec.expected)
    word = rating_named(rating)
    if word is None:
        return Verdict("invalid", 0.0, expected, "rate your answer: again, hard, good or easy (or 1–4)")
    verdict, score, feedback = _RATINGS[word]
    return Verdict(verdict, score, expected, feedback, None, word)

