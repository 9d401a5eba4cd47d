"""Multi-part questions (``kind: parts``): the steps of one calculation, each asking for one derived value.

Each part is made into a question of its own by :func:`part_template` — the template with the part's
kind, answer, tolerance, points and misconceptions in place of the (absent) top-level ones and the
same key, parameters and derived values — and rendered by ``question_from`` like any question, every
part from the one draw of the values: its answer text, listed and discovered mistakes and exports
come for free. What is particular to parts is here: the shared stem and solution, the part labels,
which earlier parts a part is computed from (through the derived values, found by reading the
expressions: the author wires nothing), and ``recompute``, the part's answer with the learner's own
values put in place of earlier parts' (follow-through, graded by ``quizzer.grading.parts``),
evaluated under one instance budget like every other expression.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from quizzer.common.errors import FIELD_NAMED, TemplateError
from quizzer.grading.budget import Budget, shared_budget
from quizzer.grading.expr import ExprError, numpy_quiet
from quizzer.grading.parts import PartVerdict, Step, grade_parts
from quizzer.grading.verdict import AnswerSpec
from quizzer.templates.coercion import coerce
from quizzer.templates.discovery import RECOMPUTE_ERRORS, expression_names, recompute_derived
from quizzer.templates.draw import Run, figure_of, sample_values, template_where, with_draw
from quizzer.templates.figure import Figure
from quizzer.templates.functions import template_functions
from quizzer.templates.question import Instance, PartInstance, question_from
from quizzer.templates.schema import Template

LABELS = "abcdefgh"  # the schema allows at most 8 parts
# A part named on its own, as history lists it, the report counts it and a batch line gives it: "KEY (b)".
PART_NAME = re.compile(r"(?P<key>.+?)\s*\((?P<label>[a-h])\)")


def part_name(key: str, label: str | None) -> str:
    """``KEY (b)`` for part (b) of question ``KEY``; the key alone for a question of one part."""
    return f"{key} ({label})" if label else key


# The fields a part gives for itself, in place of the template's (an error in one is named within the part).
PART_FIELDS = ("kind", "answer", "tolerance", "points", "given_entries", "partial_credit", "misconceptions", "prompt")


def part_template(template: Template, index: int) -> Template:
    """Part ``index`` as a single question: same key, parameters and derived values (so the same draw)."""
    assert template.parts is not None
    part = template.parts[index]
    return msgspec.structs.replace(template, **{name: getattr(part, name) for name in PART_FIELDS}, parts=None)


def _part_question(run: Run, template: Template, index: int, seed: int, shared: tuple[str, Figure | None]) -> Instance:
    """Part ``index`` of ``template`` as a question of its own, on the values ``run`` drew."""
    try:
        return question_from(run.fork(part_template(template, index)), seed, shared)
    except TemplateError as exc:
        raise in_part(exc, index) from None


def in_part(error: TemplateError, index: int) -> TemplateError:
    """``error`` raised by part ``index`` as a question of its own, with the field it names as the file
    has it ('answer' → 'parts.1.answer'), or 'part b: …' when it names none of the part's own fields."""
    text = error.message
    field = FIELD_NAMED.search(text)
    if field and field[1] in PART_FIELDS:
        text = f"{text[:field.start()]}field 'parts.{index}.{field[1]}{field[2]}'{text[field.end():]}"
    else:
        text = f"part {LABELS[index]}: {text}"
    renamed = TemplateError(text, where=error.where)
    renamed.drawn = error.drawn
    return renamed


def derived_sources(template: Template) -> dict[str, frozenset[str]]:
    """Each derived value's derived values, directly or through others (the calculation's graph)."""
    sources: dict[str, frozenset[str]] = {}
    for name, source in template.derived.items():
        try:
            used = expression_names(source) & set(sources) if isinstance(source, str) else frozenset()
        except ExprError:
            used = frozenset()  # reported where it is evaluated, with its field
        sources[name] = frozenset(used).union(*(sources[n] for n in used))
    return sources


