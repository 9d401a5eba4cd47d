"""Grading typed answers: tolerances, misconceptions, partial credit, equivalence, totality."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzer.grading.match import values_match
from quizzer.grading.parse import MAX_ANSWER_CHARS
from quizzer.grading.tolerance import Tolerance, half_unit
from quizzer.grading.verdict import VERDICTS, AnswerSpec, Verdict, WrongAnswer, grade, self_grade

LETTERED = ("alpha", "beta", "gamma", "delta")


# ------------------------------------------------------------------------- tolerance

@pytest.mark.parametrize(("tolerance", "got", "expected", "accepted"), [
    # 0.0006987712 to 3 s.f. rounds to 0.000699: half a unit in the 3rd figure is 5e-7.
    (Tolerance(), 6.99e-4, 0.0006987712, True),
    (Tolerance(), 0.000699, 0.0006987712, True),
    (Tolerance(), 0.0006985, 0.0006987712, True),    # |error| = 2.7e-7 <= 5e-7
    (Tolerance(), 0.00070, 0.0006987712, False),     # |error| = 1.23e-6 > 5e-7: truly fails 3 s.f.
    (Tolerance(), 0.000698, 0.0006987712, False),    # |error| = 7.7e-7 > 5e-7
    (Tolerance(sig=2), 0.00070, 0.0006987712, True),  # to 2 s.f. it is 0.00070
    (Tolerance(sig=1), 0.0007, 0.0006987712, True),
    (Tolerance(sig=3), -0.000699, -0.0006987712, True),
    # large magnitudes: 4204032 to 3 s.f. is 4.20e6, half unit 5000
    (Tolerance(sig=3), 4.2e6, 4204032, True),
    (Tolerance(sig=3), 4.21e6, 4204032, False),
    (Tolerance(sig=4), 4.204e6, 4204032, True),
    (Tolerance(sig=4), 4.2e6, 4204032, False),
    # middle magnitudes and exact boundaries (0.125 → 0.12 or 0.13 at 2 s.f.)
    (Tolerance(sig=3), 123.0, 123.456, True),
    (Tolerance(sig=3), 124.0, 123.456, False),
    (Tolerance(sig=2), 0.13, 0.125, True),
    (Tolerance(sig=2), 0.12, 0.125, True),
    (Tolerance(sig=3), 10.0, 9.996, True),         # rounds up across a power of ten
    (Tolerance(sig=3), 1000.0, 1000.0, True),
    (Tolerance(sig=3), 1005.0, 1000.0, True),
    (Tolerance(sig=3), 1006.0, 1000.0, False),
    # relative and absolute; binary rounding never rejects the exact boundary
    (Tolerance(rel=0.01), 1.01, 1.0, True),
    (Tolerance(rel=0.01), 1.0101, 1.0, False),
    (Tolerance(abs=0.001), 0.501, 0.5, True),
    (Tolerance(abs=0.001), 0.5011, 0.5, False),
    (Tolerance(abs=0.0005), 0.0004, 0.0, True),
    # expected 0: significant figures cannot accept anything but 0
    (Tolerance(), 0.0, 0.0, True),
    (Tolerance(), 1e-12, 0.0, False),
    # any criterion accepting is enough
    (Tolerance(rel=0.001, abs=0.1), 1.05, 1.0, True),
    (Tolerance(rel=0.1, abs=0.001), 1.05, 1.0, True),
    (Tolerance(rel=0.001, abs=0.001), 1.05, 1.0, False),
    # non-finite never matches
    (Tolerance(), math.inf, math.inf, False),
    (Tolerance(abs=1.0), math.nan, 0.0, False),
])
def test_tolerance_accepts(tolerance: Tolerance, got: float, expected: float, accepted: bool) -> None:
    assert tolerance.accepts(got, expected) is accepted


def test_half_unit_uses_the_exact_leading_digit() -> None:
    assert half_unit(0.0006987712, 3) == pytest.approx(5e-7)
    assert half_unit(0.001, 3) == pytest.approx(5e-6)  # log10 rounding cannot shift it
    assert half_unit(999.9, 3) == pytest.approx(0.5)
    assert half_unit(0.0, 3) == 0.0


@pytest.mark.parametrize(("tolerance", "text"), [
    (Tolerance(), "to 3 significant figures"),
    (Tolerance(sig=1), "to 1 significant figure"),
    (Tolerance(rel=0.01), "within 1%"),
    (Tolerance(abs=0.001), "within ±0.001"),
    (Tolerance(rel=0.05, abs=0.5), "within 5% or within ±0.5"),
])
def test_tolerance_describe(tolerance: Tolerance, text: str) -> None:
    assert tolerance.describe() == text


def test_tolerance_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        Tolerance(sig=0)
    with pytest.raises(ValueError):
        Tolerance(rel=-0.1)


# ---------------------------------------------------------------------------- number

SDPA_SCALE = AnswerSpec(
    "number", 0.0006987712,
    wrong_answers=(WrongAnswer("forgot_sqrt", 0.006987712, "You forgot to divide by √d_k."),),
)


@pytest.mark.parametrize(("response", "verdict", "feedback", "misconception"), [
    ("6.99e-4", "correct", "correct", None),
    ("6.99×10^-4", "correct", "correct", None),
    ("0.000699", "correct", "correct", None),
    ("0.00699", "incorrect", "You forgot to divide by √d_k.", "forgot_sqrt"),
    ("0.00070", "incorrect", "close, but not to 3 significant figures", None),
    ("-0.000699", "incorrect", "right size, wrong sign", None),
    ("6.99e-5", "incorrect",
     "your answer is 1/10 of the expected value — check units and powers of ten", None),
    ("0.0699", "incorrect",
     "your answer is 100× the expected value — check units and powers of ten", None),
    ("0.5", "incorrect", "not the expected value (accepted to 3 significant figures)", None),
    ("0.000.699", "invalid", "could not read '0.000.699' as a number", None),
])
def test_number_grading(response: str, verdict: str, feedback: str, misconception: str | None) -> None:
    result = grade(SDPA_SCALE, response)
    assert (result.verdict, result.feedback, result.misconception) == (verdict, feedback, misconception)
    assert result.score == (1.0 if verdict == "correct" else 0.0)
    assert result.expected == "0.0006987712"


def test_number_reading_and_rel_tolerance() -> None:
    spec = AnswerSpec("number", 1 / (1 + math.exp(-1)), tolerance=Tolerance(rel=0.01))
    result = grade(spec, "e^2/(e^2+e)")
    assert (result.verdict, result.reading, result.expected) == ("correct", "0.7311", "0.7311")
    assert grade(spec, "0.735").verdict == "correct"  # 0.5% off
    assert grade(spec, "0.8").feedback == "close, but not within 1%"


def test_invalid_verdict_carries_the_parser_message() -> None:
    result = grade(SDPA_SCALE, "")
    assert result == Verdict("invalid", 0.0, "0.0006987712", "empty answer", None, None)
    assert grade(SDPA_SCALE, "1" * (MAX_ANSWER_CHARS + 1)).feedback == "answer is too long"


# --------------------------------------------------------------------------- integer

PARAMS = AnswerSpec(
    "integer", 18914304,
    wrong_answers=(WrongAnswer("forgot_biases", 18874368, "Count the biases too."),),
)


@pytest.mark.parametrize(("response", "verdict", "feedback"), [
    ("18914304", "correct", "correct"),
    ("18,914,304", "correct", "correct"),
    ("18 914 304", "correct", "correct"),
    ("1.8914304e7", "correct", "correct"),
    ("18874368", "incorrect", "Count the biases too."),
    ("18914305", "incorrect", "close: off by 1 (too large)"),
    ("18914000", "incorrect", "close: off by 304 (too small)"),
    ("189143040", "incorrect", "your answer is 10× the expected value — check units and powers of ten"),
    ("-18914304", "incorrect", "right size, wrong sign"),
    ("1.89e7", "incorrect", "close: off by 14,304 (too small)"),
    ("20000000", "incorrect", "not the expected value (whole numbers must be exact)"),
    ("18914304.5", "invalid", "expected a whole number, got 18914304.5"),
])
def test_integer_grading_is_exact(response: str, verdict: str, feedback: str) -> None:
    result = grade(PARAMS, response)
    assert (result.verdict, result.feedback) == (verdict, feedback)


def test_an_integer_reads_back_grouped_like_the_expected_count() -> None:
    """Issue 22: "You answered: 12424192" above "Expected: 12,293,120" made the two hard to compare."""
    typed = grade(AnswerSpec("integer", 12293120, expected_text="12,293,120"), "12424192")
    assert (typed.reading, typed.expected) == ("12,424,192", "12,293,120")
    assert grade(PARAMS, "18 914 304").reading == grade(PARAMS, "18914304").expected == "18,914,304"
    assert grade(AnswerSpec("integer", -512), "-512").reading == "-512"


def test_integer_ignores_any_tolerance_and_stays_exact_beyond_floats() -> None:
    spec = AnswerSpec("integer", 2**60 + 1, tolerance=Tolerance(rel=0.5))
    assert grade(spec, str(2**60 + 1)).verdict == "correct"
    assert grade(spec, str(2**60)).verdict == "incorrect"
    assert values_match("integer", 18914304, 18914304.0, Tolerance())
    assert not values_match("integer", 3.5, 3, Tolerance())


# --------------------------------------------------------------------- vector, matrix

WEIGHTS = AnswerSpec(
    "vector", np.array([0.5, 0.25, 0.125, 0.125]), tolerance=Tolerance(abs=0.0005),
    wrong_answers=(WrongAnswer("reversed", np.array([0.125, 0.125, 0.25, 0.5]), "Rows are queries."),
                   WrongAnswer("too_short", [0.5, 0.5], "Wrong length on purpose.")),
)


@pytest.mark.parametrize(("response", "verdict", "score", "feedback"), [
    ("[0.5, 0.25, 0.125, 0.125]", "correct", 1.0, "correct"),
    ("0.5 0.25 0.1252 0.1248", "correct", 1.0, "correct"),
    ("0.5 0.25 0.125 0.2", "partial", 0.75, "entry 4 is off; the entries sum to 1 (yours sum to 1.075)"),
    ("0.5 0.3 0.125 0.2", "partial", 0.5, "entries 2 and 4 are off; the entries sum to 1 (yours sum to 1.125)"),
    ("0.9 0.3 0.9 0.125", "partial", 0.25, "entries 1, 2 and 3 are off; the entries sum to 1 (yours sum to 2.225)"),
    ("1 1 1 1", "incorrect", 0.0, "none of the entries match; the entries sum to 1 (yours sum to 4)"),
    # weights (the expected entries are at least 0 and sum to 1): the quickest check, named
    ("0.5 0.75 -0.125 -0.125", "partial", 0.25,
     "entries 2, 3 and 4 are off; no entry can be negative (they are weights summing to 1)"),
    ("0.5 0.25 0.25 0", "partial", 0.5, "entries 3 and 4 are off"),  # sums to 1: nothing to add
    # matches a misconception as a whole, although entries 3 and 4 coincide with the answer
    ("0.125, 0.125, 0.25, 0.5", "incorrect", 0.0, "Rows are queries."),
    ("0.5 0.5", "incorrect", 0.0, "Wrong length on purpose."),
    ("0.5 0.25 0.125", "invalid", 0.0, "expected 4 numbers, got 3"),
    ("0.5 0.25 0.125 0.125 0", "invalid", 0.0, "expected 4 numbers, got 5"),
])
def test_vector_grading(response: str, verdict: str, score: float, feedback: str) -> None:
    result = grade(WEIGHTS, response)
    assert (result.verdict, result.score, result.feedback) == (verdict, score, feedback)
    assert result.expected == "[0.5, 0.25, 0.125, 0.125]"
    assert (result.reading is None) == (verdict == "invalid")


MATRIX = AnswerSpec(
    "matrix", [[1, 2, 3], [4, 5, 6]],
    wrong_answers=(WrongAnswer("transposed", [[1, 4], [2, 5], [3, 6]], "Rows are tokens."),),
)


@pytest.mark.parametrize(("response", "verdict", "score", "feedback"), [
    ("1 2 3; 4 5 6", "correct", 1.0, "correct"),
    ("[[1, 4], [2, 5], [3, 6]]", "incorrect", 0.0, "Rows are tokens."),  # another shape, still recognised
    ("1 2 3; 4 5 7", "partial", 5 / 6, "entry (2, 3) is off"),
    ("1 0 3; 0 5 6", "partial", 4 / 6, "entries (1, 2) and (2, 1) are off"),
    ("1 2; 3 4", "invalid", 0.0, "expected a 2×3 matrix, got 2×2"),
    ("1 4; 2 5; 3 7", "invalid", 0.0, "expected a 2×3 matrix, got 3×2"),  # of the other shape, but not the answer
    ("1 2 3; 4 5", "invalid", 0.0, "row 2 has 2 numbers, row 1 has 3"),
])
def test_matrix_grading(response: str, verdict: str, score: float, feedback: str) -> None:
    result = grade(MATRIX, response)
    assert (result.verdict, result.feedback) == (verdict, feedback)
    assert result.score == pytest.approx(score)


def test_a_transposed_answer_is_wrong_and_named_so_even_when_no_mistake_lists_it() -> None:
    """Worked out in the wrong orientation: wrong (and recorded), like a transposed square matrix, not
    unreadable (which a learner may simply retype); a listed mistake of that shape still names itself."""
    result = grade(AnswerSpec("matrix", [[1, 2, 3], [4, 5, 6]]), "[[1, 4], [2, 5], [3, 6]]")
    assert (result.verdict, result.score, result.misconception) == ("incorrect", 0.0, None)
    assert result.feedback == "this is the answer transposed: its rows are the answer's columns (the answer is 2×3)"
    assert grade(MATRIX, "[[1, 4], [2, 5], [3, 6]]").feedback == "Rows are tokens."

def test_a_shape_with_a_name_the_question_does_not_give_is_unread_and_named() -> None:
    spec = AnswerSpec("shape", (26, 12, 64), sizes={"B": 26, "T": 12, "d": 256, "h": 4, "d_k": 64})
    unknown = grade(spec, "[B, T, foo]")
    assert (unknown.verdict, unknown.score) == ("invalid", 0.0)
    assert unknown.feedback.startswith("'foo' is not a size this question names")
    assert grade(spec, "[B, T, d/h]").verdict == grade(spec, "[B, T, dₖ]").verdict == "correct"
    assert grade(spec, "[B, T, d]").feedback == "dimension 3 is off"  # a known size, the wrong one

def test_many_wrong_entries_are_summarised() -> None:
    spec = AnswerSpec("vector", np.arange(10.0))
    result = grade(spec, "0 " + " ".join(["99"] * 9))
    assert result.feedback == "entries 2, 3, 4, 5, 6, 7 and 3 more are off"


# ----------------------------------------------------------------------------- shape

CROSS_ATTENTION = AnswerSpec(
    "shape", ("B", "h", "T", "S"),
    wrong_answers=(WrongAnswer("rows_cols_swapped", "[B, h, S, T]", "Rows are queries."),),
)


@pytest.mark.parametrize(("response", "verdict", "feedback"), [
    ("[B, h, T, S]", "correct", "correct"),
    ("B x h x T x S", "correct", "correct"),
    ("[B, h, S, T]", "incorrect", "Rows are queries."),
    ("[h, B, T, S]", "incorrect", "right sizes, wrong order"),
    ("[B, T, S]", "incorrect", "expected 4 dimensions, got 3"),
    ("[B, h, T, T]", "incorrect", "dimension 4 is off"),
    ("[B, 8, T, T]", "incorrect", "dimensions 2 and 4 are off"),
    ("[B, h d, T, S]", "invalid", "could not read dimension 2 'h d': write products with *"),
])
def test_shape_grading(response: str, verdict: str, feedback: str) -> None:
    result = grade(CROSS_ATTENTION, response)
    assert (result.verdict, result.feedback) == (verdict, feedback)
    assert result.expected == "[B, h, T, S]"


@pytest.mark.parametrize(("response", "verdict"), [
    ("[B, T, h*d_v]", "correct"),
    ("[B, T, d_v*h]", "correct"),
    ("[B, T, d_v h]", "invalid"),
    ("B × T × (h)(d_v)", "correct"),
    ("[B, T, h + d_v]", "incorrect"),
    ("[B, T, 512]", "incorrect"),  # a number for a symbol: the symbol is not bound
])
def test_symbolic_dimensions_compare_as_expressions(response: str, verdict: str) -> None:
    assert grade(AnswerSpec("shape", ("B", "T", "h*d_v")), response).verdict == verdict


def test_numeric_shapes_and_numpy_expected_values() -> None:
    spec = AnswerSpec("shape", np.array([2, 4, 3, 5]))
    assert grade(spec, "2x4x3x5").verdict == "correct"
    assert grade(spec, "(2, 4, 5, 3)").feedback == "right sizes, wrong order"
    assert values_match("shape", ("d_model/h",), ["d_model / h"], Tolerance())
    assert not values_match("shape", ("d_model",), ["d_model / h"], Tolerance())


# --------------------------------------------------------------------- choice, multi

CHOICE = AnswerSpec(
    "choice", 2, options=LETTERED,
    wrong_answers=(WrongAnswer("teacher_forcing_no_shift", 1, "The inputs are shifted by one."),),
)


@pytest.mark.parametrize(("response", "verdict", "misconception", "reading"), [
    ("c", "correct", None, "(c) gamma"),
    ("gamma", "correct", None, "(c) gamma"),
    ("3", "correct", None, "(c) gamma"),
    ("b", "incorrect", "teacher_forcing_no_shift", "(b) beta"),
    ("a", "incorrect", None, "(a) alpha"),
    ("z", "invalid", None, None),
])
def test_choice_grading(response: str, verdict: str, misconception: str | None, reading: str | None) -> None:
    result = grade(CHOICE, response)
    assert (result.verdict, result.misconception, result.reading) == (verdict, misconception, reading)
    assert result.expected == "(c) gamma"


MULTI = AnswerSpec(
    "multi", frozenset({0, 2}), options=LETTERED,
    wrong_answers=(WrongAnswer("batch_norm_confusion", frozenset({1, 3}), "That describes BatchNorm."),),
)


@pytest.mark.parametrize(("response", "verdict", "score", "feedback"), [
    ("a, c", "correct", 1.0, "correct"),
    ("ca", "correct", 1.0, "correct"),
    # Right picks minus wrong picks over the two right options, never below 0.
    ("a", "partial", 0.5, "you missed (c)"),
    ("a, b", "incorrect", 0.0, "you missed (c); (b) should not be selected"),
    ("a c d", "partial", 0.5, "(d) should not be selected"),
    ("none", "incorrect", 0.0, "you missed (a) and (c)"),
    ("a b c d", "incorrect", 0.0, "(b) and (d) should not be selected"),
    ("b, d", "incorrect", 0.0, "That describes BatchNorm."),
    ("b", "incorrect", 0.0, "you missed (a) and (c); (b) should not be selected"),
])
def test_multi_grading(response: str, verdict: str, score: float, feedback: str) -> None:
    result = grade(MULTI, response)
    assert (result.verdict, result.score, result.feedback) == (verdict, score, feedback)


def test_multi_distractor_naming_a_mistake_explains_itself() -> None:
    # templates may name one distractor option (an index) as a misconception
    spec = AnswerSpec("multi", frozenset({0, 2}), options=LETTERED,
                      wrong_answers=(WrongAnswer("batchnorm_single_value", 3, "One value is its own mean."),))
    result = grade(spec, "a, c, d")
    assert (result.verdict, result.score, result.misconception) == ("partial", 0.5, "batchnorm_single_value")
    assert result.feedback == "(d) should not be selected — One value is its own mean."
    assert grade(spec, "d").misconception == "batchnorm_single_value"
    assert grade(spec, "a, b, c").misconception is None


def test_multi_all_wrong_is_incorrect() -> None:
    result = grade(AnswerSpec("multi", frozenset({0, 2}), options=LETTERED), "b d")
    assert (result.verdict, result.score) == ("incorrect", 0.0)
    assert result.feedback == "you missed (a) and (c); (b) and (d) should not be selected"


# ------------------------------------------------------------------------------ bool

@pytest.mark.parametrize(("expected", "response", "verdict", "misconception"), [
    (False, "no", "correct", None),
    ("False", "false", "correct", None),  # templates may carry the text "False"
    ("False", "yes", "incorrect", "heads_add_params"),
    (True, "y", "correct", None),
    (True, "perhaps", "invalid", None),
])
def test_bool_grading(expected: object, response: str, verdict: str, misconception: str | None) -> None:
    spec = AnswerSpec("bool", expected,
                      wrong_answers=(WrongAnswer("heads_add_params", True, "Heads split d_model."),)
                      if expected == "False" else ())
    result = grade(spec, response)
    assert (result.verdict, result.misconception) == (verdict, misconception)


# ------------------------------------------------------------------------ expression

LAYER = AnswerSpec(
    "expression", "4*d^2 + 2*d*f + f + 9*d", variables=("d", "f"),
    wrong_answers=(WrongAnswer("forgot_biases", "4*d^2 + 2*d*f + 4*d", "Biases add 4d and f + d."),),
)


@pytest.mark.parametrize(("response", "verdict", "feedback"), [
    ("4*d^2 + 2*d*f + f + 9*d", "correct", "correct"),
    ("4d^2 + 2df + f + 9d", "correct", "correct"),
    ("9d + f + 2*f*d + 4*d²", "correct", "correct"),
    ("d*(4*d + 2*f + 9) + f", "correct", "correct"),
    ("4*d^2 + 2*d*f + 4*d", "incorrect", "Biases add 4d and f + d."),
    ("2*d*f + 4*d + 4*d*d", "incorrect", "Biases add 4d and f + d."),
    ("4*d^2 + 2*d*f + f + 9*d + 1", "incorrect",
     "your expression differs from the expected one by a constant (1)"),
    ("2*(4*d^2 + 2*d*f + f + 9*d)", "incorrect", "your expression is 2× the expected one"),
    ("4*d^2 + 2*d*f", "incorrect", "not equivalent to the expected expression"),
    ("4*x^2", "invalid", "unknown name 'x' (variables: d, f)"),
])
def test_expression_grading(response: str, verdict: str, feedback: str) -> None:
    result = grade(LAYER, response)
    assert (result.verdict, result.feedback) == (verdict, feedback)


@pytest.mark.parametrize(("got", "expected", "equivalent"), [
    ("e^2/(e^2+e)", "1/(1+e^-1)", True),
    ("2*d*f+f+d", "d + f + 2*f*d", True),
    ("sqrt(d_k)", "d_k^0.5", True),
    ("log(exp(d))", "d", True),
    ("(d+f)^2", "d^2 + f^2", False),
    ("e^2/(e^2+e)", "1/(1+e)", False),
    ("d", "d + 1e-6", False),
])
def test_expression_equivalence(got: str, expected: str, equivalent: bool) -> None:
    assert values_match("expression", got, expected, Tolerance()) is equivalent
    assert values_match("expression", expected, got, Tolerance()) is equivalent


def test_constant_expression_spec() -> None:
    spec = AnswerSpec("expression", "e^2/(e^2+e)")
    assert grade(spec, "1/(1+e^-1)").verdict == "correct"
    assert grade(spec, "1/(1+e)").verdict == "incorrect"


def test_points_where_the_answer_is_undefined_are_skipped() -> None:
    # the expected 2*log(d - 1) is undefined for d < 1, where log((d - 1)^2) is not
    assert values_match("expression", "log((d - 1)^2)", "2*log(d - 1)", Tolerance())
    # ...but a response undefined where the answer is defined is not equivalent
    assert not values_match("expression", "sqrt(d - 2)^2 + 2", "d", Tolerance())


def test_equivalence_is_deterministic_across_calls() -> None:
    results = {values_match("expression", "d*f", "f*d", Tolerance()) for _ in range(5)}
    assert results == {True}


# ------------------------------------------------------------------- text, self-grade

MODEL = AnswerSpec("text", "softmax(QK^T / sqrt(d_k)) V")


@pytest.mark.parametrize(("rating", "verdict", "score"), [
    ("again", "incorrect", 0.0), ("hard", "partial", 0.5), ("good", "correct", 1.0),
    ("easy", "correct", 1.0), ("Easy", "correct", 1.0), ("1", "incorrect", 0.0), ("2", "partial", 0.5),
    ("3", "correct", 1.0), ("4", "correct", 1.0), ("0", "invalid", 0.0), ("5", "invalid", 0.0),
    ("great", "invalid", 0.0), ("", "invalid", 0.0),
])
def test_self_grade(rating: str, verdict: str, score: float) -> None:
    result = self_grade(MODEL, rating)
    assert (result.verdict, result.score) == (verdict, score)
    assert result.expected == "softmax(QK^T / sqrt(d_k)) V"


def test_a_numbered_rating_means_what_the_apps_key_of_that_number_does() -> None:
    """Found by a tester: the app's keys are 1 again … 4 easy, but `quizzer grade --answer 1` recorded "hard"."""
    from quizzer.tui.widgets.recall_box import RATINGS

    assert [self_grade(MODEL, str(number)).reading for number in range(1, 5)] == list(RATINGS)


