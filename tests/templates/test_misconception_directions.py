"""A misconception id names the error it detects, in the right direction, on every counting question.

"Forgot X" answers count less than the right answer; "counted a bias that does not exist" more.
Checked on every integer and expression template of the bank over several seeds (an expression at
every variable = 64), so a template cannot record the opposite of the mistake made.
"""

from __future__ import annotations

import pytest

from quizzer.grading.readers import read_expression
from quizzer.templates.instance import Instance
from tests.bundled_templates import SEEDS, bundled, instance

FEWER = {  # leaves something out
    "forgot_biases", "forgot_layernorm_params", "forgot_output_projection", "decoder_one_attention",
    "mask_counted_once_for_all_heads", "causal_mask_only", "padding_mask_only",
}
MORE = {  # counts something that is not there, or twice
    "counted_nonexistent_biases", "counted_tied_weights_twice", "heads_add_params", "encoder_two_attention",
    "sinusoidal_pe_counted_as_params",
}


def size(item: Instance, answer: object) -> float:
    if item.kind == "integer":
        return float(answer)  # type: ignore[arg-type]
    expression = read_expression(str(answer), item.spec.variables)
    return float(expression.value_at({name: 64.0 for name in item.spec.variables}))


def counting_instances() -> list[Instance]:
    """Whole-number and formula questions, a multi-part question's parts among them."""
    items = [instance(key, seed) for key, t in bundled().items() if t.kind in ("integer", "expression", "parts")
             for seed in SEEDS]
    questions = [part.question for item in items for part in item.parts] + [i for i in items if not i.parts]
    return [q for q in questions if q.kind in ("integer", "expression")]


@pytest.mark.parametrize(("ids", "fewer"), [(FEWER, True), (MORE, False)])
def test_direction_of_every_counting_mistake(ids: set[str], fewer: bool) -> None:
    seen = set()
    for item in counting_instances():
        right = size(item, item.answer)
        for mistake in item.mistakes:
            if mistake.id in ids:
                seen.add(mistake.id)
                wrong = size(item, mistake.answer)
                assert (wrong < right) if fewer else (wrong > right), (item.key, item.seed, mistake.id, wrong, right)
    assert seen == ids  # every id in the table is exercised by the bank


def test_forgot_ids_never_count_more() -> None:
    """Any id saying 'forgot' is a smaller count, wherever a template uses it."""
    for item in counting_instances():
        right = size(item, item.answer)
        for mistake in item.mistakes:
            if mistake.id and mistake.id.startswith("forgot_"):
                assert size(item, mistake.answer) < right, (item.key, item.seed, mistake.id)
