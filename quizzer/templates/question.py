"""One question on the values a run drew: the :class:`Instance` (and a multi-part question's
:class:`PartInstance`), and ``question_from``, which computes the answer and every misconception's
wrong answer with the engine and renders prompt, choices, solution and figure.

``quizzer.templates.instance.make_instance`` draws the values and calls ``question_from`` (through
``quizzer.templates.parts`` for each part of a multi-part question), so this module imports neither:
the instance is built top-down (instance → parts → question → discovery → coercion), never in a circle.
"""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np

from quizzer.common.errors import TemplateError
from quizzer.grading.expr import MATH_CONSTANTS
from quizzer.grading.hints import given_note
from quizzer.grading.match import is_discrete, values_match
from quizzer.grading.ordering import order_score
from quizzer.grading.parts import Step
from quizzer.grading.tolerance import Precision, Tolerance, asked_precision
from quizzer.grading.units import units_in
from quizzer.grading.verdict import AnswerSpec, WrongAnswer, asked_text
from quizzer.templates.answer_text import Mistake, jsonable, known_mistakes
from quizzer.templates.answer_text import answer_text as write_answer
from quizzer.templates.catalog import misconception_feedback
from quizzer.templates.coercion import coerce
from quizzer.templates.discovery import Discovery
from quizzer.templates.draw import MAX_DRAWS, Run, figure_of, stream, template_where
from quizzer.templates.figure import Figure
from quizzer.templates.formatting import show
from quizzer.templates.schema import Template


class Instance(msgspec.Struct, frozen=True):
    """One question with its numbers fixed, answer computed and text rendered."""

    key: str
    seed: int
    kind: str
    title: str
    week: int
    topics: tuple[str, ...]
    prompt: str
    solution: str
    answer: Any
    answer_text: str
    spec: AnswerSpec
    choices: tuple[str, ...] = ()
    figure: Figure | None = None
    mistakes: tuple[Mistake, ...] = ()   # what each known mistake answers here, as it would be typed
    points: float = 1.0  # marks: the template's ``points:`` or its kind's default
    values: dict[str, Any] = msgspec.field(default_factory=dict)
    parts: tuple[PartInstance, ...] = ()  # kind 'parts': its steps, asked in order (quizzer.templates.parts)
    # Which of the template's misconceptions (by index) differ from the answer here; the others were dropped.
    live_misconceptions: tuple[int, ...] = ()

    def to_json(self, *, solutions: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "key": self.key, "seed": self.seed, "kind": self.kind, "title": self.title,
            "week": self.week, "topics": list(self.topics), "prompt": self.prompt, "points": self.points,
        }
        if self.choices:
            data["choices"] = list(self.choices)
        if solutions:
            data |= {"answer": jsonable(self.answer), "answer_text": self.answer_text, "solution": self.solution,
                     "mistakes": [mistake.to_json() for mistake in self.mistakes]}
        if self.figure is not None and (solutions or self.figure.where == "prompt"):
            data["figure"] = self.figure.to_json()
        if self.parts:
            data["parts"] = [part.to_json(solutions=solutions) for part in self.parts]
        return data


