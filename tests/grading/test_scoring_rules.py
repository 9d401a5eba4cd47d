"""The scoring rules of questions/README.md, held per kind and over the whole bundled bank.

For every kind: what a blank, "none", "all", a random answer and each known mistake score.
The bank-wide tests grade real instances, so a template cannot drift from the rules.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from msgspec.structs import replace

from quizzer.grading.verdict import AnswerSpec, WrongAnswer, grade
from quizzer.templates.instance import Instance
from tests.bundled_templates import SEEDS, bundled, instance


def without_catalogue(spec: AnswerSpec) -> AnswerSpec:
    """The same question with no mistake to name: none listed, none discovered."""
    return replace(spec, wrong_answers=(), discover=None)


# ------------------------------------------------------------- blank and unreadable, every kind

@pytest.mark.parametrize("kind", ["number", "integer", "vector", "matrix", "shape", "bool", "choice", "multi",
                                  "expression"])
def test_a_blank_answer_is_unread_for_every_kind(kind: str) -> None:
    key = next(k for k, t in bundled().items() if t.kind == kind)
    verdict = grade(instance(key, 1).spec, "   ")
    assert (verdict.verdict, verdict.score) == ("invalid", 0.0)


@pytest.mark.parametrize("kind", ["number", "integer", "vector", "matrix", "shape", "bool", "choice", "expression"])
def test_none_and_all_are_not_answers_outside_select_all(kind: str) -> None:
    key = next(k for k, t in bundled().items() if t.kind == kind)
    spec = instance(key, 1).spec
    for typed in ("none", "all"):
        verdict = grade(spec, typed)
        assert verdict.score == 0.0 and verdict.verdict in ("invalid", "incorrect"), (key, typed, verdict)


# ------------------------------------------------------------------------------ select-all

def multi_instances() -> list[Instance]:
    return [instance(key, seed) for key, t in bundled().items() if t.kind == "multi" for seed in SEEDS]


def test_select_all_none_scores_zero_everywhere() -> None:
    """'none' earned 0.57–0.62 on the week-1 multi-selects when unpicked wrong options counted."""
    instances = multi_instances()
    assert len(instances) >= 80
    for item in instances:
        verdict = grade(item.spec, "none")
        assert (verdict.verdict, verdict.score) == ("incorrect", 0.0), (item.key, item.seed)


def test_select_all_scores_right_minus_wrong_over_right_for_every_selection() -> None:
    rng = random.Random(7)
    for item in multi_instances():
        right, n = item.answer, len(item.choices)
        letters = "abcdefghijkl"[:n]
        everything = grade(item.spec, ", ".join(letters))
        assert everything.score == max(0.0, (len(right) - (n - len(right))) / len(right))
        for _ in range(5):
            picked = {i for i in range(n) if rng.random() < 0.5} or {0}
            expected = max(0.0, (len(picked & right) - len(picked - right)) / len(right))
            verdict = grade(item.spec, ", ".join(letters[i] for i in sorted(picked)))
            assert verdict.score == pytest.approx(expected), (item.key, item.seed, sorted(picked))
            assert verdict.verdict == ("correct" if picked == right else "partial" if expected else "incorrect")


def test_the_reported_select_all_example() -> None:
    verdict = grade(instance("2025T2_Q1_NA Q150", 1).spec, "none")
    assert (verdict.verdict, verdict.score) == ("incorrect", 0.0)


# ------------------------------------------------------- a recognised mistake costs nothing

def test_the_reported_layernorm_example_stays_partial_with_the_mistake_named() -> None:
    item = instance("2024T3_Q1_NA Q282", 0)
    mu = item.answer[0]
    unbiased = next(m for m in item.mistakes if m.id == "unbiased_variance")
    named = grade(item.spec, unbiased.answer_text)
    random_sigma = grade(item.spec, f"[{mu:g}, {item.answer[1] * 7.3:g}]")
    assert (named.verdict, named.score, named.misconception) == ("partial", 0.5, "unbiased_variance")
    assert (random_sigma.verdict, random_sigma.score, random_sigma.misconception) == ("partial", 0.5, None)
    assert "entry 2 is off" in named.feedback


def test_every_known_mistake_scores_what_it_would_score_without_the_catalogue() -> None:
    """Over the bank: naming a mistake adds feedback and an id, never a lower score."""
    checked = 0
    for key, template in bundled().items():
        if template.kind == "text":
            continue
        for seed in SEEDS:
            item = instance(key, seed)
            bare = without_catalogue(item.spec)
            for mistake in item.mistakes:
                named, plain = grade(item.spec, mistake.answer_text), grade(bare, mistake.answer_text)
                assert named.misconception == mistake.id, (key, seed, mistake.id)
                if plain.verdict == "invalid":  # another shape (a transpose): wrong, and named
                    assert (named.verdict, named.score) == ("incorrect", 0.0), (key, seed, mistake.id)
                else:
                    assert (named.verdict, named.score) == (plain.verdict, plain.score), (key, seed, mistake.id)
                checked += 1
    assert checked > 1500


def test_a_mistake_of_another_shape_is_wrong_not_unreadable() -> None:
    spec = AnswerSpec("matrix", np.array([[1.5, 2.5, 3.5]]),
                      wrong_answers=(WrongAnswer("transposed", np.array([[1.5], [2.5], [3.5]]), "transposed"),))
    named = grade(spec, "[[1.5], [2.5], [3.5]]")
    assert (named.verdict, named.score, named.misconception) == ("incorrect", 0.0, "transposed")
    assert grade(spec, "[[1.5], [2.5]]").verdict == "invalid"


# ------------------------------------------------------------------- discrete answers exact

def test_token_ids_are_exact() -> None:
    item = instance("2024T1_Q1_NA Q192", 2)
    assert list(item.answer) == [0, 7, 1, 6]
    near = grade(item.spec, "[0.4, 7.4, 1.4, 6.4]")
    assert (near.verdict, near.score) == ("incorrect", 0.0)
    assert "whole number" in near.feedback
    assert grade(item.spec, "[0.0, 7.0, 1, 6]").verdict == "correct"
    one_off = grade(item.spec, "[0, 7, 1, 5]")  # graded all or nothing: another input sequence
    assert (one_off.verdict, one_off.score, one_off.feedback) == ("incorrect", 0.0, "entry 4 is off")


def test_every_whole_number_vector_or_matrix_in_the_bank_is_exact() -> None:
    """0/1 masks and token ids (Q9, Q157, Q192 among them) accept no 0.6 for 1 or 1.4 for 1."""
    found = 0
    for key, template in bundled().items():
        if template.kind not in ("vector", "matrix"):
            continue
        for seed in SEEDS:
            item = instance(key, seed)
            answer = np.asarray(item.answer, dtype=float)
            if not np.all(answer == np.round(answer)):
                continue
            found += 1
            nudged = answer.copy()
            nudged.flat[0] += 0.4
            typed = str(nudged.tolist())
            verdict = grade(item.spec, typed)
            assert verdict.score < 1.0 and verdict.verdict != "correct", (key, seed, typed)
    assert found >= 30


# ------------------------------------------------ entries given away, and answers all or nothing

MASKED = AnswerSpec("vector", np.array([0.7311, 0.2689, 0.0, 0.0]), given=np.array([False, False, True, True]))


@pytest.mark.parametrize(("typed", "verdict", "score"), [
    ("0 0 0 0", "incorrect", 0.0),              # the blocked keys' zeros are no work
    ("0.7311 0.2689 0 0", "correct", 1.0),
    ("0.7311 0.5 0 0", "partial", 0.5),         # one of the two entries to work out
    ("0.7311 0.2689 0.1 0", "partial", 0.5),    # a given entry typed wrong costs one entry's worth
    ("0.7311 0.5 0.1 0", "incorrect", 0.0),
    ("0.25 0.25 0.25 0.25", "incorrect", 0.0),
])
def test_entries_the_prompt_gives_away_earn_no_credit(typed: str, verdict: str, score: float) -> None:
    graded = grade(MASKED, typed)
    assert (graded.verdict, graded.score) == (verdict, score)


def test_a_mask_graded_all_or_nothing_earns_nothing_for_either_mask_alone() -> None:
    item = instance("2024T1_ET_AN Q157", 3)  # right padding: either mask alone is right in most entries
    assert not item.spec.partial_credit
    for mistake in item.mistakes:
        graded = grade(item.spec, mistake.answer_text)
        assert (graded.verdict, graded.score, graded.misconception) == ("incorrect", 0.0, mistake.id)
    assert grade(item.spec, item.answer_text).score == 1.0


def test_zeros_earn_at_most_half_of_any_vector_or_matrix_and_a_fifth_on_average() -> None:
    """Typing zeros shows no work: where a question's zeros are given away (blocked keys, the blocks of a
    rotation) they are ``given_entries``, and no draw's answer is all zeros."""
    checked = 0
    for key, template in bundled().items():
        kinds = [part.kind for part in template.parts] if template.parts else [template.kind]
        if not {"vector", "matrix"} & set(kinds):
            continue
        scores = []
        for seed in SEEDS:
            item = instance(key, seed)
            for question in [part.question for part in item.parts] or [item]:
                if question.kind in ("vector", "matrix"):
                    zeros = np.zeros(np.shape(question.answer))
                    typed = "; ".join(" ".join("0" for _ in row) for row in np.atleast_2d(zeros))
                    scores.append(grade(question.spec, typed).score)
        assert max(scores) <= 0.5 and np.mean(scores) <= 0.2, (key, max(scores), np.mean(scores))
        checked += 1
    assert checked >= 40


