"""The order answer kind: reading letters, the pair-based score, and the scoring rules' cases
(blank, "all", the shown order, reversed, random) as a teacher would sign them."""

from __future__ import annotations

import itertools
import random

import pytest

from quizzer.grading.hints import order_credit
from quizzer.grading.ordering import order_score, parse_order
from quizzer.grading.typed import AnswerFormatError
from quizzer.grading.verdict import AnswerSpec, WrongAnswer, grade

STEPS = ("embed", "scores", "mask", "softmax", "cross scores", "source mask")
EXPECTED = (3, 0, 5, 1, 4, 2)  # displayed positions in the right order: d a f b e c
SPEC = AnswerSpec(kind="order", expected=EXPECTED, options=STEPS,
                  wrong_answers=(WrongAnswer("mask_applied_after_softmax", (3, 0, 1, 5, 4, 2), "mask the scores"),))


def letters(order: tuple[int, ...]) -> str:
    return " ".join(chr(97 + i) for i in order)


def kendall_floor(got: tuple[int, ...], want: tuple[int, ...]) -> float:
    """Kendall's tau from its definition over all pairs, floored at 0 (independent of the module)."""
    place = {step: i for i, step in enumerate(want)}
    signs = [1 if place[x] < place[y] else -1 for x, y in itertools.combinations(got, 2)]
    return max(0.0, sum(signs) / len(signs))


@pytest.mark.parametrize("typed", ["d a f b e c", "dafbec", "d, a, f, b, e, c", "D > A > F > B > E > C",
                                   "(d) (a) (f) (b) (e) (c)", "d→a→f→b→e→c"])
def test_the_right_order_typed_any_way_is_correct(typed: str) -> None:
    verdict = grade(SPEC, typed)
    assert (verdict.verdict, verdict.score) == ("correct", 1.0)


@pytest.mark.parametrize(("typed", "message"), [
    ("", "empty"), ("   ", "empty"), ("all", "could not read"), ("none", "could not read"),
    ("d a f", "missing"), ("d a f b e e", "twice"), ("d a f b e z", "no step z"), ("1 2 3 4 5 6", "could not read"),
])
def test_unreadable_orders_are_told_why_and_never_count(typed: str, message: str) -> None:
    verdict = grade(SPEC, typed)
    assert verdict.verdict == "invalid" and verdict.score == 0 and message in verdict.feedback


def test_reversed_scores_zero_and_one_adjacent_swap_loses_two_pairs() -> None:
    assert grade(SPEC, letters(tuple(reversed(EXPECTED)))).score == 0
    swapped = grade(SPEC, letters((0, 3, 5, 1, 4, 2)))
    assert swapped.verdict == "partial" and swapped.score == pytest.approx(1 - 2 / 15)  # 14 right − 1 wrong of 15


def test_every_order_of_five_steps_scores_kendalls_tau_floored() -> None:
    want = (2, 0, 4, 1, 3)
    spec = AnswerSpec(kind="order", expected=want, options=tuple("vwxyz"))
    for got in itertools.permutations(range(5)):
        assert grade(spec, letters(got)).score == pytest.approx(kendall_floor(got, want))


def test_a_random_order_earns_little_on_average() -> None:
    rng = random.Random(21)
    scores = [order_score(rng.sample(range(8), 8), range(8)) for _ in range(2000)]
    assert sum(scores) / len(scores) < 0.15 and min(scores) == 0


def test_a_recognised_mistake_keeps_its_score_and_is_named() -> None:
    verdict = grade(SPEC, "d a b f e c")
    assert verdict.misconception == "mask_applied_after_softmax"
    no_catalogue = grade(AnswerSpec(kind="order", expected=EXPECTED, options=STEPS), "d a b f e c")
    assert verdict.score == no_catalogue.score > 0


def test_parse_reads_letters_as_displayed_positions() -> None:
    assert parse_order("c a b", ("x", "y", "z")) == (2, 0, 1)
    with pytest.raises(AnswerFormatError):
        parse_order("c a", ("x", "y", "z"))


# --------------------------------------------------------- the relations a question examines

EXAMINED = AnswerSpec(kind="order", expected=EXPECTED, options=STEPS, must_precede=((3, 4),))  # mask, softmax


def test_an_order_inverting_an_examined_pair_scores_0_however_much_else_is_right() -> None:
    """One adjacent swap of the mask and the softmax keeps 14 of 15 pairs: 0.87 by pairs alone, 0 when the
    question examines exactly that relation; a swap of two other steps keeps its pairs' score."""
    swapped = grade(EXAMINED, "d a b f e c")  # the softmax (b) before the mask (f)
    by_pairs = grade(AnswerSpec(kind="order", expected=EXPECTED, options=STEPS), "d a b f e c").score
    assert by_pairs == pytest.approx(kendall_floor((3, 0, 1, 5, 4, 2), EXPECTED)) and by_pairs > 0.7
    assert (swapped.verdict, swapped.score) == ("incorrect", 0.0)
    assert swapped.feedback.startswith("step f must come before step b, the order this question examines; ")
    other = grade(EXAMINED, "a d f b e c")  # the embedding and the scores swapped
    assert (other.verdict, other.score) == ("partial", pytest.approx(kendall_floor((0, 3, 5, 1, 4, 2), EXPECTED)))
    assert grade(EXAMINED, "d a f b e c").verdict == "correct"


def test_every_order_keeping_the_examined_pairs_scores_by_pairs() -> None:
    spec = AnswerSpec(kind="order", expected=(2, 0, 4, 1, 3), options=tuple("vwxyz"), must_precede=((1, 2), (4, 5)))
    for got in itertools.permutations(range(5)):
        place = {step: i for i, step in enumerate(got)}
        kept = place[2] < place[0] and place[1] < place[3]
        assert grade(spec, letters(got)).score == pytest.approx(kendall_floor(got, spec.expected) if kept else 0.0)


def test_every_listed_mistake_of_a_bundled_ordering_question_inverts_an_examined_pair() -> None:
    """So none keeps most of the marks (one adjacent swap of eight steps would keep 0.93)."""
    from tests.bundled_templates import bundled, instance

    ordering = [key for key, template in bundled().items() if template.kind == "order"]
    assert len(ordering) >= 3
    for key in ordering:
        for seed in (0, 1, 2):
            question = instance(key, seed)
            for mistake in question.mistakes:
                verdict = grade(question.spec, mistake.answer_text)
                assert (verdict.score, verdict.misconception) == (0.0, mistake.id), (key, seed, mistake.id)



def test_the_rule_as_an_answer_sheet_states_it_matches_the_grading() -> None:
    """order_credit() words the rule for a teacher marking by hand; "this order only" is claimed when every
    step's place is examined, so every other order of those steps must grade 0."""
    assert order_credit(["c", "a", "d", "b"], []) == (
        "in part: pairs of steps in the right order minus pairs reversed, over all 6 pairs, never below 0")
    assert order_score((0, 1, 3, 2), (0, 1, 2, 3)) == pytest.approx((5 - 1) / 6)  # one of the 6 pairs reversed
    assert order_credit(["c", "a", "d", "b"], [(2, 3)]).endswith("never below 0; 0 if (d) comes before (a)")
    chain = ((1, 2), (2, 3), (3, 4), (4, 5))
    assert order_credit(list("vwxyz"), chain) == "this order only, all or nothing"
    want = (2, 0, 4, 1, 3)
    spec = AnswerSpec(kind="order", expected=want, options=tuple("vwxyz"), must_precede=chain)
    assert {grade(spec, letters(got)).score for got in itertools.permutations(range(5)) if got != want} == {0.0}
