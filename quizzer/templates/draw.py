"""One draw of a template's values, and the context every expression of the instance is evaluated in.

``sample_values(template, seed, budget)`` draws the parameters and evaluates the derived values,
redrawing until every ``require`` holds, and returns the :class:`Run` that holds them: the one scope
(values, function table, budget) in which ``quizzer.templates.instance`` then computes the answer and
the misconceptions and renders every text.  Nothing is stored: the same ``(key, seed)`` gives the
same values on every machine because every random stream is derived from a SHA-256 of the key, the
seed and the stream's name (never Python's salted ``hash``), so independent parts of a template draw
from independent streams.

Seed 0 is the *canonical* draw: parameters listed under ``canonical:`` take the values the course
notes use, so ``--seed 0`` reproduces the notes' numbers.

Imports: NumPy, ``quizzer.common``, the evaluator and budget of ``quizzer.grading``, and the
template schema, functions and figures.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

import numpy as np

from quizzer.common.errors import TemplateError
from quizzer.grading.budget import Budget, BudgetError
from quizzer.grading.expr import MATH_CONSTANTS, ExprError, Scope, compile_expr
from quizzer.templates.figure import Figure, FigureDataError, build_figure
from quizzer.templates.formatting import show
from quizzer.templates.functions import template_functions, text_cost
from quizzer.templates.schema import Dim, ParamSpec, Template

MAX_DRAWS = 100  # how often `require` may reject a draw before the template is declared unsatisfiable
CANONICAL_SEED = 0
DEFAULT_DECIMALS = 2
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


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
    refused_by = [0] * len(template.require)  # how many draws each rule was the first to refuse
    ready = _rules_ready(tuple(template.params), tuple(template.derived), tuple(template.require))
    for draw in range(MAX_DRAWS):
        run = Run(template, budget, dict(MATH_CONSTANTS))  # pi, e, inf; a parameter of the same name wins
        refused = _draw(run, seed, draw, canonical, ready)
        if refused is None:
            return run
        if canonical:
            raise TemplateError(f"field 'require.{refused}': the canonical values do not satisfy it",
                                where=template_where(template))
        refused_by[refused] += 1
    strictest = max(range(len(refused_by)), key=refused_by.__getitem__)
    count = refused_by[strictest]
    others = f"; it refused {count}, the other rules the rest" if count < MAX_DRAWS else ""
    raise TemplateError(f"field 'require.{strictest}': no draw out of {MAX_DRAWS} satisfies it (seed {seed}{others}); "
                        "the constraint is unsatisfiable or too strict", where=template_where(template))


def _draw(run: Run, seed: int, draw: int, canonical: dict[str, Any], ready: tuple[int, ...]) -> int | None:
    """Set the parameters, then the derived values, of draw number ``draw``, checking each ``require`` rule (in
    order) as soon as every value it names is set: the index of the first rule that refuses the draw (the
    values after it are not computed: most refused draws are refused by their parameters alone), or None."""
    template = run.template
    rules, checked = template.require, 0
    values: list[tuple[str, ParamSpec | str | int | float]] = [*template.params.items(), *template.derived.items()]
    for values_set in range(len(values) + 1):
        while checked < len(rules) and ready[checked] <= values_set:
            if not _holds(run, rules[checked], checked):
                return checked
            checked += 1
        if values_set < len(values):
            name, made_by = values[values_set]
            if not isinstance(made_by, ParamSpec):  # a derived value's expression
                run.add(name, run.evaluate(made_by, f"derived.{name}"))
            else:
                run.add(name, yaml_value(canonical[name]) if name in canonical else _sample(
                    made_by, (template.key, seed, name, draw), run, name))
    return None


@functools.lru_cache(maxsize=1024)
def _rules_ready(params: tuple[str, ...], derived: tuple[str, ...], rules: tuple[str, ...]) -> tuple[int, ...]:
    """For each rule, how many of the values (parameters, then derived values, in order) must be set before
    it can be checked: all those it names, and all those the rule before it needed (rules are checked in
    order, so the first rule to refuse a draw is the one reported, whenever it is checked)."""
    position = {name: at for at, name in enumerate((*params, *derived), start=1)}
    ready, needed = [], 0
    for rule in rules:
        try:
            names = compile_expr(rule).names
        except ExprError:
            names = frozenset(position)  # the rule's own evaluation reports it, once every value is set
        needed = max([needed, *(position[name] for name in names if name in position)])
        ready.append(needed)
    return tuple(ready)


def _sample(spec: ParamSpec, where: tuple[str, int, str, int], run: Run, name: str) -> Any:
    """One parameter's value; ``where`` (key, seed, name, draw) identifies its random stream."""
    # Exactly one sampler is given (ParamSpec checks it).
    if spec.choice is not None:
        return yaml_value(spec.choice[int(uniform(*where) * len(spec.choice))])
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
                            where=template_where(run.template))
    return int(value)


