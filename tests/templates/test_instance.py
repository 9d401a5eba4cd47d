"""Instances: reproducible, canonical at seed 0, independent streams, bounded resampling."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from quizzer.common.errors import TemplateError
from quizzer.grading.verdict import grade
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_path, load_text
from quizzer.templates.validate import check_references, check_renders

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "questions"


def bundled(name: str):  # noqa: ANN201 - a Template
    return load_path(next(QUESTIONS.rglob(name)))


def template(body: str):  # noqa: ANN201
    return load_text(body, where="t.yaml")


BASE = textwrap.dedent("""\
    key: practice/test-template
    title: A test template
    week: 1
    topics: [softmax]
    difficulty: 1
    source: tests
    """)


def test_same_key_and_seed_give_identical_instances() -> None:
    t = bundled("2024T1_Q1_NA_Q196.yaml")
    a, b = make_instance(t, 42), make_instance(t, 42)
    assert a.prompt == b.prompt and a.solution == b.solution
    np.testing.assert_array_equal(a.answer, b.answer)
    assert make_instance(t, 43).prompt != a.prompt


def test_instances_are_identical_across_processes() -> None:
    """Seeds never depend on Python's salted hash: another interpreter gives the same JSON."""
    code = ("import json, sys; from pathlib import Path; from quizzer.templates.loader import load_path; "
            "from quizzer.templates.instance import make_instance; "
            "t = load_path(next(Path(sys.argv[1]).rglob('practice-teacher-forcing-inputs.yaml'))); "
            "print(json.dumps(make_instance(t, 7).to_json()))")
    outputs = {subprocess.run([sys.executable, "-c", code, str(QUESTIONS)], capture_output=True, text=True,
                              check=True, env={"PYTHONHASHSEED": str(salt), "PATH": ""}).stdout
               for salt in (1, 2)}
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["seed"] == 7


def test_seed_zero_is_the_notes_worked_example() -> None:
    causal = make_instance(bundled("2024T1_Q1_NA_Q196.yaml"), 0)
    np.testing.assert_allclose(causal.answer, [np.e**2 / (np.e**2 + np.e), np.e / (np.e**2 + np.e), 0, 0])
    assert make_instance(bundled("2024T3_Q1_NA_Q277.yaml"), 0).answer == 18_944_000
    assert make_instance(bundled("practice-encoder-layer-count.yaml"), 0).answer == 3_152_384
    assert make_instance(bundled("warmup-rate.yaml"), 0).answer == pytest.approx(0.0001746928, abs=5e-11)
    np.testing.assert_allclose(make_instance(bundled("practice-layernorm-token.yaml"), 0).answer,
                               [-np.sqrt(1.5), 0, np.sqrt(1.5)], atol=1e-12)


def test_parameters_draw_from_independent_streams() -> None:
    one = template(BASE + "kind: integer\nparams:\n  a: {int: [1, 1000000]}\n"
                   "prompt: p\nanswer: a\nsolution: s\n")
    two = template(BASE + "kind: integer\nparams:\n  z: {int: [1, 5]}\n  a: {int: [1, 1000000]}\n"
                   "prompt: p\nanswer: a\nsolution: s\n")
    assert [make_instance(one, s).answer for s in range(1, 6)] == [make_instance(two, s).answer for s in range(1, 6)]


def test_unsatisfiable_require_fails_validation_instead_of_hanging() -> None:
    t = template(BASE + "kind: integer\nparams:\n  a: {int: [1, 5]}\nrequire:\n  - a > 10\n"
                 "prompt: p\nanswer: a\nsolution: s\n")
    with pytest.raises(TemplateError, match="no draw out of 100 satisfies it"):
        check_renders(t, range(3))


