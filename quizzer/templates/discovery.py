"""Discovered mistakes: a wrong answer no template lists, named by rerunning the template with one slip.

A template's derived values and answer are expressions over engine functions. ``engine.mutations``
holds the course's slips as same-signature replacements of those functions, so a template can be
recomputed "as if the learner had made slip X" with nothing written by its author: keep the drawn
parameters, put the slipped functions in the expression's function table, and evaluate
``derived`` and ``answer`` again. When a learner's answer matches none of the listed
misconceptions, the grader asks this module for the answers under each applicable slip and names
the one that reproduces it (the spec's ``discover``, which ``verdict`` calls), with the same
tolerance and the same id space as listed misconceptions, so feedback, mastery and the
teacher's report treat it alike. A listed misconception is looked up first and so always wins.

Bounded search: only mutations of engine functions the template's expressions call, one at a
time (pairs are not tried: the one-slip answers already cost several times the instance itself).
Computed lazily, the first time an answer of the instance needs it, and kept with the instance.

Validity, as for listed misconceptions: a slip whose answer equals the right one is no mistake on
this instance; one equal to a listed misconception's answer or to an earlier slip's is left to
that one (feedback could not tell them apart). That each kept slip, typed as printed, is graded
back as itself is checked by ``quizzer validate`` (``not_graded_back``), not on every answer.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from engine.mutations import Mutation, affecting
from quizzer.common.errors import TemplateError
from quizzer.grading.budget import Costed, shared_budget
from quizzer.grading.expr import ExprError, compile_expr, evaluate
from quizzer.grading.match import values_match
from quizzer.grading.verdict import AnswerSpec, WrongAnswer, grade
from quizzer.templates.catalog import misconception_feedback
from quizzer.templates.coercion import coerce
from quizzer.templates.functions import guarded_as, template_functions
from quizzer.templates.schema import Template

# Kinds whose answer is computed from the template's values. A true/false answer is left out: its
# only wrong answer is the other value, which says nothing about which slip was made.
DISCOVERABLE_KINDS = frozenset({"number", "integer", "vector", "matrix", "shape"})
RECOMPUTE_ERRORS = (ExprError, ValueError, TypeError, IndexError, ArithmeticError, FloatingPointError)


@functools.lru_cache(maxsize=8192)  # like compile_expr: templates repeat their expressions
def expression_names(source: str) -> frozenset[str]:
    return compile_expr(source).names


def applicable_mutations(template: Template) -> tuple[Mutation, ...]:
    """The mutations of engine functions that the template's derived values or answer call."""
    if template.kind not in DISCOVERABLE_KINDS or not isinstance(template.answer, str):
        return ()
    sources = [source for source in (*template.derived.values(), template.answer) if isinstance(source, str)]
    try:
        names = frozenset().union(*(expression_names(source) for source in sources))
    except ExprError:
        return ()
    return affecting(names)


def _slipped_table(mutation: Mutation) -> dict[str, Costed]:
    """The template function table with the mutation's functions in place of the engine's, behind
    the same size checks."""
    table = template_functions()
    return table | {name: guarded_as(name, function) for name, function in mutation.replaces.items() if name in table}


def slipped_answer(template: Template, values: Mapping[str, Any], mutation: Mutation) -> Any | None:
    """The template's answer recomputed under `mutation` from the instance's values, or None where
    the slip cannot apply (shapes that do not allow it, a non-finite result) or leaves it unchanged.

    Only what depends on a slipped function is recomputed: a derived value whose expression calls
    one or names a recomputed value; the others (most of a solution's display values) are the
    instance's own, and an answer that depends on none of them is the instance's answer."""
    functions = _slipped_table(mutation)
    try:
        with shared_budget(), np.errstate(all="ignore"):
            env, slipped = recompute_derived(template, values, set(mutation.replaces), functions)
            assert isinstance(template.answer, str)
            if not expression_names(template.answer) & slipped:
                return None
            value = evaluate(compile_expr(template.answer), env, functions)
        return coerce(template, template.kind, value, "answer")
    except (*RECOMPUTE_ERRORS, TemplateError):  # TemplateError: not of the answer's form under this slip
        return None


def recompute_derived(template: Template, values: Mapping[str, Any], changed: set[str],
                      functions: Mapping[str, Costed], keep: Mapping[str, Any] | None = None,
                      ) -> tuple[dict[str, Any], set[str]]:
    """The instance's values with every derived value that depends on ``changed`` (names of slipped
    functions or of values replaced in ``keep``) evaluated again, in order; the others are kept as they
    are. Returns the values and every name that changed. Shared by discovery (a slipped function) and
    follow-through (a learner's own value for a derived one, kept as given). The caller opens the budget."""
    env: dict[str, Any] = dict(values) | dict(keep or {})
    changed = changed | set(keep or {})
    for name, source in template.derived.items():
        if name not in (keep or {}) and isinstance(source, str) and expression_names(source) & changed:
            env[name] = evaluate(compile_expr(source), env, functions)
            changed.add(name)
    return env, changed


FEEDBACK_PREFIX = "Rerunning the calculation with one slip gives your answer. "


class Discovery(msgspec.Struct):
    """The discovered mistakes of one instance, computed on first use and then kept."""

    template: Template
    values: Mapping[str, Any]
    _found: tuple[WrongAnswer, ...] | None = None

    def __call__(self, spec: AnswerSpec) -> tuple[WrongAnswer, ...]:
        if self._found is None:
            self._found = discovered_answers(self.template, self.values, spec)
        return self._found


def discovered_answers(template: Template, values: Mapping[str, Any], spec: AnswerSpec) -> tuple[WrongAnswer, ...]:
    """One WrongAnswer per applicable slip whose answer differs from the right one, from every
    listed misconception's and from every earlier slip's (feedback could not tell those apart)."""
    kept: list[WrongAnswer] = []
    for mutation in applicable_mutations(template):
        value = slipped_answer(template, values, mutation)
        if value is None or any(values_match(spec.kind, value, other, spec.tolerance, sizes=spec.sizes)
                                for other in (spec.expected, *(w.value for w in (*spec.wrong_answers, *kept)))):
            continue
        kept.append(WrongAnswer(mutation.id, value, FEEDBACK_PREFIX + misconception_feedback(mutation.id)))
    return tuple(kept)


def not_graded_back(template: Template, spec: AnswerSpec, discovered: tuple[WrongAnswer, ...]) -> list[str]:
    """The discovered slips that, typed as printed, are not graded as themselves (``quizzer validate``
    runs this; grading skips it, as it costs a parse per slip)."""
    from quizzer.templates.answer_text import answer_text

    return [wrong.id or "" for wrong in discovered
            if grade(spec, answer_text(template, wrong.value, spec.options, spec.precision)).misconception != wrong.id]
