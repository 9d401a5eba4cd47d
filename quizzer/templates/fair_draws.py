"""Fair draws: on every seed validated, what a wrong answer earns, and whether the numbers drawn ask anything.

``quizzer validate`` renders each seed and hands every instance to :class:`FairDraws`, which checks
(questions/README.md, "What validation checks", 6):

(a) the mistake a question examines never earns credit: each listed misconception's answer, typed as a
    learner would, earns at most a third of the marks, unless the misconception says why it may keep more
    (``keeps_credit``: the question examines only part of the answer);
(b) an answer of zeros, or of any one number repeated, earns at most half of a vector or matrix question;
(c) no degenerate draw: no two rows of a matrix answer coincide, no column of it is one number, unless the
    template says why (``exempt: {equal_rows: …, constant_column: …}``);
(d) the seeds give at least ``MIN_DISTINCT`` different instances (a question drawn from a handful of
    variants is learned by heart, not worked);
(e) an entry listed under ``given_entries`` earns nothing, and an entry that is the same on every seed (a
    learner gets it without working) is listed there, unless the template says why not
    (``exempt: {fixed_entries: …}``).

Each check raises a :class:`TemplateError` naming the field to change; ``validate`` adds the seed and the
values drawn.  Scores are the grader's own (``quizzer.grading.verdict.grade``), on the text a learner would
type, without the misconception catalogue (a recognised mistake never changes a score) and without discovery.

Imports: NumPy, msgspec, ``quizzer.common``, grading, and the template instance and schema.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import msgspec
import numpy as np

from quizzer.common.errors import TemplateError
from quizzer.grading.describe import format_number
from quizzer.grading.match import values_match
from quizzer.grading.verdict import AnswerSpec, grade
from quizzer.templates.draw import template_where
from quizzer.templates.instance import Instance
from quizzer.templates.parts import in_part
from quizzer.templates.schema import Misconception, Template

# (a) The most a listed mistake may earn: a third.  A matrix whose mistake keeps two of three rows would pass
# a half; the examples (0.667 for leaving Z unpermuted, for the batch statistics) are what it forbids.
MAX_MISTAKE_CREDIT = 1 / 3
# (b) The most an answer of one number repeated may earn (the scoring rules promise a half at most).
MAX_CONSTANT_CREDIT = 1 / 2
# (d) Different instances (prompts) a computed question's validated seeds must give, when 20 or more are tried.
# Ten: a student meets one question about five times a term (practice, review, the mock exam); from ten equally
# likely variants those five are all different with probability 10·9·8·7·6 / 10^5 = 0.30 and at most one repeats
# with 0.80, so the numbers still have to be worked.  The defect had five (two of every five draws a
# repeat).  A question whose draws pick a statement (true/false, a choice, an expression) is not counted: its
# variants are the statements.
MIN_DISTINCT = 10
_COUNTED = ("number", "integer", "vector", "matrix", "parts")
# Judged over this many seeds or more (`quizzer verify` and an import render one or a few).
MIN_SEEDS_TO_JUDGE = 20

_EPS = 1e-9


class FairDraws:
    """Checks (a)–(e) over the seeds of one template: ``check(instance)`` on each, ``finish()`` after all."""

    def __init__(self, template: Template, seeds: int):
        self.template, self.seeds = template, seeds
        self.prompts: set[int] = set()
        # (e) per question (field prefix): each entry's value on the first seed, or None once it has changed
        self.first_values: dict[str, np.ndarray] = {}
        self.fixed: dict[str, np.ndarray | None] = {}  # true: the same so far, and not listed as given

    def check(self, instance: Instance) -> None:
        """(a), (b), (c), (e) on one instance; a part's problem is named under its part."""
        self.prompts.add(hash((instance.prompt, instance.choices, instance.answer_text)))
        for index, part in enumerate(instance.parts):
            try:
                self._question(part.question, f"parts.{index}.", self.template.parts[index].misconceptions
                               if self.template.parts else ())
            except TemplateError as exc:
                raise in_part(exc, index) from None
        if not instance.parts:
            self._question(instance, "", self.template.misconceptions)

    def finish(self) -> None:
        """(d) and (e) over all the seeds."""
        if self.seeds < MIN_SEEDS_TO_JUDGE:
            return
        needed = min(MIN_DISTINCT, self.seeds // 2)
        counted = self.template.kind in _COUNTED and self.template.params
        if counted and len(self.prompts) < needed and not self._exempt("few_instances"):
            self._fail("params", f"the {self.seeds} seeds give only {len(self.prompts)} different instances "
                       f"(at least {needed}): a question drawn from so few variants is learned by heart; widen the "
                       "ranges or choices drawn, or declare why under exempt: {few_instances: …}")
        if self._exempt("fixed_entries"):
            return
        for prefix, fixed in self.fixed.items():
            if fixed is None:
                continue
            free = [tuple(int(i) + 1 for i in index) for index in np.argwhere(fixed)]
            if free:
                entry = ", ".join(map(str, free[0]))
                self._fail(f"{prefix}given_entries", f"entry ({entry}) of the answer is the same on every one of "
                           f"the {self.seeds} seeds: a learner gets it without working it out; list it under "
                           "given_entries (it then earns nothing), draw numbers that change it, or declare why under "
                           "exempt: {fixed_entries: …}")

    # --- one question ---------------------------------------------------------------------------

    def _question(self, question: Instance, prefix: str, misconceptions: Sequence[Misconception]) -> None:
        spec = question.spec
        if question.kind in ("choice", "multi", "text", "expression", "bool", "shape", "order"):
            return  # scored 0 or 1 per answer (an order's examined pair is checked by check_instance)
        bare = msgspec.structs.replace(spec, wrong_answers=(), discover=None)  # the score alone
        for mistake, index in zip(question.mistakes, question.live_misconceptions, strict=True):
            declared = misconceptions[index].keeps_credit if index < len(misconceptions) else None
            if declared:
                continue
            earned = grade(bare, mistake.answer_text).score
            if earned > MAX_MISTAKE_CREDIT + _EPS:
                self._fail(f"{prefix}misconceptions.{index}",
                           f"({mistake.id}) its answer ({_short(mistake.answer_text)}) earns {earned:.2f} of the "
                           "marks: the mistake a question examines earns at most a third; draw numbers on which it "
                           "changes more of the answer (require), list the entries it shares with the answer under "
                           "given_entries, or say why it keeps credit (keeps_credit: …)")
        if question.kind in ("vector", "matrix") and spec.partial_credit:
            self._constant_answers(question, bare, prefix)
            if question.kind == "matrix":
                self._degenerate(question, prefix)
            self._given(question, bare, prefix)

    def _constant_answers(self, question: Instance, spec: AnswerSpec, prefix: str) -> None:
        """(b): zeros, and each value of the answer (of a long one, the most frequent), in every entry."""
        if self._exempt("constant_answer"):
            return
        expected = np.asarray(question.answer, dtype=float)
        free = expected if spec.given is None else expected[~np.asarray(spec.given)]
        # every value of a short answer (a value near another one earns both within the tolerance), else the
        # three most frequent
        common = Counter(np.round(free.ravel(), 12).tolist()).most_common(None if free.size <= 8 else 3)
        near = spec.tolerance.loosened()  # any credit an entry can earn (right, or right at one place fewer)
        for value in dict.fromkeys([0.0, *(value for value, _ in common)]):
            if sum(near.accepts(value, entry) for entry in free.ravel().tolist()) <= MAX_CONSTANT_CREDIT * free.size:
                continue  # too few entries near it to earn more than a half: not worth a grade
            typed = _constant_text(expected.shape, value)
            earned = grade(spec, typed).score
            if earned > MAX_CONSTANT_CREDIT + _EPS:
                what = "zeros" if value == 0 else f"{format_number(value)} in every entry"
                self._fail(f"{prefix}answer", f"an answer of {what} earns {earned:.2f} of the marks (at most a "
                           "half): more than half the entries worked out are that one number; exclude such draws "
                           "with require, or list entries the prompt gives away under given_entries")

    def _degenerate(self, question: Instance, prefix: str) -> None:
        """(c): rows that coincide, a column of one number."""
        expected = np.asarray(question.answer, dtype=float)
        given = np.zeros(expected.shape, bool) if question.spec.given is None else np.asarray(question.spec.given)
        tolerance = question.spec.tolerance
        if not self._exempt("equal_rows"):
            for i, j in _pairs(expected.shape[0]):
                if values_match("vector", expected[i], expected[j], tolerance):
                    self._fail(f"{prefix}answer", f"rows {i + 1} and {j + 1} of the answer are the same: one "
                               "worked row earns the other, and a mistake that mixes rows up goes unseen; exclude "
                               "such draws with require, or declare why under exempt: {equal_rows: …}")
        if not self._exempt("constant_column") and expected.shape[0] > 1:
            for column in range(expected.shape[1]):
                worked = expected[~given[:, column], column]
                if len(worked) > 1 and values_match("vector", worked, np.full(len(worked), worked[0]), tolerance):
                    self._fail(f"{prefix}answer", f"column {column + 1} of the answer is {format_number(worked[0])} "
                               "in every row worked out: one entry earns the column; exclude such draws with "
                               "require, or declare why under exempt: {constant_column: …}")

    def _given(self, question: Instance, spec: AnswerSpec, prefix: str) -> None:
        """(e): the given entries typed right and every other wrong earn nothing; entries fixed over the seeds
        are remembered (``finish``)."""
        expected = np.asarray(question.answer, dtype=float)
        if spec.given is not None:
            wrong = np.where(spec.given, expected, np.abs(expected).max() * 10 + 7)
            if (earned := grade(spec, _array_text(wrong)).score) > 0:
                self._fail(f"{prefix}given_entries", f"the entries given away, typed with every other entry "
                           f"wrong, earn {earned:.2f} of the marks: they must earn nothing")
        unlisted = np.ones(expected.shape, bool) if spec.given is None else ~np.asarray(spec.given)
        if prefix not in self.first_values:
            self.first_values[prefix], self.fixed[prefix] = expected, unlisted
            return
        fixed, first = self.fixed[prefix], self.first_values[prefix]
        if fixed is not None:  # an answer whose shape changes with the draw has no fixed entries
            self.fixed[prefix] = None if first.shape != expected.shape else \
                fixed & unlisted & np.isclose(expected, first, rtol=1e-12, atol=1e-12)

    def _exempt(self, what: str) -> bool:
        return what in (self.template.exempt or {})

    def _fail(self, field: str, message: str) -> None:
        raise TemplateError(f"field {field!r}: {message}", where=template_where(self.template))


def _pairs(n: int) -> Iterator[tuple[int, int]]:
    return ((i, j) for i in range(n) for j in range(i + 1, n))


def _constant_text(shape: tuple[int, ...], value: float) -> str:
    return _array_text(np.full(shape, value))


def _array_text(array: np.ndarray) -> str:
    """An array as a learner types it (``1 2; 3 4``), each entry with all its digits."""
    rows = np.atleast_2d(array)
    return "; ".join(" ".join(_number(value) for value in row) for row in rows)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "…"