def test_a_rule_on_parameters_is_checked_before_the_derived_values_it_guards() -> None:
    """A draw with h = 0 is refused by its rule before d_k = d // h is computed (which would fail): the values
    after a refusing rule are never computed, and the draws that are kept are the same as ever."""
    t = template(BASE + "kind: integer\nparams:\n  d: {choice: [8, 16]}\n  h: {choice: [0, 2, 4]}\n"
                 "derived:\n  d_k: d // h\nrequire:\n  - h != 0\nprompt: p\nanswer: d_k\nsolution: s\n")
    answers = [make_instance(t, seed).answer for seed in range(40)]
    assert set(answers) == {2, 4, 8}  # every kept draw: 8 // 4, 8 // 2 or 16 // 4, 16 // 2
    unguarded = template(BASE + "kind: integer\nparams:\n  d: {choice: [8, 16]}\n  h: {choice: [0, 2, 4]}\n"
                         "derived:\n  d_k: d // h\nrequire:\n  - d_k > 0 and h != 0\nprompt: p\nanswer: d_k\n"
                         "solution: s\n")
    with pytest.raises(TemplateError, match="division by zero"):  # a rule naming d_k waits for it
        for seed in range(40):
            make_instance(unguarded, seed)


def test_misconception_equal_to_answer_is_dropped_for_that_seed() -> None:
    t = template(BASE + "kind: integer\nparams:\n  a: {int: [1, 12]}\nprompt: p\nanswer: a * 2\n"
                 "misconceptions:\n  - id: forgot_biases\n    answer: 'a + a if a < 3 else a + 1'\nsolution: s\n")
    instances = [make_instance(t, seed) for seed in range(40)]
    for instance in instances:
        kept = [wrong.value for wrong in instance.spec.wrong_answers]
        assert kept == ([] if instance.answer < 6 else [instance.answer // 2 + 1])
        assert grade(instance.spec, str(instance.answer)).verdict == "correct"
    assert {len(i.spec.wrong_answers) for i in instances} == {0, 1}  # both cases were drawn
    assert check_renders(t, range(40)) == 40


def test_unknown_topic_and_misconception_are_named() -> None:
    t = template(BASE.replace("[softmax]", "[sofmax]") + "kind: integer\nprompt: p\nanswer: 1\nsolution: s\n")
    with pytest.raises(TemplateError, match=r"field 'topics.0': unknown topic 'sofmax' \(did you mean 'softmax'\?\)"):
        check_references(t, load_catalog())
    t = template(BASE + "kind: integer\nprompt: p\nanswer: 1\nmisconceptions:\n  - id: forgot_bias\n"
                 "    answer: 2\nsolution: s\n")
    with pytest.raises(TemplateError, match="did you mean 'forgot_biases'"):
        check_references(t, load_catalog())


def test_unknown_routed_record_is_refused() -> None:
    t = template(BASE.replace("practice/test-template", "2024T3_Q1_NA Q9999") + "kind: integer\n"
                 "prompt: p\nanswer: 1\nsolution: s\n")
    with pytest.raises(TemplateError, match="is not a routed record in data/routing.yaml"):
        check_references(t, load_catalog())


@pytest.mark.parametrize(("fragment", "message"), [
    ("prompt: '{{ __import__(\"os\") }}'", "names may not start with '_'"),
    ("prompt: '{{ answer.__class__ }}'", "attribute access"),
    ("prompt: '{{ open(\"/etc/passwd\") }}'", "unknown function 'open'"),
    ("prompt: '{{ 9**9**9 }}'", "too large"),
    ("prompt: '{{ zeros(100000, 100000) }}'", "too large"),
    ("prompt: '{{ sinusoidal_encoding(10**9, 512) }}'", "too large"),
    ("prompt: 'unclosed {{ answer'", "without a closing"),
])
def test_prompt_interpolation_is_restricted(fragment: str, message: str) -> None:
    t = template(BASE + f"kind: integer\n{fragment}\nanswer: 1\nsolution: s\n")
    with pytest.raises(TemplateError, match=message):
        make_instance(t, 1)
