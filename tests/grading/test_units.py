"""Units and scale words after a typed number (quizzer.grading.units): read where the question's unit is known,
refused with a hint where it is not; a scale word is always a factor."""

from __future__ import annotations

import pytest

from quizzer.grading.parse import parse
from quizzer.grading.typed import AnswerFormatError
from quizzer.grading.units import units_in
from quizzer.grading.verdict import grade
from tests.bundled_templates import instance


def test_the_units_a_prompt_names_are_found() -> None:
    assert units_in("How much memory does it take, in MiB (1 MiB = 2^20 bytes)?") == ("MiB", "bytes")
    assert units_in("How many learned parameters does this layer have?") == ("parameters",)
    assert units_in("Give the probability to 4 decimals.") == ()
    assert units_in("What share of the parameters, in percent?") == ("parameters", "%")


@pytest.mark.parametrize(("kind", "typed", "units", "read"), [
    ("number", "2048 MiB", ("MiB",), 2048), ("integer", "25,224,192 parameters", ("parameters",), 25_224_192),
    ("integer", "6.144 million", (), 6_144_000), ("integer", "25k", (), 25_000), ("number", "1.5M", (), 1_500_000),
    ("number", "57.92%", ("%",), 57.92), ("number", "57.92%", (), 0.5792),
    ("integer", "12 params", ("parameters",), 12),
])
def test_a_unit_of_the_question_or_a_scale_word_is_read(kind: str, typed: str, units: tuple[str, ...],
                                                        read: float) -> None:
    assert parse(kind, typed, units=units) == pytest.approx(read)


def test_a_unit_the_question_does_not_use_is_refused_with_what_to_drop() -> None:
    with pytest.raises(AnswerFormatError, match=r"could not read '2048 MB': drop 'MB' and type the number alone "
                                                 r"\(the question asks for MiB\)"):
        parse("number", "2048 MB", units=("MiB",))
    with pytest.raises(AnswerFormatError, match="drop 'parameters' and type the number alone$"):
        parse("integer", "12 parameters", units=())


def test_the_issues_examples_are_graded_not_refused() -> None:
    question = instance("2024T3_Q1_NA Q277", 0)
    assert grade(question.spec, "18,944,000 parameters").verdict == "correct"
    assert grade(question.spec, "18.944 million").verdict == "correct"
    memory = instance("practice/w1b-enc-score-memory", 0)
    assert grade(memory.spec, f"{memory.answer_text} MiB").verdict == "correct"
