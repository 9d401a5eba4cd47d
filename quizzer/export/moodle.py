"""Moodle XML: every question with its answers, graded by Moodle itself, one category per topic.

How quizzer's answer kinds map onto Moodle's question types:

* ``number`` / ``integer`` → ``numerical`` with an absolute tolerance equal to quizzer's
  (the widest of its relative, absolute and significant-figure criteria; integers exact);
  each misconception's wrong value is a 0 % answer carrying its feedback.
* ``vector`` / ``matrix`` graded all or nothing (``partial_credit: false``: whole numbers, such as
  a mask or token ids) → ``shortanswer`` accepting the usual written forms (``[0, 7, 1]``, ``0 7 1``;
  ``0 1; 0 0``), exact, as quizzer grades them, each known mistake's forms at 0 % with its feedback.
  Otherwise
  → ``cloze`` with one NUMERICAL blank per entry, laid out as a table;
  an entry the template lists under ``given_entries`` (one the prompt gives away, which earns no
  credit in quizzer) is printed in its cell instead of a blank, so Moodle's share of blanks right is
  quizzer's share of the other entries.  (quizzer also charges an entry's worth for a given entry typed
  wrong, which Moodle, printing it, cannot; no listed mistake of the bank is charged so: an entry where a
  mistake shows is worked out, not given away.)
* ``choice`` → ``multichoice`` (single); ``multi`` → ``multichoice`` (multiple: each of the R
  correct options is worth 100/R %, each wrong one −100/R %: quizzer's own select-all rule);
  distractor feedback per option; display order kept.
* ``bool`` → ``truefalse`` (answers plain ``true`` / ``false``).  ``shape`` / ``expression`` →
  ``shortanswer`` accepting the usual written forms, case-sensitive, every ``*`` escaped (``\\*``:
  a bare star is Moodle's wildcard and would accept wrong answers).  Moodle compares text, so an
  equal expression written differently is marked wrong there: the feedback says so.
  ``text`` (recall cards) → ``essay`` with the model answer as the grader information.
* ``order`` → ``ordering`` (qtype_ordering, standard since Moodle 4.4): the steps in their right
  order (Moodle shuffles them for each attempt and the student drags them), graded
  ``ALL_OR_NOTHING``.  quizzer gives partial credit by pairs (Kendall's τ floored at 0), which no
  Moodle grading type computes, and every partial-credit type pays some wrong orders more than
  quizzer does.  For six steps, each of these orders scores 0 in quizzer: the halves swapped
  (d e f a b c) earn 4/5 by RELATIVE_NEXT_EXCLUDE_LAST, 2/3 by RELATIVE_NEXT_INCLUDE_LAST and
  RELATIVE_ONE_PREVIOUS_AND_NEXT, 1/2 by LONGEST_ORDERED_SUBSET and LONGEST_CONTIGUOUS_SUBSET;
  the first and last swapped earn 2/3 by ABSOLUTE_POSITION; the reversed order earns 2/5 by
  RELATIVE_TO_CORRECT; RELATIVE_ALL_PREVIOUS_AND_NEXT is (1 + τ)/2.  So Moodle gives full marks
  for the exact order and 0 for any other — never more than quizzer — and the general feedback
  says so.

Marks (``defaultgrade``) are the template's points; a cloze's are the sum of its blanks' weights, its points
wherever whole equal weights can make them so (``blank_weight`` says why not otherwise).  A square matrix's
cloze says that Moodle pays a transposed answer its diagonal (``transposable_cloze`` says why it must).
The correct answer Moodle shows is the shortest decimal within 1/100 of the tolerance of the exact value, so
it reads ``0.04223`` rather than ``0.04223421199751376`` while grading what quizzer grades.  Figures are
embedded SVG files (``@@PLUGINFILE@@``).  Math stays LaTeX in ``\\(…\\)`` for Moodle's MathJax filter;
general feedback is the worked solution.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from itertools import groupby
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from quizzer.export.document import Paper, Question, Section, marks
from quizzer.export.lmsforms import expression_forms, shape_forms
from quizzer.export.moodlecloze import cloze_blanks, cloze_total, given_entries, transposable_cloze
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
from quizzer.export.richtext import to_html, to_html_inline
from quizzer.grading.describe import option_letter
from quizzer.grading.match import is_discrete
from quizzer.templates.instance import Instance


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    del sections  # a question bank always holds questions and answers together
    return _quiz_file(topic_categories(paper), shuffle=False)


def render_versions(papers: list[Paper]) -> bytes:
    """An exam's versions (``--versions N``): one category per question (per part of a multi-part one) holding
    its N versions, each named by its version, so a quiz's random question from that category gives each
    student one version; choices shuffled by Moodle.  The category says the question's marks: a random
    question's slot in a quiz starts at 1 mark (mod/quiz, ``structure::add_random_questions``)."""
    return _quiz_file(version_categories(papers), shuffle=True)


