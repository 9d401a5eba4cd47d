"""The checks of fair draws (quizzer.templates.fair_draws) in `quizzer validate`: each refuses a template that
breaks it, naming the field, the seed and what the answer earns, and a stated exemption lets it pass.  The
issue's own examples are graded as the checks now hold the bank to."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from quizzer.common.errors import TemplateError
from quizzer.grading.verdict import grade
from quizzer.templates.instance import make_instance
from quizzer.templates.validate import validate_files
from tests.bundled_templates import bundled

# Two entries [x, 2x + b]: the mistake forgets b, so it keeps the first entry (half the marks) whatever is drawn.
HALF_RIGHT = textwrap.dedent("""\
    key: practice/fair-half
    title: Two outputs of one unit
    week: 1
    topics: [ffn_post_norm]
    difficulty: 1
    source: tests
    kind: vector
    params:
      x: {int: [1, 40]}
      b: {int: [1, 5]}
    prompt: For x = {{ x }} and b = {{ b }}, give [x, 2x + b].
    answer: "[x, 2 * x + b]"
    misconceptions:
      - id: forgot_biases
        answer: "[x, 2 * x]"
    solution: done
    """)


def refusal(tmp_path: Path, text: str, seeds: int = 40) -> str:
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TemplateError) as caught:
        validate_files([path], seeds=seeds)
    (line,) = caught.value.lines()
    return line.removeprefix(f"{path}: ")


def passes(tmp_path: Path, text: str, seeds: int = 40) -> bool:
    path = tmp_path / "ok.yaml"
    path.write_text(text, encoding="utf-8")
    return len(validate_files([path], seeds=seeds)) == 1


def test_a_mistake_earning_more_than_a_third_is_refused_unless_it_says_why(tmp_path: Path) -> None:
    line = refusal(tmp_path, HALF_RIGHT)
    assert line.startswith("template 'practice/fair-half': seed 0 (x = ")
    assert "field 'misconceptions.0': (forgot_biases) its answer ([" in line
    assert "earns 0.50 of the marks: the mistake a question examines earns at most a third" in line
    assert line.endswith("(line 14)")  # the misconception, as the file numbers it
    declared = HALF_RIGHT.replace('    answer: "[x, 2 * x]"\n', '    answer: "[x, 2 * x]"\n'
                                  "    keeps_credit: the first output has no bias; only the second is examined\n")
    assert passes(tmp_path, declared)
    # A reason is a sentence, not a word.
    assert "keeps_credit" in refusal(tmp_path, declared.replace(
        "the first output has no bias; only the second is examined", "ok"))


def test_an_answer_of_one_number_repeated_earns_at_most_a_half(tmp_path: Path) -> None:
    three = HALF_RIGHT.replace('"[x, 2 * x + b]"', '"[x, x, 2 * x + b]"').replace(
        '"[x, 2 * x]"', '"[0, 0, 2 * x]"').replace("give [x, 2x + b]", "give [x, x, 2x + b]")
    line = refusal(tmp_path, three)
    assert "field 'answer': an answer of " in line
    assert " in every entry earns 0.67 of the marks (at most a half)" in line
    exempt = three.replace("misconceptions:", "exempt:\n  constant_answer: the first two outputs are one unit's, "
                                              "read twice on purpose\nmisconceptions:")
    assert passes(tmp_path, exempt)


def test_zeros_earn_at_most_a_half(tmp_path: Path) -> None:
    zeros = HALF_RIGHT.replace('"[x, 2 * x + b]"', '"[0, 0, x]"').replace('"[x, 2 * x]"', '"[1, 1, x + 1]"')
    assert "field 'answer': an answer of zeros earns 0.67 of the marks (at most a half)" in refusal(tmp_path, zeros)


MATRIX = HALF_RIGHT.replace("kind: vector", "kind: matrix").replace(
    '"[x, 2 * x + b]"', '"[[x, 2 * x], [x + b, 3 * x]]"').replace(
    '"[x, 2 * x]"', '"[[x + 50, x + 50], [x + 50, x + 50]]"')


def test_equal_rows_and_constant_columns_are_refused_unless_declared(tmp_path: Path) -> None:
    assert passes(tmp_path, MATRIX)
    same_rows = MATRIX.replace('"[[x, 2 * x], [x + b, 3 * x]]"', '"[[x, 2 * x], [x, 2 * x], [b, x + 100]]"').replace(
        '"[[x + 50, x + 50], [x + 50, x + 50]]"', '"[[x + 50, x + 50], [x + 50, x + 50], [x + 50, x + 50]]"')
    assert "field 'answer': rows 1 and 2 of the answer are the same" in refusal(tmp_path, same_rows)
    assert passes(tmp_path, same_rows.replace("misconceptions:", "exempt:\n  equal_rows: the first two tokens are "
                                                                  "the same word, as the prompt says\nmisconceptions:"))
    column = MATRIX.replace('"[[x, 2 * x], [x + b, 3 * x]]"', '"[[x, 5], [x + b, 5], [b, 5]]"').replace(
        '"[[x + 50, x + 50], [x + 50, x + 50]]"', '"[[x + 50, x + 50], [x + 50, x + 50], [x + 50, x + 50]]"')
    assert "field 'answer': column 2 of the answer is 5 in every row worked out" in refusal(tmp_path, column)


def test_too_few_different_instances_are_refused(tmp_path: Path) -> None:
    few = HALF_RIGHT.replace("x: {int: [1, 40]}", "x: {int: [1, 2]}").replace("b: {int: [1, 5]}", "b: {int: [1, 2]}")
    few = few.replace('"[x, 2 * x]"', '"[x + 9, 2 * x]"')
    assert refusal(tmp_path, few).startswith(
        "template 'practice/fair-half': field 'params': the 40 seeds give only 4 different instances (at least 10)")
    assert passes(tmp_path, few.replace("misconceptions:", "exempt:\n  few_instances: the four cases are the whole "
                                                            "table the notes ask to learn\nmisconceptions:"))
    assert passes(tmp_path, few, seeds=19)  # too few seeds to judge


def test_an_entry_the_same_on_every_seed_must_be_listed_as_given(tmp_path: Path) -> None:
    fixed = HALF_RIGHT.replace("x: {int: [1, 40]}", "x: {int: [2, 40]}")
    fixed = fixed.replace('"[x, 2 * x + b]"', '"[1, x, 2 * x + b]"').replace(
        '"[x, 2 * x]"', '"[1, x + 9, 2 * x]"').replace("give [x, 2x + b]", "give [1, x, 2x + b]")
    assert "field 'given_entries': entry (1) of the answer is the same on every one of the 40 seeds" in refusal(
        tmp_path, fixed)
    assert passes(tmp_path, fixed.replace("misconceptions:", "given_entries: arange(3) == 0\nmisconceptions:"))


# The issue's examples, as validation now holds the bank: the mistake the question examines never earns more
# than a third, an answer of zeros or of one number never more than a half, on any of these seeds.
@pytest.mark.parametrize(("key", "seeds"), [
    ("practice/qkv-permutation-equivariance", range(200)), ("practice/bn-eval-running-stats", range(200)),
    ("practice/w1b-mha-wo-right-multiply", [124, 134, *range(40)]),
    ("practice/w1b-sdpa-weights-matrix", [8, 135, 198]),
])
def test_the_issues_examples_keep_no_credit_for_the_examined_mistake(key: str, seeds: range) -> None:
    template = bundled()[key]
    for seed in seeds:
        instance = make_instance(template, seed)
        for mistake in instance.mistakes:
            assert grade(instance.spec, mistake.answer_text).score <= 1 / 3, (seed, mistake.id)
        shape = np.shape(instance.answer)
        zeros = "; ".join(" ".join("0" for _ in range(shape[-1])) for _ in range(shape[0] if len(shape) == 2 else 1))
        assert grade(instance.spec, zeros).score <= 0.5, seed


def test_a_transposed_rotation_earns_nothing() -> None:
    """R(k)ᵀ for R(k): the cosine diagonal it shares kept half the marks on every seed."""
    instance = make_instance(bundled()["2025T1_Q1_NA Q111"], 0)
    transposed = "; ".join(" ".join(f"{v:.4f}" for v in row) for row in np.asarray(instance.answer).T)
    verdict = grade(instance.spec, transposed)
    assert (verdict.verdict, verdict.score, verdict.misconception) == (
        "incorrect", 0.0, "offset_rotation_transposed")
