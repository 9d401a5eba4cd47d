"""The document every export format renders: a paper of numbered questions and its answer sheet.

Formats never look at templates or grading internals: they read a :class:`Paper` — which
questions, how to regenerate them, and for each question its prompt, choices, answer (with
the accepted tolerance), worked solution, common wrong answers, misconception notes and
figure — all as Markdown with ``$…$`` math, exactly as the templates write it.  What is not
Markdown in a template (a typed expression such as ``3*n*a + 2*a``, a catalogue title) is
made Markdown here, once, so every format shows it the same way.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import msgspec
import numpy as np

from quizzer.grading.describe import describe, option_letter
from quizzer.grading.hints import entries_credit, order_credit, selection_credit
from quizzer.grading.match import is_discrete
from quizzer.templates.answer_text import Mistake
from quizzer.templates.catalog import load_catalog, misconception_feedback
from quizzer.templates.instance import Instance, PartInstance
from quizzer.text.mathtext import code_span

Section = Literal["paper", "answers"]
SECTIONS: tuple[Section, ...] = ("paper", "answers")
TOLERANT_KINDS = ("number", "vector", "matrix")


@dataclass(frozen=True)
class Selection:
    """What was asked for on the command line; with the seed it fixes the paper exactly."""

    seed: int
    keys: tuple[str, ...] = ()
    topic: str | None = None
    week: int | None = None
    paper: str | None = None
    n: int | None = None

    def options(self) -> list[str]:
        """The command-line options that select the same questions."""
        options = [arg for key in self.keys for arg in ("--key", key)]
        for flag, value in (("--topic", self.topic), ("--week", self.week), ("--paper", self.paper), ("-n", self.n)):
            if value is not None:
                options += [flag, str(value)]
        return options + ["--seed", str(self.seed)]

    def describe(self) -> str:
        """A title for the paper: ``topic causal_self_attention``, ``week 2``, ``paper 2024T3_Q1_NA``."""
        parts = [f"topic {self.topic}" if self.topic else "", f"week {self.week}" if self.week else "",
                 f"paper {self.paper}" if self.paper else "",
                 f"{len(self.keys)} chosen question{'s' * (len(self.keys) != 1)}" if self.keys else ""]
        return ", ".join(part for part in parts if part) or "the whole bank"


@dataclass(frozen=True)
class Layout:
    """How an exam paper is laid out: page size, its own title, instructions (Markdown, from a file)."""

    paper_size: Literal["a4", "letter"] = "a4"
    title: str | None = None
    instructions: str = ""
    instructions_file: str | None = None  # as given on the command line, for the regenerate command

    def options(self) -> list[str]:
        options = ["--paper-size", self.paper_size] if self.paper_size != "a4" else []
        options += ["--title", self.title] if self.title else []
        return options + (["--instructions", self.instructions_file] if self.instructions_file else [])


PLAIN = Layout()


@dataclass(frozen=True)
class Note:
    """A misconception on the Anki card: the wrong answer it leads to and what went wrong."""

    answer: str
    feedback: str


@dataclass(frozen=True)
class CommonWrongAnswer:
    """A common wrong answer on the answer sheets: what a learner making a known mistake answers, and why.

    All three are Markdown: ``answer`` is a typed answer as a code span (`` `3*n*a + 2*a` ``,
    `` `18,981,000` ``) or, for a choice, the option(s) as the paper shows them (``(b) $k = 10$``);
    ``mistake`` is the catalogue's title of the misconception ("" for a distractor that only has
    feedback); ``feedback`` says what went wrong, in this instance's numbers.
    """

    answer: str
    mistake: str
    feedback: str


@dataclass(frozen=True)
class Question:
    number: int
    instance: Instance
    answer: str
    accepted: str  # how close a typed answer must be ("" when it must be exact)
    notes: tuple[Note, ...]  # the Anki card's misconception notes
    wrong_answers: tuple[CommonWrongAnswer, ...] = ()  # the answer sheets' common wrong answers
    # A multi-part question: ``instance`` prints its parts one after another under the stem (one question
    # with sub-questions, for papers, sheets and cards); ``parts`` are the same parts as questions of their
    # own, for an LMS that takes one item per part; ``whole`` the instance as made (JSON writes it).
    parts: tuple[Question, ...] = ()
    label: str = ""  # a part's letter ("b"), with ``number`` its question's
    whole: Instance | None = None

    @property
    def items(self) -> tuple[Question, ...]:
        """What an LMS gets: one item per part of a multi-part question, else the question itself."""
        return self.parts or (self,)

    @property
    def sheet_answer(self) -> str:
        """The answer as the sheets show it: a typed expression as typed and as maths (``3*n*a`` keeps its stars);
        an order's letters, then its steps in that order (the worked solution numbers the steps, not letters)."""
        instance = self.instance
        if instance.kind == "expression":
            return typed_expression(self.answer)
        if instance.kind == "order" and not instance.parts:
            steps = [f"{place}. ({option_letter(step)}) {instance.choices[step]}"
                     for place, step in enumerate(instance.answer, start=1)]
            return "\n".join([self.answer, "", *steps])
        return self.answer

    @property
    def answer_is_block(self) -> bool:
        """A model answer of several lines (a list, paragraphs) starts on its own line after its label."""
        return "\n" in self.sheet_answer.strip()

    @property
    def tags(self) -> tuple[str, ...]:
        """Topics, week, paper and key as tags without spaces (Anki splits tags at spaces)."""
        paper = self.instance.key.split(" ")[0] if " " in self.instance.key else None
        tags = [*(f"topic::{topic}" for topic in self.instance.topics), f"week::{self.instance.week}",
                *([f"paper::{paper}"] if paper else []), f"key::{self.instance.key}"]
        return tuple(tag.replace(" ", "_") for tag in tags)


