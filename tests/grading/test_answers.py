"""Reading typed answers: every accepted form per kind, the important rejections, previews."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizzer.grading import readers
from quizzer.grading.describe import describe
from quizzer.grading.parse import parse
from quizzer.grading.typed import AnswerFormatError

E = math.e
OPTIONS = ("softmax", "0.250", "layer norm", "[B, T, 64]")
LETTERED = ("alpha", "beta", "gamma", "delta")


def _case(text: str, value: object, name: str | None = None) -> object:
    return pytest.param(text, value, id=name or text)


# ---------------------------------------------------------------------------- number

NUMBER_FORMS = [
    _case("4204032", 4204032),
    _case("4,204,032", 4204032),
    _case("4 204 032", 4204032),
    _case("4\u202f204\u202f032", 4204032, "narrow-nbsp-thousands"),
    _case("4.204032e6", 4204032.0),
    _case("4.204032E6", 4204032.0),
    _case("4.204032×10^6", 4204032.0),
    _case("4.204032 x 10^6", 4204032.0),
    _case("4.204032x10^6", 4204032.0),
    _case("4.204032*10^6", 4204032.0),
    _case("4.204032 * 10**6", 4204032.0),
    _case("4.204032·10⁶", 4204032.0),
    _case("6.99×10^-4", 6.99e-4),
    _case("6.99×10^(−4)", 6.99e-4),
    _case("10^6", 1000000),
    _case("1/2", 0.5),
    _case("-0.25", -0.25),
    _case("−0.25", -0.25, "unicode-minus"),
    _case("–0.25", -0.25, "en-dash"),
    _case("sqrt(3/2)", math.sqrt(3 / 2)),
    _case("√(3/2)", math.sqrt(3 / 2)),
    _case("√2/2", math.sqrt(2) / 2),
    _case("1/√2", 1 / math.sqrt(2)),
    _case("1/sqrt(2)", 1 / math.sqrt(2)),
    _case("e^2/(e^2+e)", E**2 / (E**2 + E)),
    _case("1/(1+e^-1)", 1 / (1 + E**-1)),
    _case("2^-0.5", 2**-0.5),
    _case("2⁻¹", 0.5),
    _case("3²", 9),
    _case(".5", 0.5),
    _case("+3", 3),
    _case("e", E),
    _case("2e", 2 * E, "2e-is-2-times-e"),
    _case("π/4", math.pi / 4),
    _case("2π", 2 * math.pi),
    _case("pi", math.pi),
    _case("ln(2)", math.log(2)),
    _case("log2(8)", 3.0),
    _case("log10(1000)", 3.0),
    _case("exp(1)", E),
    _case("tanh(0.5)", math.tanh(0.5)),
    _case("sin(0)+cos(0)+tan(0)", 1.0),
    _case("abs(-2)", 2),
    _case("max(1, 2) - min(3, 4)", -1),
    _case("3 × 4", 12),
    _case("6 ÷ 4", 1.5),
    _case("2·3", 6),
    _case("2(3+1)", 8, "implicit-product-bracket"),
    _case("(1+2)(3+4)", 21),
    _case("25%", 0.25),
    _case("12.5 %", 0.125),
    _case("0.5.", 0.5, "trailing-full-stop"),
    _case("  0.5  ", 0.5, "surrounding-space"),
    _case("\u00a00.5\u3000", 0.5, "nbsp-and-fullwidth-space"),
    _case("０.５", 0.5, "fullwidth-digits"),
    _case("≈ 0.7311", 0.7311),
    _case("p = 0.7311", 0.7311, "named"),
    _case("d_k ≈ 0.7311", 0.7311, "named-with-subscript"),
    _case("½", 0.5),
    _case("SQRT(4)", 2.0),
]


@pytest.mark.parametrize(("text", "value"), NUMBER_FORMS)
def test_number_forms(text: str, value: float) -> None:
    parsed = parse("number", text)
    assert parsed == value
    assert type(parsed) is type(value)


NUMBER_ERRORS = [
    _case("", "empty answer", "empty"),
    _case("   ", "empty answer", "blank"),
    _case("4.2.1", "could not read '4.2.1' as a number"),
    _case("1,5", "could not read '1,5' as a number: use a point for decimals (1.5)"),
    _case("0,25", "could not read '0,25' as a number: use a point for decimals (0.25)"),
    _case("1,2345", "could not read '1,2345' as a number: use a point for decimals (1.2345)"),
    _case("x", "unknown name 'x' (a number may use pi and e)"),
    _case("sqr(2)", "unknown function 'sqr' (did you mean 'sqrt'?)"),
    _case("sqrt", "'sqrt' is a function: write sqrt(…)"),
    _case("1/0", "could not work out '1/0': division by zero"),
    _case("sqrt(-1)", "could not work out 'sqrt(-1)': sqrt(): math domain error"),
    _case("(-8)^(1/3)", "could not work out '(-8)^(1/3)': the result is not a real number"),
    _case("1e400", "the number is too large"),
    _case("10^400", "the number is too large"),
    _case("exp(1000)", "could not work out 'exp(1000)': exp(): math range error"),
    _case("inf", "unknown name 'inf' (a number may use pi and e)"),
    _case("[1, 2]", "expected one value, not a list"),
    _case("1, 2", "expected one value, not a list"),
    _case("1 < 2", "a comparison is not allowed in an answer"),
    _case("7 % 2", "'%' is not allowed in an answer"),
    _case("True", "True is not a number"),
    _case("'1'", "'1' is not a number"),
    _case("0x10", "unknown name 'x10' (a number may use pi and e)", "no-hex"),
    _case("1½", "write mixed numbers like 1½ as 1.5 or 3/2"),
    _case("9" * 2001, "answer is too long", "too-long"),
]


@pytest.mark.parametrize(("text", "message"), NUMBER_ERRORS)
def test_number_rejections(text: str, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("number", text)
    assert str(caught.value) == message


def test_answer_format_error_is_a_value_error() -> None:
    assert issubclass(AnswerFormatError, ValueError)


@pytest.mark.parametrize(("text", "expected"), [
    ("2**-3×10^6", 2**-3 * 10**6),   # ** binds tighter: folding to 2**-3e6 would be wrong
    ("1/2×10^6", 1 / 2 * 10**6),     # so does the division on the left
    ("2*3×10^6", 6 * 10**6),
    ("1 - 2×10^3", -1999.0),
])
def test_power_of_ten_folding_keeps_precedence(text: str, expected: float) -> None:
    assert parse("number", text) == pytest.approx(expected, rel=1e-12)


# --------------------------------------------------------------------------- integer

INTEGER_FORMS = [
    _case("4204032", 4204032),
    _case("4,204,032", 4204032),
    _case("4 204 032", 4204032),
    _case("4.204032e6", 4204032),
    _case("4.204032×10^6", 4204032),
    _case("4.204032 x 10^6", 4204032),
    _case("25224192", 25224192),
    _case("18914304", 18914304),
    _case("1.8914304e7", 18914304),
    _case("2^10", 1024),
    _case("512*37000", 18944000),
    _case("0.1*30", 3, "float-noise-is-forgiven"),
    _case("-7", -7),
    _case("+3", 3),
    _case("12345678901234567890123", 12345678901234567890123, "beyond-float-precision"),
    _case("1.2345678901234567890123e22", 12345678901234567890123, "exact-scientific"),
]


@pytest.mark.parametrize(("text", "value"), INTEGER_FORMS)
def test_integer_forms(text: str, value: int) -> None:
    parsed = parse("integer", text)
    assert parsed == value
    assert type(parsed) is int


@pytest.mark.parametrize(("text", "message"), [
    ("3.5", "expected a whole number, got 3.5"),
    ("1/3", "expected a whole number, got 0.3333"),
    ("4204032.5", "expected a whole number, got 4204032.5"),
    ("1,5", "could not read '1,5' as a number: use a point for decimals (1.5)"),
    ("", "empty answer"),
])
def test_integer_rejections(text: str, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("integer", text)
    assert str(caught.value) == message


def test_read_real_keeps_literals_exact() -> None:
    assert readers.read_real("4.204032e6") == Fraction(4204032)
    assert readers.read_real("0.1") == Fraction(1, 10)
    assert readers.read_real("25224192") == 25224192


# ---------------------------------------------------------------------------- vector

VECTOR_FORMS = [
    _case("[0.5, 1]", [0.5, 1.0]),
    _case("y = [0.5, 1]", [0.5, 1.0], "named"),
    _case("(0.5, 1)", [0.5, 1.0]),
    _case("0.5 1", [0.5, 1.0]),
    _case("0.5, 1", [0.5, 1.0]),
    _case("0.5,1", [0.5, 1.0]),
    _case("[1/2, sqrt(2)]", [0.5, math.sqrt(2)]),
    _case("[1 / 2, 1]", [0.5, 1.0], "spaced-operator-with-commas"),
    _case("1/2 √2", [0.5, math.sqrt(2)]),
    _case("0.5 -1", [0.5, -1.0], "space-then-sign-starts-an-element"),
    _case("0.5 - 1", [-0.5], "spaced-minus-is-subtraction"),
    _case("[0.5 1]", [0.5, 1.0]),
    _case("{0.5, 1}", [0.5, 1.0]),
    _case("0.5; 1", [0.5, 1.0]),
    _case("0.5\n1", [0.5, 1.0]),
    _case("0.5, 1,", [0.5, 1.0], "trailing-comma"),
    _case("[−0.5, 2×10^3]", [-0.5, 2000.0]),
    _case("1 4.2 x 10^6", [1.0, 4.2e6], "times-ten-in-space-list"),
    _case("sqrt (2) 3", [math.sqrt(2), 3.0], "space-before-call-bracket"),
    _case("np.array([0.5, 1.])", [0.5, 1.0]),
    _case("tensor([0.5, 1.])", [0.5, 1.0]),
    _case("[e, pi]", [E, math.pi]),
]


@pytest.mark.parametrize(("text", "value"), VECTOR_FORMS)
def test_vector_forms(text: str, value: list[float]) -> None:
    parsed = parse("vector", text)
    assert isinstance(parsed, np.ndarray) and parsed.ndim == 1 and parsed.dtype == float
    assert parsed.tolist() == value


@pytest.mark.parametrize(("text", "length", "message"), [
    ("[0.5, 1, 2]", 2, "expected 2 numbers, got 3"),
    ("[0.5]", 2, "expected 2 numbers, got 1"),
    ("0.5 1", 1, "expected 1 number, got 2"),
    ("1,,2", None, "element 2 is empty"),
    ("[]", None, "no numbers in your answer"),
    ("[1, x]", None, "unknown name 'x' (a number may use pi and e)"),
    ("[1, 2.3.4]", None, "could not read '2.3.4' as a number"),
    ("[[1, 2]]", None, "expected one value, not a list"),
])
def test_vector_rejections(text: str, length: int | None, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("vector", text, length=length)
    assert str(caught.value) == message


# ---------------------------------------------------------------------------- matrix

IDENTITY = [[1.0, 0.0], [0.0, 1.0]]
MATRIX_FORMS = [
    _case("[[1,0],[0,1]]", IDENTITY),
    _case("[[1, 0], [0, 1]]", IDENTITY),
    _case("1 0; 0 1", IDENTITY),
    _case("[1 0; 0 1]", IDENTITY),
    _case("1 0\n0 1", IDENTITY),
    _case("1, 0\n0, 1\n", IDENTITY, "comma-rows-per-line"),
    _case("[[1, 0],\n [0, 1]]", IDENTITY, "numpy-style-line-break"),
    _case("[[1 0]\n [0 1]]", IDENTITY, "numpy-print"),
    _case("(1, 0); (0, 1)", IDENTITY),
    _case("np.array([[1, 0], [0, 1]])", IDENTITY),
    _case("1 2 3", [[1.0, 2.0, 3.0]], "one-row"),
    _case("1; 2; 3", [[1.0], [2.0], [3.0]], "one-column"),
    _case("[[1/2, √2], [e, −1]]", [[0.5, math.sqrt(2)], [E, -1.0]]),
]


@pytest.mark.parametrize(("text", "value"), MATRIX_FORMS)
def test_matrix_forms(text: str, value: list[list[float]]) -> None:
    parsed = parse("matrix", text)
    assert isinstance(parsed, np.ndarray) and parsed.ndim == 2 and parsed.dtype == float
    assert parsed.tolist() == value


@pytest.mark.parametrize(("text", "shape", "message"), [
    ("[[1, 0], [0, 1, 2]]", None, "row 2 has 3 numbers, row 1 has 2"),
    ("1 2; 3", None, "row 2 has 1 number, row 1 has 2"),
    ("1 2; 3 4; 5 6", (2, 3), "expected a 2×3 matrix, got 3×2"),
    ("[]", None, "no numbers in your answer"),
])
def test_matrix_rejections(text: str, shape: tuple[int, int] | None, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("matrix", text, shape=shape)
    assert str(caught.value) == message


# ----------------------------------------------------------------------------- shape

SHAPE_FORMS = [
    _case("[B, T, 64]", ("B", "T", 64)),
    _case("(2, 4, 3, 5)", (2, 4, 3, 5)),
    _case("2x4x3x5", (2, 4, 3, 5)),
    _case("2X4X3X5", (2, 4, 3, 5)),
    _case("2 × 4 × 3 × 5", (2, 4, 3, 5)),
    _case("2×4×3×5", (2, 4, 3, 5)),
    _case("[B,h,T,T]", ("B", "h", "T", "T")),
    _case("B x T x d_model", ("B", "T", "d_model")),
    _case("[B, T, h*d_v]", ("B", "T", "h*d_v")),
    _case("[B, T, h * d_v]", ("B", "T", "h*d_v"), "product-spaces-stripped"),
    _case("[B, T, h×d_v]", ("B", "T", "h*d_v"), "times-inside-a-dimension"),
    _case("[B, T, d_model/h]", ("B", "T", "d_model/h")),
    _case("[2*64, 64/2]", (128, 32), "constant-products-become-ints"),
    _case("[B T 64]", ("B", "T", 64), "space-separated"),
    _case("torch.Size([2, 3])", (2, 3)),
    _case("(2,)", (2,)),
    _case("()", ()),
    _case("Q: [B, T, 64]", ("B", "T", 64), "named-with-a-colon"),
    _case("scores.shape = (2, 4)", (2, 4), "named-with-equals"),
    _case("[50, 35, 35,000]", (50, 35, 35000), "thousands-grouped-as-the-prompt-writes-them"),
    _case("[512,512]", (512, 512), "unspaced-commas-separate-dimensions"),
    _case("[36,37,45,000]", (36, 37, 45000), "a-group-starting-with-0-is-never-a-dimension"),
    _case("36×37×45,000", (36, 37, 45000), "by-with-a-grouped-size"),
    _case("[36, 37, 45 000]", (36, 37, 45000), "space-grouped-size"),
    _case("[B, T, dₖ]", ("B", "T", "d_k"), "a-subscript-as-printed"),
]


@pytest.mark.parametrize(("text", "value"), SHAPE_FORMS)
def test_shape_forms(text: str, value: tuple[object, ...]) -> None:
    parsed = parse("shape", text)
    assert parsed == value
    assert [type(dim) for dim in parsed] == [type(dim) for dim in value]


@pytest.mark.parametrize(("text", "message"), [
    ("[B, h d_v]", "could not read dimension 2 'h d_v': write products with *"),
    ("[B, , T]", "dimension 2 is empty"),
    ("[2, -1]", "dimension 2 must be a whole number ≥ 0 or a name"),
    ("[2.5]", "dimension 1 must be a whole number ≥ 0 or a name"),
    ("[h**]", "could not read dimension 1 'h**'"),
    ("[2, 5, 16] [2, 5, 4]", "give one shape: this has 2 ([2, 5, 16] and [2, 5, 4])"),
    ("Q: [B, T, 64], K: [B, T, 64]", "give one shape: this has 2 ([B, T, 64] and [B, T, 64])"),
])
def test_shape_rejections(text: str, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("shape", text)
    assert str(caught.value) == message


def test_as_shape_normalizes_expected_values_like_typed_ones() -> None:
    assert readers.as_shape(("B", "h * d_v", 64.0, np.int64(3))) == ("B", "h*d_v", 64, 3)
    assert readers.as_shape("[B, h, S, T]") == ("B", "h", "S", "T")
    assert readers.as_shape(np.array([2, 4])) == (2, 4)


# ------------------------------------------------------------------------------ bool

@pytest.mark.parametrize(("text", "value"), [
    *[(word, True) for word in ("true", "True", "TRUE", "yes", "Yes", "t", "y", "1", "correct", "true.")],
    *[(word, False) for word in ("false", "False", "no", "NO", "f", "n", "0", "incorrect", "No!")],
])
def test_bool_forms(text: str, value: bool) -> None:
    assert parse("bool", text) is value


def test_bool_rejection() -> None:
    with pytest.raises(AnswerFormatError, match=r"^expected true or false \(or yes/no\)$"):
        parse("bool", "maybe")


# ---------------------------------------------------------------------------- choice

@pytest.mark.parametrize(("text", "index"), [
    ("b", 1), ("B", 1), ("(b)", 1), ("b)", 1), ("b.", 1), ("[b]", 1), ("b:", 1),
    ("0.25", 1), ("0.250", 1), ("1/4", 1), ("25%", None),
    ("softmax", 0), ("  SoftMax ", 0), ("Layer  Norm", 2), ("[B,T,64]", 3), ("[b, t, 64]", 3),
    ("(b) 0.250", 1), ("c) layer norm", 2),
])
def test_choice_forms(text: str, index: int | None) -> None:
    if index is None:  # "25%" is not a choice form: percentages belong to number answers
        with pytest.raises(AnswerFormatError):
            parse("choice", text, options=OPTIONS)
        return
    assert parse("choice", text, options=OPTIONS) == index


@pytest.mark.parametrize(("text", "index"), [("2", 1), ("4", 3), ("Beta", 1), ("d", 3)])
def test_choice_by_position_when_options_are_not_numbers(text: str, index: int) -> None:
    assert parse("choice", text, options=LETTERED) == index


def test_choice_numbers_are_values_when_options_are_numbers() -> None:
    numeric = ("0.5", "2", "1", "4")
    assert parse("choice", "2", options=numeric) == 1  # the option "2", not the 2nd option
    assert parse("choice", "1.0", options=numeric) == 2
    assert parse("choice", "1/2", options=numeric) == 0


def test_choice_letters_are_texts_when_options_are_letters() -> None:
    assert parse("choice", "B", options=("T", "B", "S")) == 1


@pytest.mark.parametrize(("text", "options", "message"), [
    ("e", LETTERED, "choose one of a–d"),
    ("5", LETTERED, "choose one of a–d"),
    ("zeta", LETTERED, "could not match 'zeta' to an option: choose one of a–d"),
    ("(b) gamma", LETTERED, "(b) is 'beta': type just the letter"),
    ("3", ("0.5", "2"), "could not match '3' to an option: choose one of a–b"),
])
def test_choice_rejections(text: str, options: tuple[str, ...], message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("choice", text, options=options)
    assert str(caught.value) == message


# ----------------------------------------------------------------------------- multi

@pytest.mark.parametrize(("text", "chosen"), [
    ("a, c", {0, 2}), ("ac", {0, 2}), ("A C", {0, 2}), ("a and c", {0, 2}), ("{a,c}", {0, 2}),
    ("[a, c]", {0, 2}), ("a; c", {0, 2}), ("a & c", {0, 2}), ("(a), (c)", {0, 2}),
    ("a, c, a", {0, 2}), ("cab", {0, 1, 2}),
    ("alpha, gamma", {0, 2}), ("alpha; gamma", {0, 2}), ("alpha and gamma", {0, 2}),
    ("1, 3", {0, 2}), ("b", {1}), ("none", set()),
])
def test_multi_forms(text: str, chosen: set[int]) -> None:
    assert parse("multi", text, options=LETTERED) == frozenset(chosen)


def test_multi_option_texts_may_contain_commas() -> None:
    assert parse("multi", "[B, T, 64]", options=OPTIONS) == frozenset({3})
    assert parse("multi", "[B, T, 64]; softmax", options=OPTIONS) == frozenset({0, 3})
    prose = ("Scaling, alone, changes nothing", "Softmax normalizes rows", "Masks, like padding, block keys")
    assert parse("multi", "Scaling, alone, changes nothing, Masks, like padding, block keys",
                 options=prose) == frozenset({0, 2})
    # the preview's own form reads back
    shown = describe("multi", frozenset({0, 2}), options=prose)
    assert shown == "(a) Scaling, alone, changes nothing; (c) Masks, like padding, block keys"
    assert parse("multi", shown, options=prose) == frozenset({0, 2})


@pytest.mark.parametrize(("text", "chosen"), [
    ("(a) (c)", {0, 2}), ("(a)(c)", {0, 2}), ("a) c)", {0, 2}), ("[a] [c]", {0, 2}),
    ("all", {0, 1, 2, 3}), ("All of them", {0, 1, 2, 3}),
    ("none", set()),
])
def test_multi_letters_as_shown_and_all_or_none(text: str, chosen: set[int]) -> None:
    """The options' own labels, and "all" as ticking every box (scored by the rule: right minus wrong picks)."""
    assert parse("multi", text, options=LETTERED) == frozenset(chosen)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty answer"),
    (",", "no options chosen: choose one of a–d"),
    ("a, e", "there is no option (e): choose one of a–d"),
    ("(a) (e)", "there is no option (e): choose one of a–d"),
    ("a, zeta", "could not match 'zeta' to an option: choose one of a–d"),
])
def test_multi_rejections(text: str, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("multi", text, options=LETTERED)
    assert str(caught.value) == message


# ------------------------------------------------------------------------ expression

@pytest.mark.parametrize(("text", "source"), [
    ("d_k", "d_k"),
    ("sqrt(d_k)", "sqrt(d_k)"),
    ("√d_k", "sqrt(d_k)"),
    ("1/(1+e^-1)", "1/(1+e**-1)"),
    ("2*d*f + f + d", "2*d*f + f + d"),
    ("2d", "2*d"),
    ("4d^2", "4*d**2"),
    ("4d²", "4*d**2"),
    ("2df", "2*d*f"),
    ("d(d+1)", "d*(d+1)"),
    ("2πd", "2*pi*d"),
    ("d × f ÷ 2", "d * f / 2"),
    ("ln(d)", "log(d)"),
    # A space between factors is a product, as on paper; a function's space before '(' is not.
    ("2 d f", "2 *d *f"),
    ("4 d (d + f)", "4 *d *(d + f)"),
    ("d (d+1)", "d *(d+1)"),
    ("(d + 1) f", "(d + 1) *f"),
    ("d sqrt(f)", "d *sqrt(f)"),
    ("sqrt (d)", "sqrt (d)"),
])
def test_expression_forms(text: str, source: str) -> None:
    parsed = parse("expression", text, variables=["d", "f", "d_k"])
    assert parsed.source == source
    assert parsed.variables == ("d", "f", "d_k")
    compiled, variables = parsed  # also unpacks as (compiled expression, variable list)
    assert compiled.source == source and variables == ("d", "f", "d_k")


def test_expression_without_variables() -> None:
    assert parse("expression", "e^2/(e^2+e)", variables=[]).value_at({}) == pytest.approx(1 / (1 + E**-1))


@pytest.mark.parametrize(("text", "message"), [
    ("x + d", "unknown name 'x' (variables: d, f)"),
    ("d +", "could not read 'd +' as an expression"),
    ("sqrt(d, f)", "could not work out 'sqrt(d, f)': sqrt(): math.sqrt() takes exactly one argument (2 given)"),
    ("[d, f]", "expected one value, not a list"),
    ("d if f else 1", "'if' is not allowed in an answer"),
    ("2 3 d", "could not read '2 3 d' as an expression"),  # a space before a number is never a product
])
def test_expression_rejections(text: str, message: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse("expression", text, variables=["d", "f"])
    assert str(caught.value) == message


def test_a_remembered_expression_is_still_checked_against_the_question() -> None:
    """Expressions are read once and remembered (an instance compares its answer with every mistake):
    the same text is still refused for a question without its names, and a refusal is never remembered."""
    assert readers.read_expression("x + d", ("x", "d")).variables == ("x", "d")
    for _ in range(2):
        with pytest.raises(AnswerFormatError, match="unknown name 'x'"):
            readers.read_expression("x + d", ("d", "f"))
        with pytest.raises(AnswerFormatError, match="could not read"):
            readers.read_expression("(" * 60 + "d" + ")" * 60, ("d",))


def test_ambiguous_run_of_names_is_not_split() -> None:
    with pytest.raises(AnswerFormatError, match="unknown name 'aab'"):
        parse("expression", "aab", variables=["a", "aa", "b"])


# -------------------------------------------------------------------- text, dispatch

def test_text_and_unknown_kind() -> None:
    assert parse("text", "  attention is all you need  ") == "attention is all you need"
    with pytest.raises(ValueError, match="unknown answer kind"):
        parse("essay", "x")


# -------------------------------------------------------------------------- describe

@pytest.mark.parametrize(("kind", "value", "context", "text"), [
    ("number", 0.7310585786300049, {}, "0.7311"),
    ("number", 0.000699, {}, "0.000699"),
    ("number", 6.99e-05, {}, "6.99e-5"),
    ("number", 4204032.0, {}, "4204032"),
    ("number", 1e20, {}, "1e20"),
    ("number", 0.5, {}, "0.5"),
    ("integer", 25224192, {}, "25,224,192"),
    ("vector", np.array([0.5, 1.0]), {}, "[0.5, 1]"),
    ("matrix", np.eye(2), {}, "[[1, 0], [0, 1]]"),
    ("shape", ("B", "T", 64), {}, "[B, T, 64]"),
    ("choice", 1, {"options": OPTIONS}, "(b) 0.250"),
    ("multi", frozenset({2, 0}), {"options": OPTIONS}, "(a) softmax; (c) layer norm"),
    ("multi", frozenset(), {"options": OPTIONS}, "none"),
    ("bool", True, {}, "true"),
    ("expression", "4*d^2", {}, "4*d^2"),
    ("text", "model answer", {}, "model answer"),
])
def test_describe(kind: str, value: object, context: dict[str, object], text: str) -> None:
    assert describe(kind, value, **context) == text


def test_describe_shows_more_digits_on_request() -> None:
    assert describe("number", 0.7310585786300049, digits=6) == "0.731059"


@settings(max_examples=300, deadline=None, database=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300))
def test_preview_of_a_number_reads_back_to_four_significant_figures(value: float) -> None:
    shown = describe("number", value)
    assert parse("number", shown) == pytest.approx(value, rel=5e-4, abs=1e-300)


@settings(max_examples=200, deadline=None, database=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=1, max_size=8))
def test_repr_of_a_float_list_parses_exactly(values: list[float]) -> None:
    assert parse("vector", "[" + ", ".join(map(repr, values)) + "]").tolist() == values
    assert parse("vector", " ".join(map(repr, values))).tolist() == values


# ----------------------------------------------------------------------- boundaries

def test_answers_and_grading_import_no_heavy_frameworks() -> None:
    code = ("import sys, quizzer.grading.parse, quizzer.grading.verdict; "
            "print(sorted(m for m in ('textual', 'sqlmodel', 'sqlalchemy', 'torch') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
