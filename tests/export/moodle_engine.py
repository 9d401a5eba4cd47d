"""What Moodle 4.5's question engine scores for one response to an imported question, for every question type
quizzer writes: ported from question/type/*/question.php (``grade_response``) and the importer's reading of
the XML (question/format/xml/format.php).  The rules used:

* numerical: the first answer (in file order) within [answer − tolerance, answer + tolerance] gives its
  fraction (qtype_numerical_answer::within_tolerance, the nominal tolerance type the importer sets);
* shortanswer: the first answer whose pattern matches (``clients.moodle_shortanswer_matches``) gives its
  fraction;
* multichoice, one answer: the chosen answer's fraction; several: the sum of the chosen answers' fractions,
  floored at 0 and capped at 1 (qtype_multichoice_multi_question::grade_response);
* truefalse: 1 for the right one;
* cloze: ``moodle_cloze.grade``; ordering: ``moodle_ordering.GRADING_TYPES`` of its grading type;
* essay: not marked by the engine (None).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

import numpy as np

from tests.export import moodle_cloze
from tests.export.clients import moodle_shortanswer_matches
from tests.export.moodle_ordering import GRADING_TYPES


def _answers(question: ET.Element) -> list[tuple[float, str, float]]:
    return [(float(a.get("fraction") or 0) / 100, (a.findtext("text") or "").strip(),
             float(a.findtext("tolerance") or 0)) for a in question.findall("answer")]


def score(question: ET.Element, response: object) -> float | None:
    """The fraction Moodle gives ``response``: a number, a text, a set of option indices, a bool, the
    blanks' numbers, or an order (the indices of the right order's items as placed)."""
    qtype = question.get("type")
    if qtype == "numerical":
        value = float(response)  # type: ignore[arg-type]
        return next((f for f, a, tol in _answers(question)
                     if abs(value - float(a)) <= tol + 1e-12 * max(1.0, abs(float(a)))), 0.0)
        # Moodle reads the answer as the student typed it (a float): so do we
    if qtype == "shortanswer":
        ignore_case = question.findtext("usecase") != "1"
        return next((f for f, a, _ in _answers(question)
                     if moodle_shortanswer_matches(a, str(response), ignore_case=ignore_case)), 0.0)
    if qtype == "multichoice":
        fractions = [f for f, _, _ in _answers(question)]
        chosen = set(response)  # type: ignore[call-overload]
        if question.findtext("single") == "true":
            (only,) = chosen
            return fractions[only]
        return min(1.0, max(0.0, sum(fractions[i] for i in chosen)))
    if qtype == "truefalse":
        return next(f for f, a, _ in _answers(question) if a == str(bool(response)).lower())
    if qtype == "cloze":
        return moodle_cloze.grade(question.findtext("questiontext/text") or "", list(response))  # type: ignore[call-overload]
    if qtype == "ordering":
        order: Sequence[int] = response  # type: ignore[assignment]
        return GRADING_TYPES[question.findtext("gradingtype") or ""](order)
    return None


def response(question: ET.Element, kind: str, answer: object, typed: str, right: Sequence[int] = ()) -> object:
    """What a student answering ``typed`` (whose value is ``answer``) gives Moodle's ``question``."""
    qtype = question.get("type")
    if qtype == "numerical":
        return float(typed.replace(",", ""))
    if qtype == "shortanswer":
        return typed
    if qtype == "multichoice":
        return {answer} if kind == "choice" else set(answer)  # type: ignore[call-overload]
    if qtype == "truefalse":
        return bool(answer)
    if qtype == "cloze":
        text = question.findtext("questiontext/text") or ""
        values = np.atleast_2d(np.asarray(answer, dtype=float)).ravel()
        blanks = _cells(text)
        if values.size != len(blanks):  # another shape (a transposed matrix): no way to type it in the grid
            return [float("nan")] * sum(blanks)
        return [value for value, blank in zip(values, blanks, strict=True) if blank]
    if qtype == "ordering":
        return [list(right).index(step) for step in answer]  # type: ignore[attr-defined]
    return None


def _cells(text: str) -> list[bool]:
    """Which table cells of a cloze are blanks (True) rather than printed entries."""
    import re

    return [cell.startswith("{") for cell in re.findall(r"<td>(.*?)</td>", text)]


SAYS_TRANSPOSED = "so a matrix typed transposed (its rows as the columns) still earns"  # moodle._TRANSPOSED


def transposed(typed: np.ndarray, expected: np.ndarray) -> bool:
    """A square matrix typed transposed: quizzer scores it 0 as a whole (its rule 8); Moodle marks a cloze
    blank by blank, so the diagonal (and any symmetric pair) still earns there."""
    return typed.ndim == 2 and typed.shape[0] == typed.shape[1] == expected.shape[0] and typed.shape == expected.shape \
        and not np.allclose(typed, expected) and np.allclose(typed, expected.T)


def why_they_differ(made: Any, value: object, theirs: float | None, ours: float, feedback: str) -> str:
    """Why Moodle's score ``theirs`` of an answer may differ from quizzer's ``ours``: a rule of quizzer's that
    Moodle cannot state, named; "" for none (a disagreement to fix).  ``made`` is the question as
    ``test_qti.made_by`` builds it, ``feedback`` the Moodle question's general feedback."""
    if made.kind == "order" and theirs == 0.0:
        return "order: partial credit by pairs"
    typed, expected = (np.atleast_2d(np.asarray(v, dtype=float)) for v in (value, made.spec.expected)) \
        if made.kind in ("vector", "matrix") else (np.zeros(0), np.zeros(0))
    if made.kind == "matrix" and ours == 0.0 and transposed(typed, expected) and SAYS_TRANSPOSED in feedback:
        return "a square matrix typed transposed, as the question says: 0 as a whole in quizzer, its diagonal in Moodle"
    return ""