def test_grading_a_text_answer_takes_the_response_as_the_rating() -> None:
    assert grade(MODEL, "good").verdict == "correct"
    assert grade(MODEL, "attention is all you need").feedback == (
        "rate your answer: again, hard, good or easy (or 1–4)")


# ----------------------------------------------------------------------- values_match

def test_values_match_distinguishes_misconceptions_from_answers() -> None:
    assert values_match("number", 0.000699, 0.0006987712, Tolerance())
    assert not values_match("number", 0.00699, 0.0006987712, Tolerance())
    assert values_match("vector", [0.5, 1], np.array([0.5, 1.0]), Tolerance())
    assert not values_match("vector", [0.5, 1], [0.5, 1, 0], Tolerance())
    assert values_match("matrix", [[1, 0], [0, 1]], np.eye(2), Tolerance())
    assert values_match("choice", 1, 1, Tolerance())
    assert values_match("multi", {0, 2}, frozenset({2, 0}), Tolerance())
    assert values_match("bool", False, "False", Tolerance())
    assert values_match("text", "Soft  max", "soft max", Tolerance())
    with pytest.raises(ValueError):
        values_match("essay", 1, 1, Tolerance())


# ------------------------------------------------------------------------------ fuzz

SPECS = {
    "number": SDPA_SCALE,
    "integer": PARAMS,
    "vector": WEIGHTS,
    "matrix": MATRIX,
    "shape": CROSS_ATTENTION,
    "symbolic-shape": AnswerSpec("shape", ("B", "T", "h*d_v")),
    "choice": CHOICE,
    "numeric-choice": AnswerSpec("choice", 1, options=("0.5", "0.250", "1", "2")),
    "multi": MULTI,
    "letter-multi": AnswerSpec("multi", frozenset({0}), options=("T", "B", "S")),
    "bool": AnswerSpec("bool", True, wrong_answers=(WrongAnswer("m", False, "no"),)),
    "expression": LAYER,
    "constant-expression": AnswerSpec("expression", "e^2/(e^2+e)"),
    "text": MODEL,
}