Category = tuple[str, list[tuple[Question, str]]]  # its path below the course's, and its (item, version) questions


def topic_categories(paper: Paper) -> list[Category]:
    """The bank's questions in one category per topic (a question's first), ``quizzer/<topic>``.  A multi-part
    question is one item per part (Moodle cannot carry an answer into the next item)."""
    items = [item for question in paper.each() for item in question.items]
    return [(f"quizzer/{topic}", [(item, "") for item in group])
            for topic, group in groupby(sorted(items, key=_category), key=_category)]


def version_categories(papers: list[Paper]) -> list[Category]:
    """An exam's questions in one category per question (per part), ``quizzer/<exam>/Q03 <title> (2 marks)``,
    each holding the question's version in every paper."""
    first = papers[0]
    exam = _category_name(first.layout.title or first.selection.describe())
    categories: list[Category] = []
    for position in range(1, len(first.questions) + 1):
        asked = [(paper, next(q for q in paper.questions if paper.position(q) == position)) for paper in papers]
        for items in zip(*(question.items for _, question in asked), strict=True):
            item = items[0]
            name = _category_name(f"Q{position:02d}{item.label} {item.instance.title} ({marks(item.instance.points)})")
            categories.append((f"quizzer/{exam}/{name}",
                               [(version_item, paper.version) for (paper, _), version_item in zip(asked, items,
                                                                                                  strict=True)]))
            first.step()
    return categories


def _quiz_file(categories: list[Category], *, shuffle: bool) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for path, questions in categories:
        parts.append(f'<question type="category"><category><text>$course$/{escape(path)}</text></category></question>')
        parts += [question_xml(item, version=version, shuffle=shuffle) for item, version in questions]
    parts.append("</quiz>\n")
    return "\n".join(parts).encode()


def _category_name(text: str) -> str:
    """A category's name: a ``/`` would make it a path of categories."""
    return " ".join(text.replace("/", "-").split())


def _category(question: Question) -> str:
    return question.instance.topics[0]


def question_xml(question: Question, *, version: str = "", shuffle: bool = False, mark_in_name: bool = True) -> str:
    """One ``<question>`` of Moodle XML (``mark_in_name``: a cloze Moodle cannot mark out of its points says in
    its name the mark to set in the quiz; a backup's quiz sets it)."""
    instance = question.instance
    qtype, text, answers = _TYPES[instance.kind](question)
    if shuffle:
        answers = answers.replace("<shuffleanswers>0</shuffleanswers>", "<shuffleanswers>1</shuffleanswers>")
    solution = instance.solution + _in_moodle(question)
    return (f'<question type="{qtype}">\n'
            f"<name><text>{escape(_name(question, version, with_mark=mark_in_name))}</text></name>\n"
            f'<questiontext format="html">{_with_figure(question, "prompt", text)}</questiontext>\n'
            f'<generalfeedback format="html">{_with_figure(question, "solution", _html(solution))}'
            "</generalfeedback>\n"
            f"<defaultgrade>{number_text(instance.points)}</defaultgrade><penalty>0.3333333</penalty><hidden>0</hidden>\n"
            f"<idnumber>{escape(f'{instance.key}@{instance.seed}' + (f'#{question.label}' * bool(question.label)))}"
            "</idnumber>\n"
            f"{answers}</question>")


