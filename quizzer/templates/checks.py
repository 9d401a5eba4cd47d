"""What a template must satisfy once rendered: in each instance (``check_instance``), and over all the seeds
validation tries (a true/false answer that never varies, a choice never drawn, an entry given away that
changes, a misconception never diagnosed).  ``quizzer.templates.validate`` renders the seeds and calls
these; each refusal is a :class:`TemplateError` naming its field.

Imports: NumPy, ``quizzer.common``, grading (to grade a mistake back, compare values, describe an order)
and the template instance and schema.
"""

from __future__ import annotations

import numpy as np

from quizzer.common.errors import TemplateError
from quizzer.grading.choices import look_alike
from quizzer.grading.describe import describe
from quizzer.grading.match import values_match
from quizzer.grading.ordering import examined_pair_inverted
from quizzer.grading.verdict import grade
from quizzer.templates.draw import template_where, yaml_value
from quizzer.templates.formatting import show
from quizzer.templates.instance import Instance
from quizzer.templates.parts import in_part
from quizzer.templates.schema import Template

# What is true on every seed tried is judged only over this many seeds or more (``quizzer verify`` and the
# bundled bank's import render one: a misconception may well give the right answer on seed 0).
MIN_SEEDS_TO_JUDGE = 20


def check_answer_varies(template: Template, answers: set[str], count: int) -> None:
    """A true/false or single-choice answer that is the same on every seed can be learned by position."""
    if template.kind not in ("bool", "choice") or template.conceptual or len(answers) > 1 \
            or count < MIN_SEEDS_TO_JUDGE:
        return
    (answer,) = answers
    fail(template, "answer", f"the answer is {answer!r} on every one of {count} seeds, so it can be learned by "
          "position: let the numbers decide it, or declare 'conceptual: true' if it is a fact that never varies")


def check_choices_drawn(template: Template, chosen: dict[str, set[str]], count: int) -> None:
    """A value of a ``choice`` parameter that ``require`` rules out on every draw is never asked about (a teacher
    wrote ``require: [bias]`` over ``bias: {choice: [true, false]}`` and believed both were practised).

    Judged over twenty seeds per value or more: a value the rules leave half its share of the draws is then
    missed on fewer than one validation in 20,000, so one never drawn is ruled out, or as good as."""
    for name, values in chosen.items():
        options = template.params[name].choice or []
        if count < max(MIN_SEEDS_TO_JUDGE, 20 * len(options)):
            continue
        for i, option in enumerate(options):
            if show(yaml_value(option)) not in values:
                fail(template, f"params.{name}.choice.{i}",
                      f"{name} = {show(option)} is never drawn in {count} seeds: 'require' rules it out; drop it "
                      "from the choices, or loosen the rule that refuses it")


def check_given_entries(template: Template, instance: Instance, seed: int,
                         seen: dict[tuple[str, tuple[int, ...]], tuple[float, int]]) -> None:
    """An entry the prompt gives away (``given_entries``: a blocked key's 0, a BOS id) is the same whatever
    the numbers drawn; one that changes with them is worked out, and listing it would take its credit away."""
    questions = [("given_entries", instance)] + [
        (f"parts.{i}.given_entries", part.question) for i, part in enumerate(instance.parts)]
    for field, question in questions:
        if question.spec.given is None:
            continue
        answer = np.asarray(question.answer, dtype=float)
        for index in map(tuple, np.argwhere(question.spec.given)):
            value = float(answer[index])
            first, first_seed = seen.setdefault((field, index), (value, seed))
            if abs(value - first) > 1e-12 * max(1.0, abs(first)):
                entry = ", ".join(str(i + 1) for i in index)
                fail(template, field, f"entry {entry} is {value:.6g} on seed {seed} and {first:.6g} on seed "
                      f"{first_seed}: an entry given away is the same whatever the numbers drawn (list only the "
                      "entries the prompt fixes, such as a blocked key's weight 0)")