PIECES = [
    "0", "1", "2", "9", "10", "0.5", ".5", "4.2e6", "1e308", "1e-320", "4,204,032", "1 000", "1,5", "e", "pi", "π",
    "d", "f", "d_k", "B", "T", "h", "x", "X", "×", "·", "÷", "^", "**", "*", "/", "//", "%", "+", "-", "−", "√",
    "²", "⁻¹", "(", ")", "[", "]", "{", "}", ",", ";", " ", "\n", "\t", "sqrt", "ln", "log", "exp", "max", "abs",
    "a", "b", "c", "and", "none", "yes", "true", "good", "np.array(", "torch.Size(", "_", ".", "=", "'", '"',
    "lambda", "__import__", "1j", "0x1f", "inf", "nan", "\u00a0", "\u200b", "\ud800", "½", "1½", "𝜋", "٣",
]
texts = st.one_of(
    st.text(max_size=80),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
    st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
    st.tuples(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join),
              st.integers(100, 900)).map(lambda pair: pair[0] * pair[1]),  # very long answers
    st.integers(1, 60).map(lambda depth: "(" * depth + "1" + ")" * depth),
    st.integers(1, 1200).map(lambda n: "-" * n + "1"),
    st.integers(1, 700).map(lambda n: "+".join(["1"] * n)),
)


@pytest.mark.parametrize("name", list(SPECS))
@settings(max_examples=220, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(response=texts)
def test_grade_is_total(name: str, response: str) -> None:
    result = grade(SPECS[name], response)
    assert isinstance(result, Verdict)
    assert result.verdict in VERDICTS
    assert 0.0 <= result.score <= 1.0
    assert isinstance(result.feedback, str) and result.feedback
    assert isinstance(result.expected, str)
    if result.verdict == "invalid":
        assert result.score == 0.0 and result.reading is None
    if result.verdict == "correct":
        assert result.score == 1.0
