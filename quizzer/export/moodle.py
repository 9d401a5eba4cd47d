"""Moodle XML: every question with its answers, graded by Moodle itself, one category per topic.

How quizzer's answer kinds map onto Moodle's question types:

* ``number`` / ``integer`` → ``numerical`` with an absolute tolerance equal to quizzer's
  (the widest of its relative, absolute and significant-figure criteria; integers exact);
  each misconception's wrong value is a 0 % answer carrying its feedback.
* ``vector`` / ``matrix`` → ``cloze`` with one NUMERICAL blank per entry, laid out as a table.
* ``choice`` → ``multichoice`` (single); ``multi`` → ``multichoice`` (multiple: each of the R
  correct options is worth 100/R %, each wrong one −100/R %: quizzer's own select-all rule);
  distractor feedback per option; display order kept.
* ``bool`` → ``truefalse``.  ``shape`` / ``expression`` → ``shortanswer`` accepting the usual
  written forms (Moodle compares text, so algebraically equal but differently written
  expressions are not recognized).  ``text`` (recall cards) → ``essay`` with the model answer
  as the grader information.

Math stays LaTeX in ``\\(…\\)`` for Moodle's MathJax filter; general feedback is the worked solution.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import groupby
from xml.sax.saxutils import escape

import numpy as np

from quizzer.common.errors import UserError
from quizzer.export.document import Paper, Question, Section
from quizzer.export.richtext import to_html
from quizzer.grading.tolerance import DEFAULT_SIG, Tolerance, half_unit
from quizzer.templates.instance import Instance


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    del sections  # a question bank always holds questions and answers together
    rendered = [(_category(question), _question(question)) for question in paper.each()]
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for topic, group in groupby(sorted(rendered, key=lambda item: item[0]), key=lambda item: item[0]):
        parts.append(f'<question type="category"><category><text>$course$/quizzer/{escape(topic)}</text>'
                     "</category></question>")
        parts += [xml for _, xml in group]
    parts.append("</quiz>\n")
    return "\n".join(parts).encode()


def _category(question: Question) -> str:
    return question.instance.topics[0]


def _question(question: Question) -> str:
    instance = question.instance
    if instance.kind not in _TYPES:  # the ordering kind's Moodle form is still to be written (issue 21)
        raise UserError(f"Moodle XML cannot hold {instance.kind!r} questions yet: leave out {instance.key!r}")
    qtype, text, answers = _TYPES[instance.kind](question)
    return (f'<question type="{qtype}">\n'
            f"<name><text>{escape(_name(question))}</text></name>\n"
            f'<questiontext format="html">{_cdata(text)}</questiontext>\n'
            f'<generalfeedback format="html">{_cdata(_html(instance.solution))}</generalfeedback>\n'
            f"<defaultgrade>1</defaultgrade><penalty>0.3333333</penalty><hidden>0</hidden>\n"
            f"<idnumber>{escape(f'{instance.key}@{instance.seed}')}</idnumber>\n"
            f"{answers}</question>")


def _numerical(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    answers = [_answer(100, _number(instance.answer), "", _moodle_tolerance(instance, instance.answer), html=False)]
    answers += [_answer(0, _number(wrong.value), wrong.feedback, _moodle_tolerance(instance, wrong.value), html=False)
                for wrong in instance.spec.wrong_answers]
    return "numerical", _html(instance.prompt), "".join(answers)


def _cloze(question: Question) -> tuple[str, str, str]:
    """One NUMERICAL blank per entry: Moodle has no vector or matrix answer of its own."""
    instance = question.instance
    rows = np.atleast_2d(np.asarray(instance.answer, dtype=float))
    cells = ["".join(f"<td>{{1:NUMERICAL:={_number(value)}:{_number(_moodle_tolerance(instance, value))}}}</td>"
                     for value in row) for row in rows]
    table = '<table class="quizzer-answer">' + "".join(f"<tr>{row}</tr>" for row in cells) + "</table>"
    return "cloze", _html(instance.prompt) + table, ""


def _multichoice(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    correct = {instance.answer} if instance.kind == "choice" else set(instance.answer)
    feedback = {wrong.value: wrong.feedback for wrong in instance.spec.wrong_answers}
    # Each right option +1/R and each wrong one −1/R (R right options); Moodle floors the sum at 0, so a
    # question scores max(0, (right picks − wrong picks) / R) here as in quizzer (questions/README.md).
    wrong_fraction = 0 if instance.kind == "choice" else -100 / len(correct)
    answers = [_answer(100 / len(correct) if i in correct else wrong_fraction,
                       choice, feedback.get(i, ""))
               for i, choice in enumerate(instance.choices)]
    settings = (f"<single>{'true' if instance.kind == 'choice' else 'false'}</single>"
                "<shuffleanswers>0</shuffleanswers><answernumbering>abc</answernumbering>\n")
    return "multichoice", _html(instance.prompt), settings + "".join(answers)


def _truefalse(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    feedback = " ".join(wrong.feedback for wrong in instance.spec.wrong_answers)
    answers = [_answer(100 if value == instance.answer else 0, str(value).lower(),
                       "" if value == instance.answer else feedback) for value in (True, False)]
    return "truefalse", _html(instance.prompt), "".join(answers)


def _shortanswer(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    answers = [_answer(100, form, "", html=False) for form in _written_forms(instance)]
    answers += [_answer(0, str(wrong.value), wrong.feedback, html=False) for wrong in instance.spec.wrong_answers
                if instance.kind == "expression"]
    return "shortanswer", _html(instance.prompt), "<usecase>0</usecase>\n" + "".join(answers)


def _essay(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    info = f'<graderinfo format="html">{_cdata(_html(instance.answer_text))}</graderinfo>\n'
    settings = ("<responseformat>editor</responseformat><responserequired>1</responserequired>"
                "<responsefieldlines>10</responsefieldlines>\n")
    return "essay", _html(instance.prompt), settings + info


def _written_forms(instance: Instance) -> list[str]:
    """The ways people write the same shape or expression, without duplicates."""
    if instance.kind == "shape":
        dims = [str(dim) for dim in instance.answer]
        forms = ["[" + ", ".join(dims) + "]", "[" + ",".join(dims) + "]", "(" + ", ".join(dims) + ")",
                 " x ".join(dims), "×".join(dims)]
    else:
        forms = [instance.answer_text, instance.answer_text.replace(" ", "")]
    return list(dict.fromkeys(forms))


def _moodle_tolerance(instance: Instance, value: float) -> float:
    """Moodle's absolute tolerance: the widest bound quizzer's tolerance accepts (integers exact)."""
    if instance.kind == "integer":
        return 0.0
    tolerance: Tolerance = instance.spec.tolerance
    sig = tolerance.sig if (tolerance.sig or tolerance.rel or tolerance.abs) else DEFAULT_SIG
    bounds = [tolerance.rel * abs(value) if tolerance.rel else 0.0, tolerance.abs or 0.0,
              half_unit(value, sig) if sig else 0.0]
    return max(bounds)


def _answer(fraction: float, text: str, feedback: str, tolerance: float | None = None, *, html: bool = True) -> str:
    body = _cdata(_html(text)) if html and text else f"<text>{escape(text)}</text>"
    extra = f"<tolerance>{_number(tolerance)}</tolerance>" if tolerance is not None else ""
    fmt = ' format="html"' if html else ' format="moodle_auto_format"'
    return (f'<answer fraction="{_fraction(fraction)}"{fmt}>{body}{extra}'
            f'<feedback format="html">{_cdata(_html(feedback)) if feedback else "<text></text>"}</feedback></answer>\n')


def _fraction(percent: float) -> str:
    """Moodle's fraction list writes 100/3 as 33.33333: five decimals, trailing zeros dropped."""
    return f"{percent:.5f}".rstrip("0").rstrip(".") if not float(percent).is_integer() else str(int(percent))


def _number(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value) if math.isfinite(value) else "0"


def _html(markdown: str) -> str:
    return to_html(markdown, math="mathjax")


def _cdata(html: str) -> str:
    return "<text><![CDATA[" + html.replace("]]>", "]]]]><![CDATA[>") + "]]></text>"


_TYPES: dict[str, Callable[[Question], tuple[str, str, str]]] = {
    "number": _numerical, "integer": _numerical, "vector": _cloze, "matrix": _cloze,
    "choice": _multichoice, "multi": _multichoice, "bool": _truefalse, "shape": _shortanswer,
    "expression": _shortanswer, "text": _essay,
}


def _name(question: Question) -> str:
    """The question's name in Moodle's bank: number, title, and where it came from."""
    instance = question.instance
    return f"{question.number}. {instance.title} [{instance.key} · seed {instance.seed}]"
