"""How answers are written: the expected answer, and what a learner making each known mistake would
type, on one instance.

Both are written as a student would type them, to the precision the tolerance grades (rounding to
that precision is itself within tolerance), so typing either text back is graded as that answer or
that mistake: `quizzer validate` checks exactly this for every template and seed.  The mistakes are
what `generate --format json --solutions` lists and the answer sheets print as common wrong answers.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import numpy as np

from quizzer.grading.describe import describe
from quizzer.grading.match import is_discrete
from quizzer.grading.tolerance import DEFAULT_SIG, Precision
from quizzer.grading.verdict import WrongAnswer, asked_text
from quizzer.templates.formatting import fmt, show, sig
from quizzer.templates.schema import Template


class Mistake(msgspec.Struct, frozen=True):
    """What a learner making one known mistake answers on this instance."""

    id: str | None        # the catalogued misconception; None for a distractor with feedback alone
    answer: Any           # the value, as the instance's own answer is given (choice: the option's index)
    answer_text: str      # written as the learner would type it
    feedback: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "answer": jsonable(self.answer), "answer_text": self.answer_text,
                "feedback": self.feedback}


def answer_text(template: Template, answer: Any, choices: tuple[str, ...], asked: Precision | None = None) -> str:
    """An answer as a student would write it: to the precision the prompt asks (``asked``), or else the one the
    tolerance grades."""
    if (text := asked_text(template.kind, answer, asked)) is not None:
        return text
    if template.kind == "choice":
        return f"({chr(97 + answer)}) {choices[answer]}"
    if template.kind == "multi":
        # Options are often sentences: "(a) … connection; (b) …", never "connection.; (b)".
        return "; ".join(f"({chr(97 + i)}) {choices[i].rstrip('.')}" for i in sorted(answer))
    if template.kind == "order":
        return describe("order", answer)  # the steps' letters in order: "c, a, d, b"
    if template.kind == "integer":
        return f"{answer:,}"
    if template.kind in ("vector", "matrix") and is_discrete(np.asarray(answer, dtype=float)):
        return show(answer)  # token ids, counts, 0/1 masks: whole numbers read best without decimals
    if template.kind in ("number", "vector", "matrix"):
        tolerance = template.tolerance
        if tolerance.abs is not None:
            return fmt(answer, max(0, math.ceil(-math.log10(tolerance.abs))))
        digits = tolerance.sig or (math.ceil(-math.log10(tolerance.rel)) + 1 if tolerance.rel else DEFAULT_SIG)
        return sig(answer, digits)
    return show(answer)


def known_mistakes(template: Template, wrong_answers: tuple[WrongAnswer, ...],
                   choices: tuple[str, ...], asked: Precision | None = None) -> tuple[Mistake, ...]:
    """Each misconception (or distractor with feedback) of this instance, as its learner would answer (to the
    precision the prompt asks, ``asked``, as the learner was told)."""
    return tuple(Mistake(wrong.id, answer := _as_answer(template.kind, wrong.value),
                         _typed(template, answer, choices, asked), wrong.feedback)
                 for wrong in wrong_answers)


def _typed(template: Template, answer: Any, choices: tuple[str, ...], asked: Precision | None) -> str:
    """A chosen option is typed as its letter (``b``; ``a, d``), everything else as it is written."""
    if template.kind == "choice":
        return chr(97 + answer)
    if template.kind == "multi":
        return ", ".join(chr(97 + i) for i in sorted(answer))
    return answer_text(template, answer, choices, asked)


def _as_answer(kind: str, value: Any) -> Any:
    """A multi distractor may name one option (an index): as an answer it is that option alone."""
    if kind == "multi" and isinstance(value, (int, np.integer)):
        return frozenset({int(value)})
    return value


def jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return [jsonable(item) for item in value]  # a multi-part answer holds each part's (arrays too)
    return value
