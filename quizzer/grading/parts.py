"""Grading a multi-part question, with follow-through ("error carried forward").

The parts of one question are the steps of one calculation: a later part is computed from the
derived values earlier parts ask for. Each part is graded against its own right answer first.
When a learner's earlier answer was wrong, the later part is graded again against the answer the
calculation gives *with the learner's own earlier values substituted* (the part's ``recompute``,
which the template layer provides): an answer right on those values is marked right-on-your-value,
with the part's ``follow_through`` credit (1 = full), a feedback saying so, and the
``carried_forward`` flag, so mastery counts one mistake (the earlier part's), not two.  Except
where the learner's values make the part zero, or an earlier answer it is worked from is one number
repeated (a row of zeros, whose softmax is uniform): that is what typing zeros gives, it shows no
work and makes what follows trivial, so it earns nothing (as mark schemes deny error carried forward
that simplifies the question).

Pure like the rest of grading: the recomputation is a callback, evaluated by its owner under one
instance budget; this module only decides which values to substitute and what the answer earns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import numpy as np

from quizzer.grading.expr import ExprError
from quizzer.grading.parse import parse
from quizzer.grading.typed import AnswerFormatError
from quizzer.grading.verdict import AnswerSpec, Verdict, expected_text, grade

# The expected value with the learner's values put in place of some derived values (name -> value);
# None where those values do not give an answer of the part's form (a shape that no longer fits).
Recompute = Callable[[Mapping[str, Any]], Any]


class Step(msgspec.Struct, frozen=True):
    """One part as grading sees it."""

    label: str                    # "a", "b", … as the question prints it
    name: str                     # the derived value this part asks for
    spec: AnswerSpec
    follow_through: float = 1.0   # credit for an answer right on the learner's own earlier values
    depends: frozenset[str] = frozenset()  # earlier parts' values this part is computed from
    recompute: Recompute | None = None


class PartVerdict(msgspec.Struct, frozen=True):
    """One part's verdict; ``carried_forward``: right on the learner's own earlier value(s), not on the
    true ones (an earlier part's error carried forward: mastery counts it as right)."""

    label: str
    verdict: Verdict
    carried_forward: bool = False

    @property
    def on_their_value(self) -> str:
        """"right on your value" (or "partly right on …" when it earns part of the marks even so); "" when
        the part was graded on the true values."""
        if not self.carried_forward:
            return ""
        return "right on your value" if self.verdict.verdict == "correct" else "partly right on your value"

    def to_json(self) -> dict[str, Any]:
        v = self.verdict
        return {"part": self.label, "verdict": v.verdict, "score": v.score, "expected": v.expected,
                "feedback": v.feedback, "misconception": v.misconception, "reading": v.reading,
                "carried_forward": self.carried_forward}


def grade_parts(steps: Sequence[Step], responses: Sequence[str]) -> tuple[PartVerdict, ...]:
    """Grade one response per part, in order, with follow-through from every earlier part that was not
    right (its value as the learner read it). A part left unanswered or unreadable is ``invalid`` and
    carries nothing forward: there is no value of the learner's to follow."""
    if len(responses) != len(steps):
        raise ValueError(f"expected {len(steps)} answers, one per part, got {len(responses)}")
    theirs: dict[str, Any] = {}  # the learner's values of earlier parts that were not right
    theirs_label: dict[str, str] = {}
    verdicts: list[PartVerdict] = []
    for step, response in zip(steps, responses, strict=True):
        verdict = grade(step.spec, response)
        result = PartVerdict(step.label, verdict)
        if verdict.verdict not in ("correct", "invalid"):
            used = {name: theirs[name] for name in sorted(step.depends) if name in theirs}
            if used and step.recompute is not None:
                result = _follow_through(step, response, verdict, used, [theirs_label[name] for name in used])
        verdicts.append(result)
        if verdict.verdict not in ("correct", "invalid") and (value := _read(step.spec, response)) is not None:
            theirs[step.name], theirs_label[step.name] = value, step.label
    return tuple(verdicts)


def _follow_through(step: Step, response: str, verdict: Verdict, used: Mapping[str, Any],
                    labels: Sequence[str]) -> PartVerdict:
    """The verdict on the learner's own values, when it earns more than the verdict on the true ones."""
    assert step.recompute is not None
    if any(_one_number_repeated(value) for value in used.values()):
        return PartVerdict(step.label, verdict)
    expected = step.recompute(used)
    if expected is None or not np.any(expected):
        # Zero on the learner's values (6 × a typed 0, the log of a typed 1) is what an answer of zeros
        # gives: it shows no work, and a chain of zeros must not earn what typing nothing would not.
        return PartVerdict(step.label, verdict)
    # Graded as a plain answer of the part's kind: the misconceptions were computed from the true values.
    theirs = msgspec.structs.replace(step.spec, expected=expected, expected_text=None, wrong_answers=(), discover=None)
    again = grade(theirs, response)
    score = again.score * step.follow_through
    if again.verdict == "invalid" or score <= verdict.score:
        return PartVerdict(step.label, verdict)
    named = [f"({label})" for label in labels]
    parts = (f"your answer to part {named[0]}" if len(named) == 1
             else f"your answers to parts {', '.join(named[:-1])} and {named[-1]}")
    if again.verdict == "correct":
        credit = "full credit" if step.follow_through == 1 else f"{step.follow_through:.0%} credit"
        found = f"Right on your value: from {parts}, this part is {expected_text(theirs)}, and that is what you found"
    else:  # right on their value only in part (short of the precision asked, some entries off)
        credit = f"{score:.0%} credit"
        found = (f"Partly right on your value: from {parts}, this part is {expected_text(theirs)}; against that, "
                 f"{again.feedback}")
    feedback = f"{found} (error carried forward: {credit}). With the right values it is {verdict.expected}."
    outcome = "correct" if score >= 1 else "partial"
    return PartVerdict(step.label, msgspec.structs.replace(verdict, verdict=outcome, score=score, feedback=feedback,
                                           misconception=None), carried_forward=True)


def _one_number_repeated(value: Any) -> bool:
    """A vector or matrix answer whose entries are all the same number (zeros, ones)."""
    entries = np.asarray(value)
    return entries.size > 1 and entries.dtype.kind in "biuf" and bool(np.all(entries == entries.flat[0]))


def _read(spec: AnswerSpec, response: str) -> Any:
    """The learner's answer as a value the calculation can use (the part kinds need no parse context)."""
    try:
        return parse(spec.kind, response)
    except (AnswerFormatError, ExprError):  # graded readable just before; kept total all the same
        return None


def whole_outcome(scored: Sequence[tuple[float, float]]) -> tuple[str, float]:
    """The verdict and score of a multi-part answer from its answered parts' (score, marks): the marks
    earned out of theirs (what its review step is scheduled by)."""
    total = sum(marks for _, marks in scored)
    score = sum(s * marks for s, marks in scored) / total if total else 0.0
    return ("correct" if score >= 1 else "partial" if score > 0 else "incorrect"), score