def _numerical(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    tolerance = moodle_tolerance(instance, instance.answer)
    right = shown_answer(moodle_center(instance, instance.answer), tolerance)
    answers = [_answer(100, right, "", tolerance, html=False)]
    band = half_credit(instance, instance.answer)
    if band is not None:  # before the mistakes: quizzer pays a rounding its half even where it is a mistake's value
        answers.append(_answer(100 * PRECISION_CREDIT, number_text(band[0]), ROUNDED_SHORT, band[1], html=False))
    answers += [_answer(0, number_text(moodle_center(instance, wrong.value)), wrong.feedback,
                        moodle_tolerance(instance, wrong.value), html=False)
                for wrong in instance.spec.wrong_answers]
    return "numerical", _html(instance.prompt), "".join(answers)


def _entries(question: Question) -> tuple[str, str, str]:
    """A vector or matrix: one blank per entry, each earning its share; or, graded all or nothing (whole
    numbers: a mask, token ids), one short answer written in any of the usual ways."""
    return _cloze(question) if question.instance.spec.partial_credit else _shortanswer(question)


def _cloze(question: Question) -> tuple[str, str, str]:
    """One NUMERICAL blank per entry: Moodle has no vector or matrix answer of its own."""
    instance = question.instance
    rows = np.atleast_2d(np.asarray(instance.answer, dtype=float))
    given = given_entries(instance, rows.shape)
    blanks = iter(cloze_blanks(instance))
    cells = ["".join(f"<td>{number_text(value)}</td>" if printed else f"<td>{next(blanks).syntax()}</td>"
                     for value, printed in zip(row, printed_row, strict=True))
             for row, printed_row in zip(rows, given, strict=True)]
    table = '<table class="quizzer-answer">' + "".join(f"<tr>{row}</tr>" for row in cells) + "</table>"
    return "cloze", _html(instance.prompt) + table, ""


def cloze_marks_differ(paper: Paper) -> list[tuple[str, float, int]]:
    """The clozes whose Moodle total cannot be their points: (name, points, Moodle's total)."""
    found = []
    for question in paper.questions:
        for item in question.items:
            total = cloze_total(item.instance)
            if total is not None and total != item.instance.points:
                found.append((_name(item, with_mark=False), item.instance.points, total))
    return found


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
                       "" if value == instance.answer else feedback, html=False) for value in (True, False)]
    return "truefalse", _html(instance.prompt), "".join(answers)