@dataclass(frozen=True)
class Paper:
    selection: Selection
    questions: tuple[Question, ...]
    fmt: str
    step: Callable[[], None] = field(default=lambda: None, compare=False, repr=False)
    output: str | None = None  # the file name written (-o), so the printed command writes it again
    version: str = ""  # with --versions: this paper's code (A, B, …), printed on every page
    versions: int = 1
    layout: Layout = PLAIN
    # An exam paper (papercode): its code, printed instead of any seed, key or command on the student's paper;
    # each printed question's place in the teacher's order; the exam's options for the regenerate command.
    code: str = ""
    positions: tuple[int, ...] = ()
    exam_options: tuple[str, ...] = ()

    @property
    def exam(self) -> bool:
        """An exam paper hands out nothing that reproduces its answers: no key, seed or command on it."""
        return bool(self.code)

    @property
    def title(self) -> str:
        version = f" · version {self.version}" if self.version else ""
        kind = "Exam: " if self.exam else "Practice paper: "
        return f"{self.layout.title or kind + self.selection.describe()}{version}"

    @property
    def command(self) -> str:
        """The shell command that writes this same paper again."""
        return regenerate_command(self.selection, self.fmt, self.output, self.versions, self.layout,
                                  self.exam_options)

    def position(self, question: Question) -> int:
        """Where a printed question is in the teacher's order (its number, unless the questions were shuffled)."""
        return self.positions[question.number - 1] if self.positions else question.number

    @property
    def total_points(self) -> float:
        return sum(question.instance.points for question in self.questions)

    @property
    def totals(self) -> str:
        """``20 questions, 37 marks``: printed under the title."""
        count = len(self.questions)
        return f"{count} question{'s' * (count != 1)}, {marks(self.total_points)}"

    def each(self) -> Iterator[Question]:
        """The questions in order, reporting each one done to the progress display."""
        for question in self.questions:
            yield question
            self.step()


def regenerate_command(selection: Selection, fmt: str, output: str | None, versions: int = 1,
                       layout: Layout = PLAIN, exam_options: Sequence[str] = ()) -> str:
    """``quizzer export … --format FMT [--versions N] [layout] [-o NAME]``: runs as printed, in the file's folder."""
    return shlex.join(["quizzer", "export", *selection.options(), *(["--versions", str(versions)] * (versions > 1)),
                       *exam_options, *layout.options(), "--format", fmt, *(["-o", output] if output else [])])


def build_paper(instances: Sequence[Instance], selection: Selection, fmt: str,
                step: Callable[[], None] = lambda: None, output: str | None = None, *, version: str = "",
                versions: int = 1, layout: Layout = PLAIN, code: str = "", positions: tuple[int, ...] = (),
                exam_options: tuple[str, ...] = ()) -> Paper:
    questions = tuple(_question(number, instance) for number, instance in enumerate(instances, 1))
    return Paper(selection=selection, questions=questions, fmt=fmt, step=step, output=output, version=version,
                 versions=versions, layout=layout, code=code, positions=positions, exam_options=exam_options)


# What an LMS item of one part says: it cannot carry a learner's answer from one item into the next.
FOLLOW_THROUGH_NOTE = ("*Part ({label}) of a multi-part question. This item is marked on its own: an answer right on "
                       "your own (wrong) answer to an earlier part is not credited here; `quizzer grade` marks that "
                       "follow-through.*")


def _accepted(instance: Instance) -> str:
    """How close a typed answer must be (nothing for an exact one: whole numbers, token ids, masks), and how
    the marks of a select-all, ordering, vector or matrix answer are shared when not all or nothing (a
    vector's: when not an equal share per entry), as ``quizzer grade`` decides."""
    spec = instance.spec
    if instance.kind == "multi":
        return selection_credit(len(spec.expected))
    if instance.kind == "expression":  # checked by value at several points, as quizzer grade does
        return "in any equivalent form"
    if instance.kind == "order":
        return order_credit([option_letter(position) for position in spec.expected], spec.must_precede)
    if instance.kind not in ("vector", "matrix"):
        return spec.tolerance.describe() if instance.kind in TOLERANT_KINDS else ""
    closeness = "exactly" if is_discrete(np.asarray(instance.answer, dtype=float)) else spec.tolerance.describe()
    return "; ".join(part for part in (closeness, entries_credit(spec.given, spec.partial_credit)) if part)


