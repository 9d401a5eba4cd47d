"""The written forms of a shape or an expression that an LMS's short answer accepts: every usual way of writing
the same answer that ``quizzer grade`` marks right, and none it does not.

An LMS compares typed text, so each form must be listed: ``(8,38,768)``, ``[8 x 38 x 768]``, ``8, 38, 768``
for a shape; ``8d^2 + 8d``, ``8 * d^2 + 8 * d``, ``8*d**2+8*d`` for an expression.  The candidates are made by
rewriting the answer (brackets, separators, spaces, implied multiplication, ``**`` for ``^``), and each is kept
only when quizzer's own grader marks it correct, so no form accepts what quizzer would not.  What no list can
hold is an expression's other equivalents (``8d(d + 1)`` for ``8d^2 + 8d``): the question's feedback says so.
"""

from __future__ import annotations

import itertools
import re

from quizzer.grading.verdict import grade
from quizzer.templates.instance import Instance

_BRACKETS = (("[", "]"), ("(", ")"), ("", ""))
_JOINTS = (", ", ",", " x ", "x", " × ", "×", " ")
_IMPLIED = re.compile(r"(?<=[\w)])\s*\*\s*(?=[A-Za-z(])")  # 8*d, d*f, 2*(…): the star may go
_OPERATOR = re.compile(r"\s*(\*\*|[-+*/^])\s*")


def shape_forms(instance: Instance) -> list[str]:
    dims = [str(dim) for dim in instance.answer]
    candidates = [f"{left}{joint.join(dims)}{right}" for left, right in _BRACKETS for joint in _JOINTS]
    return _accepted(instance, candidates)


def expression_forms(instance: Instance) -> list[str]:
    typed = instance.answer_text.strip()
    candidates = []
    spacings = ("as typed", "none", "spaced", "powers tight")
    for implied, power, spacing in itertools.product((False, True), ("^", "**"), spacings):
        text = _IMPLIED.sub("", typed) if implied else typed
        text = text.replace("^", power) if power == "**" else text
        if spacing == "none":
            text = text.replace(" ", "")
        elif spacing == "spaced":
            text = _spaced(text)
        elif spacing == "powers tight":  # 8 * d^2 + 8 * d
            text = re.sub(r" (\^|\*\*) ", r"\1", _spaced(text))
        candidates.append(text)
    return _accepted(instance, candidates)


def _spaced(text: str) -> str:
    """Every binary operator between spaces; a sign that starts the text or a bracket, or follows an
    operator, stays on its number."""
    spaced = _OPERATOR.sub(lambda m: f" {m[1]} ", text).strip()
    return re.sub(r"(^|[(*/^+-] )([-+]) ", r"\1\2", re.sub(r"\( ([-+]) ", r"(\1", spaced))


def _accepted(instance: Instance, candidates: list[str]) -> list[str]:
    """The candidates quizzer marks right, once each, in order."""
    return [form for form in dict.fromkeys(candidates) if grade(instance.spec, form).verdict == "correct"]
