"""Checks over a whole file: a misconception that gives the correct answer on every seed tried is refused
(never diagnosed), a template's week must be its first topic's, and a refusal names the field as the
file numbers it."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from quizzer.common.errors import TemplateError
from quizzer.templates.catalog import load_catalog
from quizzer.templates.checks import MIN_SEEDS_TO_JUDGE
from quizzer.templates.validate import validate_files
from tests.bundled_templates import bundled
from tests.templates.test_validate_files import GOOD

# Right on the seeds that draw B = 3 (dropped there), wrong on the others.
SOMETIMES_RIGHT = "  - id: heads_add_params\n    answer: 3 * T * T\n"
ALWAYS_RIGHT = "  - id: rounded_counts_as_exact\n    answer: B * T ** 2\n"



def listing(*more: str, good: str = GOOD) -> str:
    """GOOD with more misconceptions listed after its own."""
    return good.replace("solution:", "".join(more) + "solution:")


CHAIN = textwrap.dedent("""\
    key: practice/lint-chain
    title: Warm-up steps in two parts
    week: 2
    topics: [training_tricks]
    difficulty: 1
    source: tests
    kind: parts
    params: {n: {int: [2, 20]}}
    derived: {one: n + 1, two: one * 2}
    prompt: n is {{ n }}.
    solution: done
    parts:
      - prompt: What is n + 1?
        answer: one
        kind: integer
        misconceptions:
          - {id: rounded_counts_as_exact, answer: n}
      - prompt: And twice that?
        answer: two
        kind: integer
        misconceptions:
          - {id: rounded_counts_as_exact, answer: 2 * n}
          - {id: heads_add_params, answer: one * 3}
    """)


def refusal(tmp_path: Path, text: str, seeds: int = 40) -> str:
    path = write_to(tmp_path, text)
    with pytest.raises(TemplateError) as caught:
        validate_files([path], seeds=seeds)
    (line,) = caught.value.lines()
    return line.removeprefix(f"{path}: ")


def passes(tmp_path: Path, text: str, seeds: int = 40) -> bool:
    path = tmp_path / "ok.yaml"
    path.write_text(text, encoding="utf-8")
    return len(validate_files([path], seeds=seeds)) == 1


def test_a_misconception_right_on_every_seed_is_refused_naming_its_field(tmp_path: Path) -> None:
    line = refusal(tmp_path, listing(SOMETIMES_RIGHT, ALWAYS_RIGHT))
    assert line == ("template 'practice/lint-good': field 'misconceptions.2': 'rounded_counts_as_exact' gives the "
                    "correct answer on every one of the 40 seeds tried, so it is dropped on each and never "
                    "diagnosed: compute the answer the mistake gives, or remove it (line 18)")


def test_a_misconception_right_on_some_seeds_only_is_kept(tmp_path: Path) -> None:
    assert passes(tmp_path, listing(SOMETIMES_RIGHT))


def test_fewer_seeds_than_can_judge_every_seed_do_not_refuse_it(tmp_path: Path) -> None:
    """`quizzer verify` and the bundled import render one seed, where many a mistake happens to be right."""
    assert passes(tmp_path, listing(ALWAYS_RIGHT), seeds=MIN_SEEDS_TO_JUDGE - 1)
    assert "every one of the 20 seeds" in refusal(tmp_path, listing(ALWAYS_RIGHT), seeds=MIN_SEEDS_TO_JUDGE)


def test_a_parts_misconception_right_on_every_seed_is_refused_naming_part_and_index(tmp_path: Path) -> None:
    assert passes(tmp_path, CHAIN)
    line = refusal(tmp_path, CHAIN.replace("answer: 2 * n}", "answer: 2 * one}"))  # part (b)'s own answer
    assert line.startswith("template 'practice/lint-chain': field 'parts.1.misconceptions.0': "
                           "'rounded_counts_as_exact' gives the correct answer on every one of the 40 seeds tried")
    listed = CHAIN.splitlines().index("      - {id: rounded_counts_as_exact, answer: 2 * n}") + 1
    assert line.endswith(f"(line {listed})")


def test_two_misconceptions_giving_one_answer_are_named_by_their_index_in_the_file(tmp_path: Path) -> None:
    """The first is right on every seed and dropped: the clash is the file's 1 and 2, not 0 and 1.  (Under two
    ids the second would be graded as the first, reported first; one id may be listed twice, as the bank does
    for the two ways of counting biases that do not exist.)"""
    clash = "  - id: forgot_biases\n    answer: B * T * 3\n  - id: forgot_biases\n    answer: 3 * T * B\n"
    line = refusal(tmp_path, listing(clash, good=GOOD.replace("answer: B * T\n", "answer: B * T ** 2\n")))
    # The seed's draw is named, so the author sees for which numbers the two coincide, and the field's line.
    assert line == ("template 'practice/lint-good': seed 0 (B = 2, T = 30): field 'misconceptions.1' (forgot_biases): "
                    "gives the same answer as forgot_biases, so feedback could not tell them apart (line 16)")


def test_the_week_must_be_the_first_topics(tmp_path: Path) -> None:
    line = refusal(tmp_path, GOOD.replace("week: 1\n", "week: 2\n"))
    assert line == ("template 'practice/lint-good': field 'week': week 2 is not the week of its first topic "
                    "'scaled_dot_product_attention', which data/topics.yaml puts in week 1 (line 3)")


def test_a_secondary_topic_may_come_from_another_week(tmp_path: Path) -> None:
    assert load_catalog().topics["training_tricks"].week == 2
    assert passes(tmp_path, GOOD.replace("topics: [scaled_dot_product_attention]",
                                         "topics: [scaled_dot_product_attention, training_tricks]"))


def test_every_bundled_template_is_filed_under_its_first_topics_week() -> None:
    topics = load_catalog().topics
    assert all(t.week == topics[t.topics[0]].week for t in bundled().values())
    # and the bank does use secondary topics of another week, which the check leaves alone
    assert any(topics[topic].week != t.week for t in bundled().values() for topic in t.topics[1:])


def test_a_parts_own_field_is_named_and_found_from_the_top_of_the_file(tmp_path: Path) -> None:
    """A part's answer, misconception or prompt is reported as 'parts.1.…' with its line, not as the
    top-level field of the same name (a teacher saw 'field '(top level)' … (line 1)')."""
    lines = [line.strip() for line in CHAIN.splitlines()]
    typo = refusal(tmp_path, CHAIN.replace("answer: two", "answer: tw"))
    assert typo == ("template 'practice/lint-chain': field 'parts.1.answer': 'tw' is not a derived value (a part "
                    "names the derived value it asks for (did you mean 'two'?); derived: one, two) "
                    f"(line {lines.index('answer: two') + 1})")
    unknown = refusal(tmp_path, CHAIN.replace("answer: 2 * n}", "answer: twice(n)}"))
    assert unknown.startswith("template 'practice/lint-chain': seed 0 (n = ")
    assert unknown.endswith("field 'parts.1.misconceptions.0.answer': unknown function 'twice' "
                            f"(line {lines.index('- {id: rounded_counts_as_exact, answer: 2 * n}') + 1})")


def test_an_unsatisfiable_require_names_the_rule_that_refuses_the_draws(tmp_path: Path) -> None:
    line = refusal(tmp_path, GOOD.replace("misconceptions:", "require: [B > 1, T > 100]\nmisconceptions:", 1))
    assert line.startswith("template 'practice/lint-good': seed 0: field 'require.1': no draw out of 100 satisfies "
                           "it (seed 0); the constraint is unsatisfiable or too strict (line ")


def test_a_failing_seeds_small_arrays_are_written_out_and_large_ones_by_shape(tmp_path: Path) -> None:
    """A teacher saw 'x: 3 array' and could not recompute the failing answer: a few entries are written out."""
    small = CHAIN.replace("params: {n: {int: [2, 20]}}",
                          "params: {n: {int: [2, 20]}, x: {vector: 3, dist: integers, low: 1, high: 2}, "
                          "big: {matrix: [4, 4], dist: integers, low: 0, high: 1}}")
    unknown = refusal(tmp_path, small.replace("answer: 2 * n}", "answer: twice(n)}"))
    assert re.search(r"\(n = \d+, x = \[[12], [12], [12]\], big: 4×4 array\)", unknown), unknown


def test_a_choice_that_require_rules_out_on_every_draw_is_refused(tmp_path: Path) -> None:
    """A teacher wrote ``require: [bias]`` over ``bias: {choice: [true, false]}``: 'false' was never asked."""
    biased = GOOD.replace("  T: {int: [4, 32]}\n", "  T: {int: [4, 32]}\n  bias: {choice: [true, false]}\n")
    ruled_out = biased.replace("prompt:", "require: [bias]\nprompt:")
    lines = [line.strip() for line in ruled_out.splitlines()]
    assert refusal(tmp_path, ruled_out) == (
        "template 'practice/lint-good': field 'params.bias.choice.1': bias = false is never drawn in 40 seeds: "
        "'require' rules it out; drop it from the choices, or loosen the rule that refuses it "
        f"(line {lines.index('bias: {choice: [true, false]}') + 1})")
    # A rule that leaves each choice some draws passes; too few seeds to judge two choices, nothing is said.
    assert passes(tmp_path, biased.replace("prompt:", "require: [bias or B > 3]\nprompt:"))
    assert passes(tmp_path, ruled_out, seeds=39)


def write_to(folder: Path, text: str) -> Path:
    path = folder / "t.yaml"
    path.write_text(text, encoding="utf-8")
    return path


SOFTMAX = textwrap.dedent("""\
    key: practice/lint-softmax
    title: One softmax weight
    week: 1
    topics: [softmax]
    difficulty: 1
    source: tests
    kind: number
    params: {z: {int: [1, 12]}}
    prompt: What is the softmax weight of the first of the logits [{{ z }}, 0]? Give 4 decimals.
    answer: exp(z) / (exp(z) + 1)
    tolerance: {abs: 0.0005}
    solution: It is {{ fmt(answer, 4) }}.
    """)


def test_a_tolerance_beside_a_precision_asked_is_refused_by_its_field(tmp_path: Path) -> None:
    """A teacher's 'Give 4 decimals' with abs: 0.5 marked 0.01 right for 0.4442 and was called valid; now the
    precision the prompt asks is the tolerance, and a template states one or the other, never both."""
    assert passes(tmp_path, SOFTMAX.replace("tolerance: {abs: 0.0005}\n", ""))
    wide = SOFTMAX.replace("{abs: 0.0005}", "{abs: 0.5}")
    line = wide.splitlines().index("tolerance: {abs: 0.5}") + 1
    assert refusal(tmp_path, wide).endswith(
        "field 'tolerance': the prompt asks for 4 decimals, which sets the tolerance (within one unit in the last "
        f"place of the answer rounded to it): drop 'tolerance', or the prompt's precision (line {line})")