def _question(number: int, instance: Instance) -> Question:
    if instance.parts:
        return _multi_part(number, instance)
    spec = instance.spec
    accepted = _accepted(instance)
    kind = "choice" if instance.kind == "multi" else instance.kind  # a select-all distractor is one option
    notes = tuple(
        # A label ends where its colon begins: "(c) The FFN has …", not "(c) The FFN has ….:".
        Note(typed_expression(str(wrong.value)) if kind == "expression" else
             describe(kind, wrong.value, options=instance.choices, digits=spec.tolerance.display_digits()).rstrip("."),
             wrong.feedback)
        for wrong in spec.wrong_answers if wrong.feedback
    )
    wrong_answers = (_wrong_answer(instance, mistake) for mistake in instance.mistakes)
    return Question(number=number, instance=instance, answer=instance.answer_text, accepted=accepted, notes=notes,
                    wrong_answers=tuple(wrong for wrong in wrong_answers if wrong.mistake or wrong.feedback))


def _multi_part(number: int, instance: Instance) -> Question:
    """One question with sub-questions: the stem, then each part with its letter, marks and answer."""
    parts = tuple(
        replace(_question(number, msgspec.structs.replace(part.question, title=f"{instance.title} ({part.label})",
                                                              prompt=f"{part.standalone_prompt}\n\n"
                                                                     f"{FOLLOW_THROUGH_NOTE.format(label=part.label)}")),
                label=part.label)
        for part in instance.parts)
    labels = {part.step.name: part.label for part in instance.parts}
    parts = tuple(replace(question, accepted="; ".join(filter(None, (question.accepted,
                                                                     _follow_through(part, labels)))))
                  for question, part in zip(parts, instance.parts, strict=True))
    asked = [f"**({part.label})** {part.question.prompt.strip()} ({marks(part.question.points)})"
             for part in instance.parts]
    prompt = "\n\n".join([instance.prompt.rstrip(), *asked])
    return Question(
        number=number, instance=msgspec.structs.replace(instance, prompt=prompt),
        answer="\n".join(f"- ({q.label}) {q.sheet_answer}" for q in parts),
        accepted="; ".join(f"({q.label}) {q.accepted}" for q in parts if q.accepted),
        notes=tuple(Note(f"({q.label}) {note.answer}", note.feedback) for q in parts for note in q.notes),
        wrong_answers=tuple(replace(wrong, answer=f"({q.label}) {wrong.answer}") for q in parts
                            for wrong in q.wrong_answers),
        parts=parts, whole=instance)


def _follow_through(part: PartInstance, labels: dict[str, str]) -> str:
    """What a part right on the learner's own earlier answers earns (quizzer.grading.parts), for a sheet."""
    step = part.step
    if not step.depends or step.follow_through <= 0:
        return ""
    earlier = " and ".join(f"({labels[name]})" for name in sorted(step.depends, key=list(labels).index))
    credit = "full marks" if step.follow_through >= 1 else f"{step.follow_through:.0%} of its marks"
    return f"also when right on the learner's own {earlier}, {credit}"


def _wrong_answer(instance: Instance, mistake: Mistake) -> CommonWrongAnswer:
    if instance.kind in ("choice", "multi"):  # the option(s) as the paper prints them, not a bare letter
        options = tuple(choice.rstrip(".") for choice in instance.choices)  # a dash follows: "(b) … — …"
        answer = describe(instance.kind, mistake.answer, options=options)
    elif instance.kind == "expression":
        answer = typed_expression(mistake.answer_text)
    else:
        answer = code_span(mistake.answer_text)
    info = load_catalog().misconceptions.get(mistake.id) if mistake.id else None
    feedback = mistake.feedback
    if info is not None and feedback == misconception_feedback(info.id):
        feedback = info.correction  # the catalogue's own feedback restates the title: keep what follows it
    title = plain_markdown(info.title) if info else ""
    return CommonWrongAnswer(answer=answer, mistake=title, feedback=feedback.strip())


def marks(points: float) -> str:
    """``1 mark``, ``2 marks``, ``1.5 marks``."""
    return f"{points:g} mark{'s' * (points != 1)}"


def typed_expression(text: str) -> str:
    """An expression as a student types it (a code span) and as maths: `` `3*n*a + 2*a` ($3na + 2a$)``."""
    from quizzer.export.exprmath import expression_latex

    return f"{code_span(text.strip())} (${expression_latex(text)}$)"


# What would start Markdown (or math) inside a line; "_" only at a word's edge (d_k is safe as it is).
_MARKUP = re.compile(r"[\\`*$<\[\]&~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def plain_markdown(text: str) -> str:
    """Plain text (a catalogue title) as Markdown that reads back as the same text."""
    return _MARKUP.sub(lambda match: "\\" + match[0], text)
