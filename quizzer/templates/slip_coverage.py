"""Which engine slips change each template's answer, and which of those the template lists.

``quizzer validate`` prints one line per template whose answer some slip changes (so an author
sees the mistakes quizzer would only discover, and can write feedback for them), and
``quizzer validate --all`` the coverage table over the bank: per slip, how many templates it
changes, how many list it and how many leave it to discovery. Each discovered slip is also held
to the listed misconceptions' rule: typed as printed, it is graded back as itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.mutations import MUTATIONS
from quizzer.grading.match import values_match
from quizzer.templates.discovery import applicable_mutations, discovered_answers, not_graded_back, slipped_answer
from quizzer.templates.instance import make_instance
from quizzer.templates.schema import Template

# Seeds tried per template: a slip "changes the answer" if it does on any of them. Fewer than
# validate's render seeds, because every slip reruns the template.
SLIP_SEEDS = 10


@dataclass(frozen=True)
class TemplateSlips:
    key: str
    applicable: tuple[str, ...]      # slips of engine functions the template calls
    alters: tuple[str, ...]          # of those, the ones that change its answer on some seed
    listed: tuple[str, ...]          # of those, the ones the template lists as misconceptions
    not_graded_back: tuple[str, ...]  # discovered slips that, typed as printed, grade as something else

    @property
    def discovered(self) -> tuple[str, ...]:
        return tuple(slip for slip in self.alters if slip not in self.listed)

    def line(self) -> str:
        listed = ", ".join(self.listed) or "none"
        discovered = ", ".join(self.discovered) or "none"
        text = f"{self.key}: {len(self.alters)} slip(s) change the answer — listed: {listed}; discovered: {discovered}"
        if self.not_graded_back:
            text += f"; not graded back as typed: {', '.join(self.not_graded_back)}"
        return text


def template_slips(template: Template, seeds: Iterable[int] = range(SLIP_SEEDS),
                   tick: Callable[[], None] = lambda: None) -> TemplateSlips:
    """The slips of one template over ``seeds``; ``tick`` is called after every rerun (validation's budget
    refuses there when the report would take longer than the file may)."""
    mutations = applicable_mutations(template)
    alters: set[str] = set()
    failing: set[str] = set()
    for seed in seeds if mutations else ():
        instance = make_instance(template, seed)
        spec = instance.spec
        for mutation in mutations:
            value = slipped_answer(template, instance.values, mutation)
            if value is not None and not values_match(spec.kind, value, spec.expected, spec.tolerance,
                                                      sizes=spec.sizes):
                alters.add(mutation.id)
            tick()
        failing.update(not_graded_back(template, spec, discovered_answers(template, instance.values, spec)))
    order = [mutation.id for mutation in mutations]
    listed = {m.id for m in template.misconceptions}
    return TemplateSlips(
        template.key, tuple(order), tuple(slip for slip in order if slip in alters),
        tuple(slip for slip in order if slip in alters and slip in listed),
        tuple(slip for slip in order if slip in failing))


def coverage_table(rows: list[TemplateSlips]) -> str:
    """Templates × slips that alter the answer, per slip: listed vs left to discovery."""
    width = max(len(mutation.id) for mutation in MUTATIONS)
    lines = [f"{'slip (misconception id)':<{width}}  {'calls':>5}  {'alters':>6}  {'listed':>6}  {'discovered':>10}"]
    for mutation in MUTATIONS:
        calls = sum(mutation.id in row.applicable for row in rows)
        alters = sum(mutation.id in row.alters for row in rows)
        listed = sum(mutation.id in row.listed for row in rows)
        lines.append(f"{mutation.id:<{width}}  {calls:>5}  {alters:>6}  {listed:>6}  {alters - listed:>10}")
    pairs = sum(len(row.alters) for row in rows)
    listed_pairs = sum(len(row.listed) for row in rows)
    touched = sum(bool(row.applicable) for row in rows)
    altered = sum(bool(row.alters) for row in rows)
    lines.append(f"{len(rows)} templates; {touched} call an engine function with a slip, {altered} have an answer "
                 f"some slip changes; {pairs} (template, slip) pairs change the answer: {listed_pairs} listed, "
                 f"{pairs - listed_pairs} discovered only.")
    failing = [(row.key, slip) for row in rows for slip in row.not_graded_back]
    if failing:
        lines.append(f"{len(failing)} discovered slip(s) not graded back as typed: "
                     + "; ".join(f"{key} {slip}" for key, slip in failing))
    return "\n".join(lines)