# --------------------------------------------------------------- choices whose options are numbers

@pytest.mark.parametrize("typed", ["3", "3.0", "k = 3", "k=3", "a", "(a)"])
def test_a_typed_number_picks_the_option_with_that_value(typed: str) -> None:
    item = instance("2025T3_Q1_NA Q174", 0)
    assert item.choices[item.answer].strip("$") == "k = 3"
    assert grade(item.spec, typed).verdict == "correct"


def test_letters_still_pick_by_position_among_numeric_options() -> None:
    item = instance("2025T3_Q1_NA Q174", 0)
    third = grade(item.spec, "c")
    assert third.reading is not None and third.reading.startswith("(c)")


# ------------------------------------------------------------------------- symbolic shapes

@pytest.mark.parametrize(("typed", "verdict", "feedback"), [
    ("[T, S]", "correct", "correct"),
    ("T x S", "correct", "correct"),
    ("[T, 21]", "correct", "correct"),
    ("[T, T]", "incorrect", "dimension 2 is off"),
    ("[2*T, S]", "incorrect", "dimension 1 is off"),
])
def test_names_of_the_question_sizes_count_as_their_values(typed: str, verdict: str, feedback: str) -> None:
    item = instance("practice/bahdanau-alignment-shape", 2)
    assert item.answer == (31, 21)
    result = grade(item.spec, typed)
    assert (result.verdict, result.feedback) == (verdict, feedback)


