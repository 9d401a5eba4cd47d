"""Loading template files: every problem is one line naming file, template, field and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from quizzer.common.errors import TemplateError
from quizzer.templates.loader import load_path, load_text

VALID = textwrap.dedent("""\
    key: practice/minimal
    title: A minimal question
    week: 1
    topics: [softmax]
    difficulty: 1
    source: Week 1 notes §2
    kind: integer
    params:
      n: {int: [2, 9]}
    prompt: What is {{ n }} squared?
    answer: n ** 2
    solution: "{{ n }} × {{ n }} = {{ answer }}"
    """)


def load(text: str) -> object:
    return load_text(text, where="t.yaml")


def test_valid_minimal_template_loads() -> None:
    template = load_text(VALID, where="t.yaml")
    assert template.key == "practice/minimal"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "message"), [
    (VALID.replace("kind: integer", "kind: integer\nanswr: 3"),
     "t.yaml: template 'practice/minimal': field 'answr': unknown field 'answr' (did you mean 'answer'?) (line 8)"),
    (VALID.replace("n: {int: [2, 9]}", "n: {itn: [2, 9]}"),
     "field 'params.n.itn': unknown field 'itn' (did you mean 'int'?)"),
    (VALID.replace("week: 1", "week: first"), "field 'week': expected a whole number, got text (line 3)"),
    (VALID.replace("difficulty: 1", "difficulty: 7"), "field 'difficulty': must be at most 3 (line 5)"),
    (VALID.replace("kind: integer", "kind: essay"), "field 'kind': 'essay' is not allowed; one of 'number', 'integer'"),
    (VALID.replace("key: practice/minimal", "key: \"x'; DROP TABLE template; --\""),
     "neither a routed record ID like '2024T3_Q1_NA Q277' nor a practice key"),
    (VALID.replace("key: practice/minimal", "key: 2024T3_Q1_NA  Q277"), "neither a routed record ID"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [9, 2]}"), "range [9, 2] is empty"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9], choice: [1]}"), "give exactly one of"),
    (VALID.replace("params:", "params:\n  answer: {int: [1, 2]}"), "'answer' cannot be a name"),
    (VALID.replace("answer: n ** 2\n", ""), "kind 'integer' needs 'answer'"),
    (VALID.replace("title: A minimal question\n", ""), "field 'title': is required"),
    ("- just\n- a list\n", "a template file must be a YAML mapping"),
    ("", "the file is empty"),
    ("key: [unclosed\n", "t.yaml:2: invalid YAML"),
    ("key: x\n  bad: indent\n", "t.yaml:2: template 'x bad': invalid YAML"),
    ("!!python/object/apply:os.system ['touch /tmp/pwned']\n", "YAML tag"),
    ("key: !!python/name:os.system\n", "YAML tag"),
    ("a: &x [1, 2]\nb: *x\n", "t.yaml:2: field 'b': YAML aliases ('*name') are not allowed"),
    ("key: x\nanswer: !!python/object/new:os.system [ls]\n", "t.yaml:2: template 'x': field 'answer': YAML tag"),
    ("key: x\nweek: " + "9" * 5000 + "\n", "field 'week': a number with 5,000 digits is too large"),
    ("key: x\ntitle: \"\\e]52;c;aGk=\\a\"\n", "t.yaml:2: template 'x': field 'title': control character U+001B"),
    ("key: x\ntitle: 2024-13-45\n",
     "t.yaml:2: template 'x': field 'title': invalid YAML value: month must be in 1..12"),
    ("a: " + "[" * 20 + "]" * 20 + "\n", "nests deeper than 12 levels"),
])
def test_bad_template_is_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        load(text)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_billion_laughs_is_refused_without_expanding() -> None:
    bomb = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        bomb += f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} [{','.join(['*' + prev] * 9)}]\n"
    with pytest.raises(TemplateError, match="aliases"):
        load(bomb)


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text("title: '" + "x" * 300_000 + "'\n")
    with pytest.raises(TemplateError, match="a template may be at most"):
        load_path(path)


def test_unreadable_and_binary_files(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="cannot read file"):
        load_path(tmp_path / "missing.yaml")
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\xff\xfe\x00key")
    with pytest.raises(TemplateError, match="not UTF-8"):
        load_path(binary)


# --- what a reviewer reads is what runs: keys, names and numbers ---------------------------------

@pytest.mark.parametrize(("text", "message"), [
    (VALID + "answer: n ** 3\n",
     "t.yaml:13: template 'practice/minimal': field 'answer': appears twice in the same mapping (first on line 11)"),
    (VALID + '"answer": n ** 3\n', "t.yaml:13: template 'practice/minimal': field 'answer': appears twice"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9], int: [2, 99]}"), "field 'params.n.int': appears twice"),
    (VALID.replace("key: practice/minimal", 'key: "practice/minimal\\n"'),
     "'practice/minimal\\n' is neither a routed record ID"),
    (VALID.replace("key: practice/minimal", 'key: "practice/min\u0456mal"'), "is neither a routed record ID"),
    (VALID.replace("key: practice/minimal", 'key: "\u0662\u0660\u0662\u0664T3_Q1_NA Q277"'), "neither a routed"),
    (VALID + "\u0430nswer: n\n", "(it contains U+0430 CYRILLIC SMALL LETTER A)"),
    (VALID + '"tags\u200b": [x]\n', "field 'tags\\u200b': a field name must be"),
    (VALID + '"answer ": n\n', "field 'answer ': a field name must be"),
    (VALID.replace("n: {int: [2, 9]}", 'n: {int: [2, 9]}\n  "n\\n": {int: [1, 2]}'), "field 'params.n\\n'"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9]}\n  1: {int: [1, 2]}"), "(text, not a number or true/false)"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9]}\n  null: {int: [1, 2]}"), "field 'params.null'"),
    (VALID + "? [a, b]\n: 1\n", "a field name must be a plain name, not a list or a mapping"),
    (VALID + "<<: {answer: n}\n", "field '<<': a field name must be"),
    (VALID + "---\nanswer: n ** 3\n", "t.yaml:13: template 'practice/minimal': field '(top level)': a template file "
     "holds one YAML document"),
    (VALID.replace("n: {int: [2, 9]}", "n: {choice: [2, .nan]}"), "field 'params.n.choice.1': '.nan' is not allowed"),
    (VALID.replace("n: {int: [2, 9]}", "n: {choice: [2, 1.0e+999]}"), "every number in a template must be finite"),
    (VALID.replace("n: {int: [2, 9]}", 'n: {choice: [2, !!float "-inf"]}'), "must be finite"),
    (VALID.replace("n: {int: [2, 9]}", "n: {choice: [2, 0x20000000000001]}"),
     "0x20000000000001 is too large: numbers in a template are at most 9,007,199,254,740,992"),
    (VALID.replace("kind: integer", "kind: number") + "tolerance: {abs: 1.0e+999}\n", "must be finite"),
    (VALID + "derived:\n  n: '1000'\n", "field 'derived': 'n' is both a parameter and a derived value"),
    (VALID + "tags: [" + "t" * 41 + "]\n", "field 'tags.0': must have at most 40 characters"),
    (VALID.replace("What is {{ n }} squared?", '"' + "{{ n }}" * 201 + '"'),
     "more than 200 '{{ }}' placeholders in all"),
])
def test_keys_names_and_numbers_are_what_they_seem(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as caught:
        load(text)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


PARTS = VALID.replace("kind: integer", "kind: parts").replace("answer: n ** 2\n", textwrap.dedent("""\
    derived: {sq: n ** 2, cube: n ** 3}
    parts:
      - {prompt: Square it., answer: sq, kind: integer}
      - {id: 2024T3_Q1_NA Q278, prompt: Cube it., answer: cube, kind: integer}
    """))


@pytest.mark.parametrize(("text", "message"), [
    # A problem inside one entry of a mapping names the entry (the schema library says only "[...]").
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9]}\n  m: {int: [9, 2]}"),
     "field 'params.m': range [9, 2] is empty: the low end is above the high end (line 10)"),
    (VALID.replace("n: {int: [2, 9]}", "n: {int: [2, 9]}\n  m: {int: [1, 2], step: 0}"),
     "field 'params.m.step': must be at least 1 (line 10)"),
    # A check across a struct's fields names the field it refuses, in a list too.
    (PARTS.replace("id: 2024T3_Q1_NA Q278", "id: Q278"),
     "field 'parts.1.id': 'Q278' is not a routed record ID like '2024T3_Q1_NA Q278' (line 14)"),
    # Types are said in words, not as the schema library's names.
    (VALID.replace("answer: n ** 2", "answer: [1, 2]"),
     "field 'answer': expected true/false, a number, text or nothing, got a list (line 11)"),
    (VALID.replace("topics: [softmax]", "topics: softmax"), "field 'topics': expected a list, got text (line 4)"),
    (VALID.replace("prompt: What is {{ n }} squared?\n", ""), "field 'prompt': is required (line 1)"),
])
def test_a_refusal_names_the_field_and_says_the_problem_in_words(text: str, message: str) -> None:
    assert load(PARTS)
    with pytest.raises(TemplateError) as caught:
        load(text)
    assert str(caught.value) == f"t.yaml: template 'practice/minimal': {message}"


EXPRESSION = VALID.replace("kind: integer", "kind: expression\nvariables: [d, f]").replace(
    "answer: n ** 2", "answer: 2*d*f")


@pytest.mark.parametrize(("variables", "message"), [
    ("[d, __import__]", "field 'variables.1': '__import__' is not a name"),
    ("[d, os.system]", "'os.system' is not a name"),
    ('[d, "f\\n"]', "'f\\n' is not a name"),
    ("[d, lambda]", "'lambda' is reserved"),
    ("[d, match]", "'match' is reserved"),  # a soft keyword
    ("[d, sqrt]", "'sqrt' is reserved"),
    ("[d, ln]", "'ln' is reserved"),
    ("[d, softmax]", "'softmax' is reserved"),
    ("[d, inf]", "'inf' is reserved"),
    ("[d, e]", "'e' is reserved"),
    ("[d, answer]", "'answer' is reserved"),
    ("[d, d]", "field 'variables': 'd' is listed twice"),
])
def test_expression_variables_are_plain_unreserved_names(variables: str, message: str) -> None:
    assert load(EXPRESSION)  # d and f are fine
    with pytest.raises(TemplateError) as caught:
        load(EXPRESSION.replace("[d, f]", variables))
    assert message in str(caught.value)


def test_all_of_a_templates_text_is_bounded() -> None:
    """Each field within its own limit, 54,000 characters in all: refused, naming where it overflowed."""
    choices = "".join(f"  - text: {i} {'c' * 1900}\n    feedback: {'f' * 3900}\n" for i in range(6))
    text = (VALID.replace("kind: integer", "kind: choice\nconceptual: true").replace("answer: n ** 2\n", "")
            .replace("What is {{ n }} squared?", "p" * 19_000) + "choices:\n" + choices
            .replace("    feedback", "    correct: true\n    feedback", 1))
    with pytest.raises(TemplateError, match=r"field 'choices\.\d+\.\w+': the template has more than 50,000 characters"):
        load(text)
    assert load(text.replace("p" * 19_000, "p"))  # the same file with a short prompt is fine
