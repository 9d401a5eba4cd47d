"""Ordering templates: the schema, the shown order (never worth credit), and mistakes as orders."""

from __future__ import annotations

import msgspec
import pytest

from quizzer.common.errors import TemplateError
from quizzer.grading.verdict import grade
from quizzer.templates.instance import make_instance
from quizzer.templates.schema import Template
from tests.bundled_templates import instance

BASE = {"key": "practice/order-test", "title": "Order test", "week": 2, "topics": ["transformer_data_flow"],
        "difficulty": 1, "source": "test", "kind": "order", "prompt": "Order them.", "solution": "As listed.",
        "items": ["first", "second", "third", "fourth"]}


def test_the_shown_order_scores_zero_on_every_seed() -> None:
    for seed in range(60):
        item = instance("practice/decoder-mask-order", seed)
        shown = ", ".join(chr(97 + i) for i in range(len(item.choices)))
        assert grade(item.spec, shown).score == 0, seed
        assert grade(item.spec, item.answer_text).verdict == "correct"


def test_each_listed_mistake_is_graded_back_as_itself() -> None:
    for seed in range(0, 60, 7):
        item = instance("practice/decoder-mask-order", seed)
        assert {m.id for m in item.mistakes} == {"mask_applied_after_softmax", "cross_attention_before_self_attention"}
        for mistake in item.mistakes:
            assert grade(item.spec, mistake.answer_text).misconception == mistake.id


@pytest.mark.parametrize(("change", "message"), [
    ({"items": None}, "items"), ({"answer": "1"}, "items"), ({"shuffle": False}, "shuffled"),
    ({"kind": "choice", "choices": [{"text": "a", "correct": True}, {"text": "b"}]}, "only for kind 'order'"),
    ({"must_precede": [[3, 2]]}, r"\[3, 2\] is not a pair of steps in their right order"),
    ({"must_precede": [[1, 5]]}, r"1 ≤ a < b ≤ 4"),
    ({"must_precede": [[1, 2, 3]]}, "must_precede"),
    ({"must_precede": [[1, 2], [2, 3], [1, 2]]}, r"\[1, 2\] is listed twice"),
    ({"kind": "number", "answer": "1", "items": None, "must_precede": [[1, 2]]},
     "'must_precede' is only for kind 'order', not 'number'"),
])
def test_schema_rejects_a_malformed_ordering_template(change: dict[str, object], message: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=message):
        msgspec.convert(BASE | change, Template)


def test_a_mistake_that_is_not_an_order_of_every_item_is_a_template_error() -> None:
    template = msgspec.convert(BASE | {"misconceptions": [{"id": "mask_applied_after_softmax",
                                                                "answer": "[1, 2, 2, 4]"}]}, Template)
    with pytest.raises(TemplateError, match="every item number 1–4 once"):
        make_instance(template, 0)


def test_a_listed_ordering_mistake_must_invert_an_examined_pair() -> None:
    """Else the mistake the question lists keeps most of the marks (one swap of four steps: 67 %)."""
    from quizzer.templates.validate import check_renders

    mistake = {"id": "mask_applied_after_softmax", "answer": "[2, 1, 3, 4]", "feedback": "First things first."}
    unexamined = msgspec.convert(BASE | {"misconceptions": [mistake], "must_precede": [[3, 4]]}, Template)
    with pytest.raises(TemplateError, match=r"misconceptions.0.*inverts no pair listed under 'must_precede', so the "
                                            r"mistake keeps 67% of the marks"):
        check_renders(unexamined, range(3))
    examined = msgspec.convert(BASE | {"misconceptions": [mistake], "must_precede": [[1, 2]]}, Template)
    assert check_renders(examined, range(3)) == 3