class PartInstance(msgspec.Struct, frozen=True):
    """One step of a multi-part instance: a question of its own (``question``: its kind, prompt, spec,
    answer, mistakes and points; keyed by the part's routed ID if it has one) and how grading follows
    an earlier part's error through it (``step``)."""

    label: str            # "a", "b", …
    id: str | None        # the routed exam record this step is
    stem: str             # the shared question text the part's prompt continues
    question: Instance
    step: Step

    @property
    def standalone_prompt(self) -> str:
        """The part asked on its own (a separate LMS item, ``show`` of its routed ID): stem, then the part."""
        return f"{self.stem.rstrip()}\n\n{self.question.prompt}"

    def to_json(self, *, solutions: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {"part": self.label, "id": self.id, "kind": self.question.kind,
                                "prompt": self.question.prompt, "points": self.question.points,
                                "follow_through": self.step.follow_through,
                                "depends_on": sorted(self.step.depends)}
        if solutions:
            data |= {"answer_of": self.step.name, "answer": jsonable(self.question.answer),
                     "answer_text": self.question.answer_text,
                     "mistakes": [mistake.to_json() for mistake in self.question.mistakes]}
        return data


def question_from(run: Run, seed: int, shared: tuple[str, Figure | None] | None = None) -> Instance:
    """The question ``run.template`` asks about the values ``run`` drew: its answer, misconceptions, prompt,
    solution and figure.  ``shared``: the solution and figure already rendered from the same values (the
    parts of a multi-part question share them)."""
    template = run.template
    order = _choice_order(template, seed)
    answer, choices = _answer(run, order)
    run.charge_text(answer, "answer")  # written out as text, and typed back when validated
    run.add("answer", answer)
    env = run.env
    prompt = run.render(template.prompt, "prompt")
    precision = asked_precision(prompt) if template.kind in ("number", "vector", "matrix") else None
    tolerance = _tolerance(template, precision)
    given = None if template.given_entries is None else _given_entries(run, answer)
    if given is not None:  # printed with the prompt, so every face (app, paper, LMS, card) shows them as given
        prompt = f"{prompt.rstrip()}\n\n{given_note(answer, given)}\n"
    # Written as the prompt asks ("Give 3 decimals": -1.414, not the tolerance's -1.4142), as the feedback writes it;
    # an entry the prompt gives away exactly as given.
    answer_text = asked_text(template.kind, answer, precision, given) or write_answer(template, answer, choices)
    wrong_answers, live = _wrong_answers(run, order, tolerance)
    spec = AnswerSpec(
        kind=template.kind, expected=answer, tolerance=tolerance, options=choices,
        variables=tuple(template.variables), wrong_answers=wrong_answers,
        expected_text=answer_text, sizes=_named_sizes(env) if template.kind == "shape" else {},
        must_precede=tuple((before, after) for before, after in template.must_precede),
        precision=precision,
        given=given,
        partial_credit=template.partial_credit or _all_or_nothing(template, answer),
        units=units_in(prompt) if template.kind in ("number", "integer") else (),
        discover=Discovery(template, env),  # issue 19: slips found by rerunning the engine, on first use
    )
    solution, figure = shared or (run.render(template.solution, "solution"), figure_of(run))
    return Instance(
        key=template.key, seed=seed, kind=template.kind, title=template.title, week=template.week,
        topics=tuple(template.topics), prompt=prompt, solution=solution, answer=answer,
        answer_text=answer_text, spec=spec, choices=choices, figure=figure,
        mistakes=known_mistakes(template, spec.wrong_answers, choices, precision), points=template.marks, values=env,
        live_misconceptions=live,
    )


# --- answers ------------------------------------------------------------------------------------

def _answer(run: Run, order: list[int]) -> tuple[Any, tuple[str, ...]]:
    """The expected answer, and the displayed choices for choice kinds."""
    template = run.template
    if template.items is not None:  # kind order: the answer is each step's displayed position, in order
        texts = tuple(run.render(template.items[i], f"items.{i}") for i in order)
        return tuple(order.index(step) for step in range(len(order))), texts
    if template.choices is not None:
        texts = tuple(run.render(template.choices[i].text, f"choices.{i}.text") for i in order)
        correct = [shown for shown, i in enumerate(order) if template.choices[i].correct]
        return (correct[0] if template.kind == "choice" else frozenset(correct)), texts
    if template.kind in ("expression", "text"):
        assert isinstance(template.answer, str)
        return run.render(template.answer, "answer"), ()
    return coerce(template, template.kind, run.evaluate(template.answer, "answer"), "answer"), ()


def _given_entries(run: Run, answer: np.ndarray) -> np.ndarray | None:
    """The entries of a vector or matrix answer that the prompt gives away (true), as ``given_entries`` says;
    None when it gives none on this draw (2024T3_Q1_NA Q293 gives its maximum only when position 0 is drawn)."""
    value = run.evaluate(run.template.given_entries, "given_entries")
    given = np.asarray(value)
    if given.dtype != np.bool_ or given.shape != answer.shape:
        raise TemplateError(f"field 'given_entries': must be true or false for each entry of the answer (shape "
                            f"{list(answer.shape)}), got {show(value)}", where=template_where(run.template))
    if given.all():
        raise TemplateError("field 'given_entries': gives away every entry, leaving nothing to work out",
                            where=template_where(run.template))
    return given if given.any() else None


def _all_or_nothing(template: Template, answer: np.ndarray) -> bool:
    """False, once the answer is checked to be whole numbers: all or nothing is for masks and token ids,
    which are exact (an exported paper can check them as text)."""
    if not is_discrete(answer):
        raise TemplateError("field 'partial_credit': 'false' is for answers whose entries are all whole numbers "
                            f"(a mask, token ids), got {show(answer)}", where=template_where(template))
    return False


def _choice_order(template: Template, seed: int) -> list[int]:
    """Displayed position -> index in the template's list, shuffled per seed unless ``shuffle: false``."""
    if template.items is not None:
        return _order_display(template, seed)
    n = len(template.choices or ())
    if not template.shuffle or n < 2:  # nothing to shuffle: seeding a generator would cost more than the instance
        return list(range(n))
    return [int(i) for i in stream(template.key, seed, "choices").permutation(n)]


def _order_display(template: Template, seed: int) -> list[int]:
    """The steps of an ordering question shuffled so that typing the letters as shown scores 0."""
    n = len(template.items or ())
    for draw in range(MAX_DRAWS):
        order = [int(i) for i in stream(template.key, seed, "items", draw).permutation(n)]
        if order_score(range(n), [order.index(step) for step in range(n)]) == 0:
            return order
    return list(reversed(range(n)))  # reversed is as wrong as an order can be


def _wrong_answers(run: Run, order: list[int], tolerance: Tolerance) -> tuple[tuple[WrongAnswer, ...],
                                                                              tuple[int, ...]]:
    """Each misconception's wrong answer (a computed value, or for choice kinds the option it names), and
    the indices in ``misconceptions`` of those kept (for choice kinds, which name options: none)."""
    template = run.template
    if template.kind in ("choice", "multi"):
        assert template.choices is not None
        return tuple(
            WrongAnswer(choice.misconception, shown, _feedback(run, choice.feedback, choice.misconception,
                                                               f"choices.{i}.feedback"))
            for shown, i in enumerate(order)
            if not (choice := template.choices[i]).correct and (choice.misconception or choice.feedback)
        ), ()
    wrong, live = [], []
    for i, m in enumerate(template.misconceptions):
        where = f"misconceptions.{i}.answer"
        if template.kind == "order":
            value: Any = _displayed_order(template, run.evaluate(m.answer, where), order, where)
        elif template.kind == "expression":
            value = run.render(str(m.answer), where)
        else:
            value = coerce(template, template.kind, run.evaluate(m.answer, where), where)
        run.charge_text(value, where)
        # A mistake that gives the right answer on this draw (bias=False makes "forgot the biases" harmless) is
        # no mistake here: it is dropped for this seed, so a right answer is never graded as a mistake.
        if values_match(template.kind, value, run.env["answer"], tolerance):
            continue
        feedback = _feedback(run, m.feedback, m.id, f"misconceptions.{i}.feedback")
        wrong.append(WrongAnswer(m.id, value, feedback))
        live.append(i)
    return tuple(wrong), tuple(live)


def _displayed_order(template: Template, steps: Any, order: list[int], where: str) -> tuple[int, ...]:
    """A mistaken order, written as the items' numbers (1 = the first step), as displayed positions."""
    numbers = [int(step) for step in np.ravel(np.asarray(steps, dtype=float))]
    if sorted(numbers) != list(range(1, len(order) + 1)):
        raise TemplateError(f"field {where!r}: an ordering mistake lists every item number 1–{len(order)} once, "
                            f"got {show(steps)}", where=template_where(template))
    return tuple(order.index(number - 1) for number in numbers)


def _feedback(run: Run, text: str | None, misconception: str | None, where: str) -> str:
    if text:
        return run.render(text, where)
    return misconception_feedback(misconception) if misconception else ""


def _named_sizes(env: dict[str, Any]) -> dict[str, int]:
    """The instance's whole-number values by name (T = 31), which a typed shape may use: [T, S]."""
    return {name: int(value) for name, value in env.items()
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
            and name not in MATH_CONSTANTS and name != "answer"}


def _tolerance(template: Template, asked: Precision | None) -> Tolerance:
    """The precision the prompt asks for is the tolerance (one unit in its last place of the answer rounded to
    it: questions/README.md, "Precision"), so the prompt's words and the grading cannot disagree; a template
    states its own ``tolerance`` only where the prompt asks for none."""
    given = template.tolerance
    stated = not (given.rel is None and given.abs is None and given.sig is None)
    if asked is not None:
        if stated:
            raise TemplateError(f"field 'tolerance': the prompt asks for {asked.name()}, which sets the tolerance "
                                "(within one unit in the last place of the answer rounded to it): drop 'tolerance', "
                                "or the prompt's precision", where=template_where(template))
        return Tolerance(asked=asked)
    return Tolerance(rel=given.rel, abs=given.abs, sig=given.sig) if stated else Tolerance()
