"""Instances: a template plus a seed gives one fully computed, reproducible question.

``make_instance(template, seed)`` samples the parameters, evaluates derived values,
computes the answer and every misconception's wrong answer with the engine, and
renders prompt, choices and solution.  Nothing is stored: the same ``(key, seed)``
gives the same instance on every machine because every random stream is derived
from a SHA-256 of the key, the seed and the stream's name (never Python's salted
``hash``), so independent parts of a template draw from independent streams.

Seed 0 is the *canonical* instance: parameters listed under ``canonical:`` take
the values the course notes use, so ``--seed 0`` reproduces the notes' numbers.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from typing import Any, TypeVar

import msgspec
import numpy as np
from numpy.typing import ArrayLike

from quizzer.common.errors import TemplateError
from quizzer.grading.budget import Budget, BudgetError, shared_budget
from quizzer.grading.expr import MATH_CONSTANTS, ExprError, Scope, compile_expr, numpy_quiet
from quizzer.grading.match import values_match
from quizzer.grading.ordering import order_score
from quizzer.grading.parts import Step
from quizzer.grading.tolerance import Tolerance, asked_precision
from quizzer.grading.verdict import AnswerSpec, WrongAnswer
from quizzer.templates.answer_text import Mistake, jsonable, known_mistakes
from quizzer.templates.answer_text import answer_text as write_answer
from quizzer.templates.catalog import misconception_feedback
from quizzer.templates.discovery import Discovery
from quizzer.templates.figure import Figure, FigureDataError, build_figure
from quizzer.templates.functions import show, template_functions, text_cost
from quizzer.templates.schema import Dim, ParamSpec, Template

MAX_DRAWS = 100  # how often `require` may reject a draw before the template is declared unsatisfiable
CANONICAL_SEED = 0
DEFAULT_DECIMALS = 2
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


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


def make_instance(template: Template, seed: int, budget: Budget | None = None) -> Instance:
    """Sample, compute and render one instance of ``template``, spending from ``budget`` (a new one unless
    given: ``quizzer validate`` passes its own to add up what all seeds cost)."""
    if template.parts:
        from quizzer.templates.parts import make_parts_instance  # it builds each part with question_from

        return make_parts_instance(template, seed, budget)
    with shared_budget(budget) as spent, numpy_quiet():  # every expression of one instance spends from one budget
        return question_from(sample_values(template, seed, spent), seed)


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
    answer_text = write_answer(template, answer, choices)
    tolerance = _tolerance(template)
    prompt = run.render(template.prompt, "prompt")
    wrong_answers, live = _wrong_answers(run, order, tolerance)
    spec = AnswerSpec(
        kind=template.kind, expected=answer, tolerance=tolerance, options=choices,
        variables=tuple(template.variables), wrong_answers=wrong_answers,
        expected_text=answer_text, sizes=_named_sizes(env) if template.kind == "shape" else {},
        must_precede=tuple((before, after) for before, after in template.must_precede),
        precision=asked_precision(prompt) if template.kind in ("number", "vector", "matrix") else None,
        discover=Discovery(template, env),  # issue 19: slips found by rerunning the engine, on first use
    )
    solution, figure = shared or (run.render(template.solution, "solution"), figure_of(run))
    return Instance(
        key=template.key, seed=seed, kind=template.kind, title=template.title, week=template.week,
        topics=tuple(template.topics), prompt=prompt, solution=solution, answer=answer,
        answer_text=answer_text, spec=spec, choices=choices, figure=figure,
        mistakes=known_mistakes(template, spec.wrong_answers, choices), points=template.marks, values=env,
        live_misconceptions=live,
    )


# --- sampling ----------------------------------------------------------------------------------

def _digest(key: str, seed: int, name: str, draw: int) -> bytes:
    return hashlib.sha256(f"{key}\x00{seed}\x00{name}\x00{draw}".encode()).digest()


def stream(key: str, seed: int, name: str, draw: int = 0) -> np.random.Generator:
    """An independent, platform-stable random stream for one named part of one instance."""
    return np.random.default_rng(int.from_bytes(_digest(key, seed, name, draw)[:16], "little"))


def uniform(key: str, seed: int, name: str, draw: int = 0) -> float:
    """One platform-stable uniform number in [0, 1) for a scalar draw (no generator needed: fast)."""
    return int.from_bytes(_digest(key, seed, name, draw)[:8], "little") / 2.0**64


def sample_values(template: Template, seed: int, budget: Budget) -> Run:
    """Parameters then derived values, redrawn until every ``require`` holds (bounded)."""
    canonical = template.canonical if seed == CANONICAL_SEED and template.canonical else {}
    for draw in range(MAX_DRAWS):
        run = Run(template, budget, dict(MATH_CONSTANTS))  # pi, e, inf; a parameter of the same name wins
        for name, spec in template.params.items():
            run.add(name, _canonical(canonical[name]) if name in canonical else _sample(
                spec, (template.key, seed, name, draw), run, name))
        for name, source in template.derived.items():
            run.add(name, run.evaluate(source, f"derived.{name}"))
        if all(_holds(run, rule, i) for i, rule in enumerate(template.require)):
            return run
        if canonical:
            raise TemplateError("the canonical values do not satisfy 'require'", where=_where(template))
    raise TemplateError(f"field 'require': no draw out of {MAX_DRAWS} satisfies it (seed {seed}); "
                        "the constraint is unsatisfiable or too strict", where=_where(template))


def _sample(spec: ParamSpec, where: tuple[str, int, str, int], run: Run, name: str) -> Any:
    """One parameter's value; ``where`` (key, seed, name, draw) identifies its random stream."""
    # Exactly one sampler is given (ParamSpec checks it).
    if spec.choice is not None:
        return _canonical(spec.choice[int(uniform(*where) * len(spec.choice))])
    if spec.int_ is not None:
        low, high = spec.int_
        return low + spec.step * int(uniform(*where) * ((high - low) // spec.step + 1))
    if spec.float_ is not None:
        start, stop = spec.float_
        decimals = spec.decimals if spec.decimals is not None else DEFAULT_DECIMALS
        return round(start + (stop - start) * uniform(*where), decimals)
    if spec.vector is not None:
        dims: tuple[Dim, ...] = (spec.vector,)
    else:
        dims = tuple(spec.matrix or ())
    shape = tuple(_dimension(run, dim, f"params.{name}") for dim in dims)
    return _random_array(spec, stream(*where), shape)


def _random_array(spec: ParamSpec, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    if spec.dist == "normal":
        values = rng.normal(spec.mean, spec.std, size=shape)
    elif spec.dist == "uniform":
        values = rng.uniform(spec.low, spec.high, size=shape)
    else:
        values = rng.integers(int(spec.low), int(spec.high), size=shape, endpoint=True).astype(float)
    decimals = spec.decimals if spec.decimals is not None else DEFAULT_DECIMALS
    return np.round(values, decimals) + 0.0  # + 0.0 turns -0.0 into 0.0 so prompts never show "-0"


def _dimension(run: Run, dim: int | str, where: str) -> int:
    value = dim if isinstance(dim, int) else run.evaluate(dim, where)
    if not isinstance(value, (int, np.integer)) or not 1 <= value <= 64:
        raise TemplateError(f"field {where!r}: a dimension must be a whole number from 1 to 64, got {value!r}",
                            where=_where(run.template))
    return int(value)


def _canonical(value: Any) -> Any:
    """YAML lists of numbers become arrays, as list literals do in expressions."""
    if isinstance(value, list) and value and all(isinstance(v, (int, float, list)) for v in value):
        try:
            return np.array(value, dtype=float)
        except ValueError:
            return value
    return value


def _holds(run: Run, rule: str, index: int) -> bool:
    result = run.evaluate(rule, f"require.{index}")
    if not isinstance(result, (bool, np.bool_)):
        raise TemplateError(f"field 'require.{index}': must be a condition (true/false), got {show(result)}",
                            where=_where(run.template))
    return bool(result)


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


def coerce(template: Template, kind: str, value: Any, where: str) -> Any:
    """Check that a computed value has the form its kind needs, and normalize its type."""
    try:
        return _COERCE[kind](value)
    except (TypeError, ValueError) as exc:
        raise TemplateError(f"field {where!r}: {exc}", where=_where(template)) from None


_Value = TypeVar("_Value", bound=ArrayLike)


def _finite(value: _Value) -> _Value:
    # A Python float (every number answer) is checked without NumPy, whose scalar path costs ~20 times more.
    if not (math.isfinite(value) if isinstance(value, float) else np.all(np.isfinite(value))):
        raise ValueError(f"is not finite ({show(value)})")
    return value


def _as_number(value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or np.ndim(value) != 0:
        raise ValueError(f"a 'number' answer must be one number, got {show(value)}")
    return float(_finite(float(value)))


def _as_integer(value: Any) -> int:
    number = _as_number(value)
    if not number.is_integer():
        raise ValueError(f"an 'integer' answer must be a whole number, got {show(value)}")
    return int(value) if isinstance(value, (int, np.integer)) else int(number)


def _as_array(ndim: int) -> Any:
    def check(value: Any) -> np.ndarray:
        array = np.asarray(value, dtype=float)
        if array.ndim != ndim:
            raise ValueError(f"expected {'a vector' if ndim == 1 else 'a matrix'}, got {array.ndim} dimension(s)")
        return _finite(array)
    return check


def _as_shape(value: Any) -> tuple[int | str, ...]:
    dims = tuple(value.tolist() if isinstance(value, np.ndarray) else value)
    out: list[int | str] = []
    for dim in dims:
        if isinstance(dim, str):
            out.append(dim.replace(" ", ""))
        elif float(dim).is_integer() and dim > 0:
            out.append(int(dim))
        else:
            raise ValueError(f"shape entries must be positive whole numbers or names, got {dim!r}")
    return tuple(out)


def _as_bool(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"a 'bool' answer must be true or false, got {show(value)}")
    return bool(value)


_COERCE = {"number": _as_number, "integer": _as_integer, "vector": _as_array(1), "matrix": _as_array(2),
           "shape": _as_shape, "bool": _as_bool}


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
                            f"got {show(steps)}", where=_where(template))
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


def _tolerance(template: Template) -> Tolerance:
    given = template.tolerance
    if given.rel is None and given.abs is None and given.sig is None:
        return Tolerance()
    return Tolerance(rel=given.rel, abs=given.abs, sig=given.sig)


# --- evaluation and rendering -------------------------------------------------------------------

class Run:
    """One instance being computed: its template (named in errors), its values so far, and the one scope
    (function table and budget) every expression of it is evaluated in.  An instance evaluates some fifty
    expressions and placeholders, most of them a name or a product: looking its budget and functions up
    again for each cost more than evaluating it."""

    __slots__ = ("template", "budget", "env", "scope", "shown")

    def __init__(self, template: Template, budget: Budget, env: dict[str, Any]):
        self.template, self.budget, self.env = template, budget, env
        self.scope = Scope(env, template_functions(), budget)  # sees every value add() puts in env
        # Each placeholder's value and text, by its expression, once computed: the solution and the feedback
        # repeat what the prompt showed ({{ T }} six times, {{ tex(vocab) }} three), and every template
        # function is pure, so the same expression over the same values has the same value.  add() forgets
        # them if a name is rebound.
        self.shown: dict[str, tuple[Any, str]] = {}

    def fork(self, template: Template) -> Run:
        """A run of ``template`` (a part of this run's multi-part template) on a copy of the values drawn so far,
        spending from the same budget and keeping the placeholders already shown (the values are the same)."""
        run = Run(template, self.budget, dict(self.env))
        run.shown = dict(self.shown)
        return run

    def add(self, name: str, value: Any) -> None:
        if name in self.env:  # a parameter named like a constant (e), or a derived value named answer
            self.shown.clear()
        self.env[name] = value

    def evaluate(self, source: Any, where: str, extra: dict[str, Any] | None = None) -> Any:
        """The value of one template field's expression (with ``extra`` names, if given), spent from the
        instance's budget and, when ``quizzer validate`` asks, counted against the field."""
        if not isinstance(source, str):
            return source  # a literal number or bool written directly in YAML
        budget = self.budget
        counted = budget.fields is not None
        spent = budget.cost() if counted else 0
        scope = self.scope if extra is None else Scope(self.env | extra, self.scope.functions, budget)
        try:
            value = scope.evaluate(compile_expr(source))
        except ExprError as exc:
            raise TemplateError(f"field {where!r}: {exc}", where=_where(self.template)) from None
        finally:
            if counted:  # cost() is read only then: most instances are not validated
                self._count(where, budget.cost() - spent)
        return value

    def render(self, text: str, where: str) -> str:
        """Replace each ``{{ expression }}`` with its value's text; anything left unclosed is an error."""
        literals, expressions, unclosed = _pieces(text)
        out = [literals[0]]
        shown = self.shown
        for expression, literal in zip(expressions, literals[1:], strict=True):
            seen = shown.get(expression)
            value = self.evaluate(expression, where) if seen is None else seen[0]
            self.charge_text(value, where)  # every time it is written: {{ a_million_numbers }} is refused first
            if seen is None:
                seen = shown[expression] = value, show(value)
            out += (seen[1], literal)
        if unclosed:
            raise TemplateError(f"field {where!r}: '{{{{' without a closing '}}}}'", where=_where(self.template))
        return "".join(out)

    def charge_text(self, value: Any, where: str) -> None:
        """Charge writing ``value`` as text (Python work per number) before it is written."""
        cost = text_cost(value)
        try:
            self.budget.charge(cost)
        except BudgetError as exc:
            raise TemplateError(f"field {where!r}: {exc}", where=_where(self.template)) from None
        self._count(where, cost)

    def _count(self, where: str, cost: int) -> None:
        """Add ``cost`` to the field's total, when someone asks (``quizzer validate`` names the costliest field)."""
        fields = self.budget.fields
        if fields is not None:
            fields[where] = fields.get(where, 0) + cost


@functools.lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """A text split once (texts are the template's, rendered for every instance): the literal parts around
    its placeholders, their expressions, and whether a '{{' is left unclosed ("}}" alone is ordinary LaTeX,
    \\sqrt{d_{k}}; "{{" never is here)."""
    parts = _PLACEHOLDER.split(text)
    literals = tuple(parts[0::2])
    return literals, tuple(expression.strip() for expression in parts[1::2]), "{{" in "".join(literals)


def figure_of(run: Run) -> Figure | None:
    template = run.template
    if template.figure is None:
        return None
    try:
        return build_figure(template.figure, lambda source, where, names: run.evaluate(source, where, names),
                            run.render)
    except FigureDataError as exc:
        raise TemplateError(f"field {exc.field!r}: {exc}", where=_where(template)) from None


def _where(template: Template) -> str:
    return f"template {template.key!r}"