def yaml_value(value: Any) -> Any:
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
                            where=template_where(run.template))
    return bool(result)


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
        # Each placeholder's value, text and cost of writing, by its expression, once computed: the solution
        # and the feedback repeat what the prompt showed ({{ T }} six times, {{ tex(vocab) }} three), and every
        # template function is pure, so the same expression over the same values has the same value.  add()
        # forgets them if a name is rebound.
        self.shown: dict[str, tuple[Any, str, int]] = {}

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
            raise TemplateError(f"field {where!r}: {exc}", where=template_where(self.template)) from None
        finally:
            if counted:  # cost() is read only then: most instances are not validated
                self._count(where, budget.cost() - spent)
        return value

    def render(self, text: str, where: str) -> str:
        """Replace each ``{{ expression }}`` with its value's text; anything left unclosed is an error."""
        literals, expressions, unclosed = _pieces(text)
        out = [literals[0]]
        shown = self.shown
        again = 0  # what writing the placeholders computed before costs: charged together, before joining
        for expression, literal in zip(expressions, literals[1:], strict=True):
            seen = shown.get(expression)
            if seen is None:
                value = self.evaluate(expression, where)
                cost = text_cost(value)
                self._charge(cost, where)  # before it is written: {{ a_million_numbers }} is refused first
                seen = shown[expression] = value, show(value), cost
            else:
                again += seen[2]
            out += (seen[1], literal)
        if again:
            self._charge(again, where)
        if unclosed:
            raise TemplateError(f"field {where!r}: '{{{{' without a closing '}}}}'",
                                where=template_where(self.template))
        return "".join(out)

    def charge_text(self, value: Any, where: str) -> None:
        """Charge writing ``value`` as text (Python work per number) before it is written."""
        self._charge(text_cost(value), where)

    def _charge(self, cost: int, where: str) -> None:
        try:
            self.budget.charge(cost)
        except BudgetError as exc:
            raise TemplateError(f"field {where!r}: {exc}", where=template_where(self.template)) from None
        if self.budget.fields is not None:
            self._count(where, cost)

    def _count(self, where: str, cost: int) -> None:
        """Add ``cost`` to the field's total; called only when someone asks (``budget.fields`` is set: ``quizzer
        validate`` names the costliest field)."""
        fields = self.budget.fields
        assert fields is not None
        fields[where] = fields.get(where, 0) + cost


def with_draw(error: TemplateError, run: Run) -> TemplateError:
    """``error``, carrying the values ``run`` drew (an author needs them to see why it happened)."""
    if error.drawn is None:
        error.drawn = dict(run.env)
    return error


@functools.lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """A text split once (texts are the template's, rendered for every instance): the literal parts around
    its placeholders, their expressions, and whether a '{{' is left unclosed ("}}" alone is ordinary LaTeX,
    \\sqrt{d_{k}}; "{{" never is here)."""
    parts = _PLACEHOLDER.split(text)
    literals = tuple(parts[0::2])
    return literals, tuple(expression.strip() for expression in parts[1::2]), "{{" in "".join(literals)


def figure_of(run: Run) -> Figure | None:
    """The figure ``run.template`` draws from the values of ``run`` (None when it has none)."""
    template = run.template
    if template.figure is None:
        return None
    try:
        return build_figure(template.figure, lambda source, where, names: run.evaluate(source, where, names),
                            run.render)
    except FigureDataError as exc:
        raise TemplateError(f"field {exc.field!r}: {exc}", where=template_where(template)) from None


def template_where(template: Template) -> str:
    """Where an error in ``template`` is, as TemplateError names it."""
    return f"template {template.key!r}"
