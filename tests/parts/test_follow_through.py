"""Multi-part questions: each part graded on its own, a later part also on the learner's own earlier
values (follow-through), from real bundled chains; the numbers checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from quizzer.common.errors import TemplateError
from quizzer.grading.verdict import grade
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_text
from quizzer.templates.parts import check_parts, grade_instance
from tests.bundled_templates import bundled, instance

DECODER = "2024T3_Q1_NA Q279"


def test_the_decoder_chain_answers_are_the_notes_numbers() -> None:
    item = instance(DECODER, 0)
    # Notes, code block 07: 4,204,032 per layer, six layers 25,224,192, tied 512 x 37,000 embedding 18,944,000.
    assert item.answer == (4_204_032, 25_224_192, 25_224_192 + 18_944_000)
    assert [p.id for p in item.parts] == ["2024T3_Q1_NA Q279", None, "2024T3_Q1_NA Q280"]
    assert [sorted(p.step.depends) for p in item.parts] == [[], ["layer"], ["layer", "stack"]]


def test_a_wrong_part_a_and_a_consistent_part_b_earn_follow_through() -> None:
    item = instance(DECODER, 0)
    mine = 4_100_000                                  # a wrong layer count
    stack, total = 6 * mine, 18_944_000 + 6 * mine    # computed by hand from it: tied, no bias
    a, b, c = grade_instance(item, [str(mine), f"{stack:,}", str(total)])
    assert (a.verdict.verdict, a.verdict.score, a.carried_forward) == ("incorrect", 0.0, False)
    assert (b.verdict.verdict, b.verdict.score, b.carried_forward) == ("correct", 1.0, True)
    assert (c.verdict.verdict, c.verdict.score, c.carried_forward) == ("correct", 1.0, True)
    assert "Right on your value" in b.verdict.feedback and "part (a)" in b.verdict.feedback
    assert b.verdict.misconception is None


def test_an_inconsistent_later_part_earns_nothing() -> None:
    item = instance(DECODER, 0)
    a, b, c = grade_instance(item, ["4100000", str(6 * 4_100_000 + 1), str(18_944_000 + 6 * 4_100_000 + 5)])
    assert [v.verdict.score for v in (a, b, c)] == [0.0, 0.0, 0.0]
    assert not any(v.carried_forward for v in (a, b, c))


def test_right_answers_are_right_without_follow_through() -> None:
    item = instance(DECODER, 3)
    verdicts = grade_instance(item, [p.question.answer_text for p in item.parts])
    assert [(v.verdict.verdict, v.carried_forward) for v in verdicts] == [("correct", False)] * 3


def test_follow_through_credit_is_set_by_the_part() -> None:
    item = instance("practice/warmup-chain", 0)           # d = 512, w = 4000, s = 1000; (c) follow_through 0.8
    peak = 4000 ** -0.5                                   # forgot d^-1/2: a wrong peak
    rate = peak * 1000 / 4000
    mirror = 1 / (512 * rate ** 2)
    a, b, c = grade_instance(item, [f"{peak:.6g}", f"{rate:.6g}", f"{mirror:.6g}"])
    assert a.verdict.misconception == "warmup_ignores_width"
    assert (b.verdict.score, b.carried_forward) == (1.0, True)
    assert c.verdict.verdict == "partial" and c.verdict.score == pytest.approx(0.8) and c.carried_forward
    assert "80% credit" in c.verdict.feedback


def test_a_listed_mistake_carried_forward_is_one_mistake() -> None:
    """Reading the table at the input token (no shift) in (a), then summing those logs in (b): the
    mistake is named once, in (a); (b) is right on the learner's values."""
    item = instance("2024T3_Q1_NA Q275", 2)
    p_in = item.values["p_in"]
    a, b = grade_instance(item, [" ".join(f"{p:.2f}" for p in p_in), f"{-np.sum(np.log(p_in)):.4f}"])
    assert a.verdict.misconception == "teacher_forcing_no_shift"
    assert b.carried_forward and b.verdict.misconception is None and b.verdict.score == 1.0
    # Graded alone, the same (b) answer is that mistake.
    assert grade(item.parts[1].question.spec, f"{-np.sum(np.log(p_in)):.4f}").misconception == \
        "teacher_forcing_no_shift"