def _shortanswer(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    answers = [_answer(100, _literal(form), "", html=False) for form in written_forms(instance)]
    answers += [_answer(0, _literal(str(wrong.value)), wrong.feedback, html=False)
                for wrong in instance.spec.wrong_answers if instance.kind == "expression"]
    if instance.kind in ("vector", "matrix"):  # a known mistake, however it is typed, gets its feedback
        answers += [_answer(0, form, wrong.feedback, html=False) for wrong in instance.spec.wrong_answers
                    if is_discrete(np.asarray(wrong.value, dtype=float))
                    for form in whole_number_forms(instance.kind, wrong.value)]
    # Case matters: d and D may be different variables, and quizzer reads them so.
    return "shortanswer", _html(instance.prompt), "<usecase>1</usecase>\n" + "".join(answers)


def _literal(text: str) -> str:
    """A short answer that matches only itself: Moodle reads a bare ``*`` as "anything"."""
    return text.replace("*", "\\*")


def _essay(question: Question) -> tuple[str, str, str]:
    instance = question.instance
    info = f'<graderinfo format="html">{_cdata(_html(instance.answer_text))}</graderinfo>\n'
    settings = ("<responseformat>editor</responseformat><responserequired>1</responserequired>"
                "<responsefieldlines>10</responsefieldlines>\n")
    return "essay", _html(instance.prompt), settings + info


def _ordering(question: Question) -> tuple[str, str, str]:
    """The steps in their right order (``fraction`` numbers them), each as inline HTML; Moodle shuffles them."""
    instance = question.instance
    steps = [instance.choices[position] for position in instance.answer]
    settings = (f"<layouttype>VERTICAL</layouttype><selecttype>ALL</selecttype><selectcount>{len(steps)}</selectcount>"
                "<gradingtype>ALL_OR_NOTHING</gradingtype><showgrading>HIDE</showgrading>"
                "<numberingstyle>none</numberingstyle>\n"
                # Without it Moodle's ordering importer (qtype_ordering::import_from_xml) invents five hints
                # with no text and no format, which PostgreSQL refuses ("Error writing to database") and
                # the import stops there.  Moodle's own export always writes it.
                "<shownumcorrect>1</shownumcorrect>\n")
    answers = [f'<answer fraction="{place}" format="html">{_cdata(to_html_inline(step, math="mathjax"))}</answer>\n'
               for place, step in enumerate(steps, start=1)]
    return "ordering", _html(instance.prompt + _DRAG), settings + "".join(answers)


def written_forms(instance: Instance) -> list[str]:
    """The ways people write the same shape, expression or order of steps, without duplicates."""
    if instance.kind == "shape":
        return shape_forms(instance)
    if instance.kind == "expression":
        return expression_forms(instance)
    if instance.kind in ("vector", "matrix"):  # whole numbers (graded all or nothing): as typed in quizzer
        forms = whole_number_forms(instance.kind, instance.answer)
    elif instance.kind == "order":  # the displayed letters of the steps, in their right order
        letters = [option_letter(place) for place in instance.answer]
        forms = [" ".join(letters), "".join(letters), ", ".join(letters), ",".join(letters), " > ".join(letters)]
    else:
        forms = [instance.answer_text, instance.answer_text.replace(" ", "")]
    return list(dict.fromkeys(forms))


def whole_number_forms(kind: str, value: Any) -> list[str]:
    """The ways people type a vector or matrix of whole numbers (a mask, token ids) that quizzer reads."""
    rows = [[str(int(entry)) for entry in row] for row in np.atleast_2d(np.asarray(value))]
    if kind == "vector":
        return [f"{left}{joint.join(rows[0])}{right}" for left, right in (("[", "]"), ("(", ")"), ("", ""))
                for joint in (", ", ",")] + [" ".join(rows[0])]
    nested = ["[" + outer.join("[" + inner.join(row) + "]" for row in rows) + "]"
              for outer, inner in ((", ", ", "), (",", ","))]
    return nested + [between.join(inner.join(row) for row in rows)
                     for between in ("; ", ";", " ; ") for inner in (" ", ", ", ",")]


def _answer(fraction: float, text: str, feedback: str, tolerance: float | None = None, *, html: bool = True) -> str:
    body = _cdata(_html(text)) if html and text else f"<text>{escape(text)}</text>"
    extra = f"<tolerance>{number_text(tolerance)}</tolerance>" if tolerance is not None else ""
    fmt = ' format="html"' if html else ' format="moodle_auto_format"'
    return (f'<answer fraction="{percent_text(fraction)}"{fmt}>{body}{extra}'
            f'<feedback format="html">{_cdata(_html(feedback)) if feedback else "<text></text>"}</feedback></answer>\n')


def _html(markdown: str) -> str:
    return to_html(markdown, math="mathjax")


def _with_figure(question: Question, where: str, html: str) -> str:
    """The text with the question's figure (if it goes ``where``) attached as an embedded SVG file."""
    figure = question.instance.figure
    if figure is None or figure.where != where:
        return _cdata(html)
    from quizzer.figures import draw

    svg = draw(figure).encode()
    name = f"figure-{hashlib.sha256(svg).hexdigest()[:12]}.svg"
    image = f'<p><img src="@@PLUGINFILE@@/{name}" alt="figure" style="max-width: 100%"></p>'
    encoded = base64.b64encode(svg).decode()
    return _cdata(html + image) + f'\n<file name="{name}" path="/" encoding="base64">{encoded}</file>'


def _cdata(html: str) -> str:
    return "<text><![CDATA[" + html.replace("]]>", "]]]]><![CDATA[>") + "]]></text>"


_DRAG = "\n\n*In Moodle:* the steps have no letters here: drag them into the order they happen."

_ALL_OR_NOTHING = ("\n\n*In Moodle:* only the exact order earns the marks; any other order scores 0. "
                   "`quizzer grade` gives partial credit by pairs of steps — (pairs in the right order − pairs "
                   "inverted) / all pairs, at least 0, and 0 when a pair the question examines is inverted — which "
                   "Moodle's ordering question cannot compute, and each of "
                   "its partial-credit rules would pay some wrong orders more than that.")

_TEXT_ONLY = ("\n\n*In Moodle:* the typed text is compared with the answer as written above, so an equal "
              "expression written differently is marked wrong here; `quizzer grade` checks equivalence.")

_TRANSPOSED = ("\n\n*In Moodle:* each entry is marked on its own, so a matrix typed transposed (its rows as "
               "the columns) still earns the entries it shares with the answer, its diagonal; `quizzer grade` "
               "scores a transposed matrix 0, as worked in the wrong orientation.")

_TYPES: dict[str, Callable[[Question], tuple[str, str, str]]] = {
    "number": _numerical, "integer": _numerical, "vector": _entries, "matrix": _entries,
    "choice": _multichoice, "multi": _multichoice, "bool": _truefalse, "shape": _shortanswer,
    "expression": _shortanswer, "text": _essay, "order": _ordering,
}
_IN_MOODLE = {"expression": _TEXT_ONLY, "order": _ALL_OR_NOTHING}  # what Moodle grades differently, for the feedback


def _in_moodle(question: Question) -> str:
    """What Moodle grades differently from quizzer, said in the question's general feedback."""
    instance = question.instance
    if instance.kind in _IN_MOODLE:
        return _IN_MOODLE[instance.kind]
    return _TRANSPOSED if transposable_cloze(instance) else ""


def _name(question: Question, version: str = "", *, with_mark: bool = True) -> str:
    """The question's name in Moodle's bank (the teacher's view): number, title, and where it came from; for a
    cloze Moodle cannot mark out of its points (``blank_weight``), the mark to give it in the quiz."""
    instance = question.instance
    where = f"version {version} · " if version else ""
    total = cloze_total(instance)
    mark = f" · set its mark in the quiz to {instance.points:g}, not {total}" \
        if with_mark and total is not None and total != instance.points else ""
    return f"{question.number}{question.label}. {instance.title} [{where}{instance.key} · seed {instance.seed}{mark}]"
