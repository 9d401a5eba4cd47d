"""Instances: a template plus a seed gives one fully computed, reproducible question.

``make_instance(template, seed)`` draws the values (:mod:`quizzer.templates.draw`: parameters,
derived values, the same on every machine for the same key and seed; seed 0 the course notes'
own), then computes the answer and every misconception's wrong answer with the engine, and
renders prompt, choices, solution and figure (:mod:`quizzer.templates.question`; each part of a
multi-part question through :mod:`quizzer.templates.parts`).  Nothing is stored.

The :class:`Instance` it returns is defined in ``question`` (which ``parts`` builds on, below this
module) and named here too, where every caller of ``make_instance`` finds it.
"""

from __future__ import annotations

from quizzer.common.errors import TemplateError
from quizzer.grading.budget import Budget, shared_budget
from quizzer.grading.expr import numpy_quiet
from quizzer.templates.draw import sample_values, with_draw
from quizzer.templates.parts import make_parts_instance
from quizzer.templates.question import Instance, PartInstance, question_from
from quizzer.templates.schema import Template

__all__ = ["Instance", "PartInstance", "make_instance"]


def make_instance(template: Template, seed: int, budget: Budget | None = None) -> Instance:
    """Sample, compute and render one instance of ``template``, spending from ``budget`` (a new one unless
    given: ``quizzer validate`` passes its own to add up what all seeds cost)."""
    if template.parts:
        return make_parts_instance(template, seed, budget)
    with shared_budget(budget) as spent, numpy_quiet():  # every expression of one instance spends from one budget
        run = sample_values(template, seed, spent)
        try:
            return question_from(run, seed)
        except TemplateError as exc:
            raise with_draw(exc, run) from None