def part_depends(template: Template) -> list[frozenset[str]]:
    """For each part, the earlier parts' values (derived names) its answer is computed from."""
    sources, parts = derived_sources(template), template.parts or []
    return [frozenset(p.answer for p in parts[:i] if p.answer in sources[part.answer]) for i, part in enumerate(parts)]


def check_parts(template: Template) -> None:
    """Parts follow the calculation: none asks for a value another asks for, none is computed from a
    later part's value (follow-through needs the earlier value first)."""
    sources, parts = derived_sources(template), template.parts or []
    for i, part in enumerate(parts):
        for j, later in enumerate(parts[i + 1:], start=i + 1):
            if later.answer == part.answer:
                raise TemplateError(f"field 'parts.{j}.answer': {later.answer!r} is already part {LABELS[i]}'s answer",
                                    where=template_where(template))
            if later.answer in sources[part.answer]:
                raise TemplateError(f"field 'parts.{i}.answer': {part.answer!r} is computed from part "
                                    f"{LABELS[j]}'s {later.answer!r}; list the parts in the calculation's order",
                                    where=template_where(template))


def make_parts_instance(template: Template, seed: int, budget: Budget | None = None) -> Instance:
    """The whole multi-part question: every part rendered, all from one budget."""
    assert template.parts is not None
    with shared_budget(budget) as spent, numpy_quiet():
        # One draw for every part: each part's template keeps the key, parameters and derived values.
        run = sample_values(template, seed, spent)
        try:
            stem = run.render(template.prompt, "prompt")
            shared = run.render(template.solution, "solution"), figure_of(run)
            values = dict(run.env)
            questions = [_part_question(run, template, i, seed, shared) for i in range(len(template.parts))]
        except TemplateError as exc:
            raise with_draw(exc, run) from None
    parts = tuple(
        PartInstance(label=LABELS[i], id=part.id, stem=stem,
                     question=msgspec.structs.replace(question, key=part.id or template.key),
                     step=Step(label=LABELS[i], name=part.answer, spec=question.spec,
                               follow_through=part.follow_through, depends=depends,
                               recompute=functools.partial(_recompute, template, values, part.answer, part.kind)))
        for i, (part, question, depends) in enumerate(zip(template.parts, questions, part_depends(template),
                                                          strict=True)))
    answers = tuple(q.answer for q in questions)
    first = questions[0]
    return Instance(
        key=template.key, seed=seed, kind="parts", title=template.title, week=template.week,
        topics=tuple(template.topics), prompt=stem, solution=first.solution, answer=answers,
        answer_text="; ".join(f"({p.label}) {p.question.answer_text}" for p in parts),
        spec=AnswerSpec(kind="parts", expected=answers), figure=first.figure, points=template.marks,
        values=values, parts=parts)


def _recompute(template: Template, values: Mapping[str, Any], name: str, kind: str,
               theirs: Mapping[str, Any]) -> Any:
    """Part ``name``'s answer with the learner's values in place of ``theirs``' names (None where they do
    not give an answer of the part's form), under a budget of its own, as large as an instance's."""
    try:
        with shared_budget(), np.errstate(all="ignore"):
            env, _ = recompute_derived(template, values, set(), template_functions(), keep=theirs)
            return coerce(template, kind, env[name], f"parts.{name}")
    except (*RECOMPUTE_ERRORS, TemplateError):
        return None


def grade_instance(instance: Instance, responses: list[str]) -> tuple[PartVerdict, ...]:
    """Grade a multi-part instance: one response per part, with follow-through."""
    return grade_parts([part.step for part in instance.parts], responses)


def find_part(instance: Instance, key: str) -> PartInstance | None:
    """The part whose routed ID is ``key``."""
    return next((part for part in instance.parts if part.id == key), None)


def question_for(instance: Instance, key: str) -> Instance:
    """The question ``key`` names in ``instance``: the part carrying it as its routed ID, else the whole."""
    part = find_part(instance, key)
    return part.question if part is not None else instance