def live_misconceptions(instance: Instance) -> list[tuple[str, tuple[int, ...]]]:
    """Each list of misconceptions (by field) with the indices of those that differ from the answer here."""
    return [("misconceptions", instance.live_misconceptions)] + [
        (f"parts.{i}.misconceptions", part.question.live_misconceptions) for i, part in enumerate(instance.parts)]


def check_misconceptions_differ(template: Template, live: dict[str, set[int]], count: int) -> None:
    """``make_instance`` drops a misconception on a seed where it gives the correct answer; one that does on
    every seed is never diagnosed: a learner making that mistake is simply right."""
    if count < MIN_SEEDS_TO_JUDGE:
        return
    lists = [("misconceptions", template.misconceptions)]
    lists += [(f"parts.{i}.misconceptions", part.misconceptions) for i, part in enumerate(template.parts or ())]
    for field, misconceptions in lists:
        for i, misconception in enumerate(misconceptions):
            if i not in live.get(field, ()):
                fail(template, f"{field}.{i}", f"{misconception.id!r} gives the correct answer on every one of the "
                      f"{count} seeds tried, so it is dropped on each and never diagnosed: compute the answer the "
                      "mistake gives, or remove it")


def check_instance(instance: Instance) -> None:
    """One rendered instance (interpolation is already complete, or rendering would have failed)."""
    for index, part in enumerate(instance.parts):  # each part is a question of its own, checked as one
        try:
            check_instance(part.question)
        except TemplateError as exc:
            raise in_part(exc, index) from None
    twins = look_alike(instance.choices)
    if twins:  # the same text, or texts that read the same ('Yes' and 'Yes' + U+200B, '１' and '1')
        first, second = (ascii(instance.choices[i])[:80] for i in twins)
        field = "items" if instance.kind == "order" else "choices"
        raise TemplateError(f"field {field!r}: two {field} render to the same text as a learner reads and types "
                            f"it ({first} and {second}), so typing one could pick the other")
    if instance.kind in ("choice", "multi"):
        return  # misconceptions there name distractors, which the schema keeps apart from correct choices
    spec = instance.spec
    # Typed as the learner would, each mistake is graded back as itself (one per live misconception, in order).
    for mistake, index in zip(instance.mistakes, instance.live_misconceptions, strict=True):
        if mistake.id is not None and (got := grade(spec, mistake.answer_text).misconception) != mistake.id:
            raise TemplateError(f"field 'misconceptions.{index}' ({mistake.id}): its answer typed as printed "
                                f"({mistake.answer_text}) is graded as {got or 'no misconception'}, so a learner "
                                "making it would not hear about it")
    for i, wrong in enumerate(spec.wrong_answers):  # those giving the correct answer were dropped for this seed
        if spec.kind == "order" and examined_pair_inverted(wrong.value, spec.expected, spec.must_precede) is None:
            field = f"misconceptions.{instance.live_misconceptions[i]}"
            kept = grade(spec, describe("order", wrong.value)).score
            raise TemplateError(f"field {field!r} ({wrong.id}): this order inverts no pair listed under "
                                f"'must_precede', so the mistake keeps {kept:.0%} of the marks: list the pair of "
                                "steps it puts the wrong way round")
        for other in spec.wrong_answers[i + 1:]:
            if np.shape(wrong.value) == np.shape(other.value) and values_match(
                    spec.kind, wrong.value, other.value, spec.tolerance):
                field = f"misconceptions.{instance.live_misconceptions[i]}"  # in the file, not among those kept
                raise TemplateError(f"field {field!r} ({wrong.id}): gives the same answer as "
                                    f"{other.id}, so feedback could not tell them apart")


def fail(template: Template, field: str, message: str) -> None:
    """Refuse ``template`` for ``message`` about ``field``."""
    raise TemplateError(f"field {field!r}: {message}", where=template_where(template))
