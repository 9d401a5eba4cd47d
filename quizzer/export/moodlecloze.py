"""A vector or matrix as Moodle's cloze (``multianswer``): one NUMERICAL blank per entry, and what Moodle
marks it out of.  :mod:`quizzer.export.moodle` writes the blanks into a Moodle XML question's text;
:mod:`quizzer.export.moodlebank` makes them the subquestions a backup holds."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from quizzer.export.moodlenumbers import (
    PRECISION_CREDIT,
    ROUNDED_SHORT,
    half_credit,
    moodle_center,
    moodle_tolerance,
    number_text,
    percent_text,
    shown_answer,
)
from quizzer.grading.match import is_discrete, values_match
from quizzer.templates.instance import Instance


@dataclass(frozen=True)
class Blank:
    """One NUMERICAL blank of a cloze: its weight and its answers (percent, value, feedback, tolerance: the order
    ``moodlebank.answers_of`` reads a Moodle XML question's answers in)."""

    weight: int
    answers: tuple[tuple[float, str, str, str], ...]

    def syntax(self) -> str:
        """As Moodle's cloze syntax writes it: ``{1:NUMERICAL:=0.5:0.01~%50%0.5:0.05#feedback}``."""
        (_, value, _, tolerance), *others = self.answers
        rest = "".join(f"~%{percent_text(percent)}%{other}:{within}#{feedback}"
                       for percent, other, feedback, within in others)
        return f"{{{self.weight}:NUMERICAL:={value}:{tolerance}{rest}}}"


def cloze_blanks(instance: Instance) -> list[Blank]:
    """A cloze's blanks, row by row, skipping the entries printed in their cells (``given_entries``)."""
    rows, given = _entries(instance)
    exact = is_discrete(rows)  # token ids, indices, 0/1 masks: quizzer grades them exactly
    weight = blank_weight(instance.points, int((~given).sum()))

    def blank(value: float) -> Blank:
        tolerance = 0.0 if exact else moodle_tolerance(instance, value)
        # Rounded as a numerical question's answer is: Moodle shows it as the right answer after the attempt.
        answers = [(100.0, shown_answer(moodle_center(instance, value), tolerance), "", number_text(tolerance))]
        band = None if exact else half_credit(instance, value)
        if band is not None:
            answers.append((100 * PRECISION_CREDIT, number_text(band[0]), ROUNDED_SHORT, number_text(band[1])))
        return Blank(weight, tuple(answers))

    return [blank(value) for value, printed in zip(rows.ravel(), given.ravel(), strict=True) if not printed]


def _entries(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """The answer's entries as rows, and which of them the prompt gives away."""
    rows = np.atleast_2d(np.asarray(instance.answer, dtype=float))
    return rows, given_entries(instance, rows.shape)


def given_entries(instance: Instance, shape: tuple[int, ...]) -> np.ndarray:
    """Which entries the prompt gives away (printed in their cells, not blanks)."""
    return np.atleast_2d(np.zeros(shape, dtype=bool) if instance.spec.given is None else instance.spec.given)


def blank_weight(points: float, blanks: int) -> int:
    """Each blank's weight in a cloze: Moodle ignores ``<defaultgrade>`` there and marks the question out of
    the sum of its blanks' weights (``qtype_multianswer_extract_question``), which must be whole numbers
    (``{N:NUMERICAL:…}``, ANSWER_REGEX_NORM is ``[0-9]*``).  quizzer gives each entry an equal share, and
    Moodle's score is quizzer's on every answer only if the weights are equal too (a blank right alone earns
    its weight over the total).  Equal whole weights sum to the points when the points are a whole multiple
    of the blanks (``points / blanks`` each).  Otherwise no import file can give the question its points:
    equal weights sum to a multiple of the blanks, and the bank's clozes that miss have fewer points than
    blanks (2 or 3 marks for 3 to 10 entries), so even weight 1 each sums to more.  Those get weight 1, so
    Moodle's score is still quizzer's, and their mark is set in the quiz (a slot's maximum mark, which
    Moodle multiplies the score by; :mod:`quizzer.export.moodlebackup` writes that quiz).  In a Moodle XML
    file the export names them (``cloze_marks_differ``), and so does each one's name in Moodle's bank, which
    the quiz's editing page shows beside the mark."""
    share = points / blanks
    return int(share) if share.is_integer() else 1


def cloze_total(instance: Instance) -> int | None:
    """What Moodle marks a cloze out of (the sum of its blanks' weights); None for another question type."""
    if instance.kind not in ("vector", "matrix") or not instance.spec.partial_credit:
        return None
    blanks = int((~_entries(instance)[1]).sum())
    return blank_weight(instance.points, blanks) * blanks


def transposable_cloze(instance: Instance) -> bool:
    """A cloze of a square matrix that differs from its transpose: quizzer scores the transpose 0 as a whole
    (grading.verdict, rule 8), while Moodle's cloze marks each blank by its own response alone
    (``qtype_multianswer_question::grade_response`` sums the blanks' weighted fractions).  No choice of blank
    answers can match quizzer on every answer: for [[a, b], [c, d]], a and d earn their blanks in full, so for
    the transpose [[a, c], [b, d]] to score 0 the c typed in blank (1, 2) or the b in blank (2, 1) must score
    −1 or less, and then [[a, c], [x, d]] (or [[a, x], [b, d]]), half right and no transpose, scores at most
    1/4 where quizzer gives 1/2.  A negative fraction could also take the question below 0 marks, which
    Moodle does not floor.  So the question says so instead."""
    if instance.kind != "matrix" or not instance.spec.partial_credit:
        return False
    expected = np.asarray(instance.spec.expected, dtype=float)
    return expected.ndim == 2 and expected.shape[0] == expected.shape[1] > 1 and \
        not values_match("matrix", expected.T, expected, instance.spec.tolerance)