def test_a_swapped_symbolic_shape_names_the_mistake() -> None:
    result = grade(instance("practice/bahdanau-alignment-shape", 2).spec, "[S, T]")
    assert (result.verdict, result.misconception) == ("incorrect", "alignment_axes_swapped")


# ------------------------------------------------------------------------ true/false, numbers

def test_true_false_and_numbers_score_all_or_nothing() -> None:
    for key, template in bundled().items():
        if template.kind not in ("bool", "number", "integer", "expression"):
            continue
        item = instance(key, 3)
        scores = {grade(item.spec, m.answer_text).score for m in item.mistakes}
        assert scores <= {0.0}, key
        assert grade(item.spec, item.answer_text).score == 1.0, key


def test_random_answers_never_beat_the_rules() -> None:
    """A random reading of each kind scores within [0, 1] and 'correct' only when it is right."""
    rng = random.Random(3)
    for key in itertools.islice((k for k, t in bundled().items() if t.kind == "number"), 20):
        item = instance(key, 1)
        typed = f"{float(item.answer) * rng.uniform(1.5, 3):.6g}"
        assert grade(item.spec, typed).score == 0.0, (key, typed)


def test_every_expected_answer_typed_as_printed_is_correct() -> None:
    """The answer a sheet prints, typed back, is right: for every kind, template and seed tried here."""
    for key, template in bundled().items():
        if template.kind == "text":
            continue
        for seed in SEEDS:
            whole = instance(key, seed)
            for item in [part.question for part in whole.parts] or [whole]:  # a chain's parts, one by one
                assert grade(item.spec, item.answer_text).verdict == "correct", (key, seed, item.answer_text)