def test_post_ln_chain_follows_a_wrong_residual_sum_into_the_statistics() -> None:
    item = instance("2024T3_Q1_NA Q281", 0)
    np.testing.assert_allclose(item.answer[0], [[1, 2, 3], [0, 9, 6]])  # X + XW by hand; row 1 is the notes' (1, 2, 3)
    np.testing.assert_allclose(item.answer[1][0], [2, 2 / 3], atol=1e-12)
    wrong_h = np.array([[1.0, 2, 4], [0, 9, 6]])
    stats = np.stack([wrong_h.mean(axis=1), wrong_h.var(axis=1)], axis=1)   # NumPy, independently of the template
    text = "; ".join(" ".join(f"{x:.4f}" for x in row) for row in stats)
    a, b, _ = grade_instance(item, ["1 2 4; 0 9 6", text, "0 0 0; 0 0 0"])
    assert a.verdict.verdict == "partial" and b.carried_forward and b.verdict.score == 1.0


def test_an_unreadable_part_carries_nothing_forward() -> None:
    item = instance(DECODER, 0)
    a, b, _ = grade_instance(item, ["many", str(6 * 4_100_000), "1"])
    assert a.verdict.verdict == "invalid" and not b.carried_forward and b.verdict.score == 0


def test_one_answer_per_part() -> None:
    with pytest.raises(ValueError, match="expected 3 answers"):
        grade_instance(instance(DECODER, 0), ["1", "2"])


def test_every_multi_part_template_lists_parts_in_the_calculation_order() -> None:
    chains = [t for t in bundled().values() if t.parts]
    assert len(chains) >= 4
    for template in chains:
        check_parts(template)


def _chain(parts: str) -> str:
    return f"""
key: practice/bad-chain
title: A bad chain
week: 2
topics: [training_tricks]
difficulty: 1
source: test
kind: parts
params: {{n: {{int: [2, 9]}}}}
derived: {{one: n + 1, two: one * 2}}
prompt: n is {{{{ n }}}}.
solution: done
parts:
{parts}
"""


def test_parts_in_the_wrong_order_are_refused() -> None:
    template = load_text(_chain("""  - {prompt: two?, answer: two, kind: integer}
  - {prompt: one?, answer: one, kind: integer}"""), where="test")
    with pytest.raises(TemplateError, match="computed from part b's 'one'"):
        check_parts(template)


def test_a_part_must_name_a_derived_value() -> None:
    with pytest.raises(TemplateError, match="is not a derived value"):
        load_text(_chain("""  - {prompt: one?, answer: one + 1, kind: integer}
  - {prompt: two?, answer: two, kind: integer}"""), where="test")


def test_top_level_answers_are_refused_with_parts() -> None:
    with pytest.raises(TemplateError, match="in each part"):
        load_text(_chain("""  - {prompt: one?, answer: one, kind: integer}
  - {prompt: two?, answer: two, kind: integer}""") + "points: 3\n", where="test")



def test_a_top_level_tolerance_is_refused_with_parts() -> None:
    """Found by a tester: a chain's top-level tolerance was silently ignored, so its loss part, asked to
    3 decimals, was keyed and graded to the default 3 significant figures."""
    with pytest.raises(TemplateError, match="'tolerance' in each part"):
        load_text(_chain("""  - {prompt: one?, answer: one, kind: integer}
  - {prompt: two?, answer: two, kind: integer}""") + "tolerance: {abs: 0.002}\n", where="test")


def test_a_part_only_partly_right_on_the_learners_value_says_so() -> None:
    """Q275 (b) on a wrong (a): 10.2 is the learner's own loss, 10.224, to 1 decimal where 3 are asked.
    It earns the precision credit on that value, and the feedback says so, showing the value to the 3
    decimals asked; it once claimed "that is what you found (full credit)" beside a score of 0.5 and
    showed 10.22."""
    item = instance("2024T3_Q1_NA Q275", 2)
    mine = "0.11 0.03 0.11 0.10"  # each row read at the token it received
    theirs = -np.sum(np.log([0.11, 0.03, 0.11, 0.10]))
    assert round(theirs, 3) == 10.224
    _, short = grade_instance(item, [mine, "10.2"])
    assert (short.verdict.verdict, short.verdict.score, short.carried_forward) == ("partial", 0.5, True)
    assert short.on_their_value == "partly right on your value"
    assert short.verdict.feedback.startswith("Partly right on your value: from your answer to part (a), this part "
                                             "is 10.224; against that, right to 1 decimal; give 3 ")
    assert "full credit" not in short.verdict.feedback
    _, full = grade_instance(item, [mine, "10.224"])
    assert (full.verdict.verdict, full.on_their_value) == ("correct", "right on your value")
    assert "this part is 10.224, and that is what you found (error carried forward: full credit)" in (
        full.verdict.feedback)


def test_zeros_carry_nothing_forward_in_any_chain() -> None:
    """Typing 0 in every part shows no work: a later part that the learner's zeros make zero (six layers of
    a 0-parameter layer) is not "right on your value", in any bundled chain, on any seed tried."""
    chains = [key for key, template in bundled().items() if template.parts]
    for key in chains:
        for seed in range(0, 60, 6):
            item = instance(key, seed)
            shapes = [np.atleast_2d(np.zeros(np.shape(part.question.answer))) for part in item.parts]
            zeros = ["; ".join(" ".join("0" for _ in row) for row in rows) for rows in shapes]
            verdicts = grade_instance(item, zeros)
            assert not any(v.carried_forward for v in verdicts), (key, seed, [v.verdict.feedback for v in verdicts])
            assert sum(v.verdict.score for v in verdicts) <= 0.5 * len(verdicts), (key, seed)


def test_a_value_that_makes_the_next_part_zero_earns_no_follow_through() -> None:
    item = instance("2024T3_Q1_NA Q275", 5)
    a, b = grade_instance(item, ["1 1 1 1", "0"])  # every probability 1: the loss on those is -log 1 = 0
    assert a.verdict.verdict == "incorrect" and (b.verdict.score, b.carried_forward) == (0.0, False)


SOFTMAX_CHAIN = """\
key: practice/test-softmax-chain
title: Scores, then their weights
week: 1
topics: [scaled_dot_product_attention, softmax]
difficulty: 1
source: tests
kind: parts
params:
  q: {vector: 2, dist: integers, low: 1, high: 3, decimals: 0}
  K: {matrix: [3, 2], dist: integers, low: -2, high: 2, decimals: 0}
require: [len(unique(K @ q)) == 3]
derived:
  scores: K @ q / sqrt(2)
  weights: softmax(scores)
prompt: q = {{ show(q) }}, K = {{ show(K) }}.
solution: done
parts:
  - prompt: The scaled scores? Give 3 decimals.
    answer: scores
    kind: vector
  - prompt: The weights? Give 3 decimals.
    answer: weights
    kind: vector
"""


def test_an_earlier_answer_of_one_number_repeated_carries_nothing_forward() -> None:
    """Zeros for the scores make the softmax uniform: right on the learner's value, but it shows no work and
    the step is trivial (a teacher's chain paid for it).  Any other wrong scores still carry forward."""
    item = make_instance(load_text(SOFTMAX_CHAIN, where="test"), 3)
    _, uniform = grade_instance(item, ["0 0 0", "0.333 0.333 0.333"])
    assert (uniform.verdict.score, uniform.carried_forward) == (0.0, False)
    theirs = np.array([1.0, 2.0, 3.0])
    weights = np.exp(theirs) / np.exp(theirs).sum()
    _, worked = grade_instance(item, ["1 2 3", " ".join(f"{w:.3f}" for w in weights)])
    assert (worked.verdict.score, worked.carried_forward) == (1.0, True)
