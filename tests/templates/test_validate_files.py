"""``validate_files`` checks a set of files as a linter does: every broken file is reported, by its
first problem, in the order of the files, and nothing is returned unless every file passes; the
files refused in one run together stay within one template's processor-time allowance."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from quizzer.common.errors import TemplateError, TemplateErrors
from quizzer.templates import validate
from quizzer.templates.validate import validate_files

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"

GOOD = textwrap.dedent("""\
    key: practice/lint-good
    title: Score entries for a dense attention layer
    week: 1
    topics: [scaled_dot_product_attention]
    difficulty: 1
    source: tests
    kind: integer
    params:
      B: {int: [2, 8]}
      T: {int: [4, 32]}
    prompt: How many entries has the score tensor for B={{ B }}, one head, T={{ T }}?
    answer: score_entries(B, 1, T, T)
    misconceptions:
      - id: score_entries_linear_in_T
        answer: B * T
    solution: "$B \\\\cdot T^2 = {{ num(answer) }}$"
    """)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def broken_files(folder: Path) -> list[Path]:
    """Three files broken in three different ways: a catalogue reference, YAML syntax, rendering."""
    return [
        write(folder, "b1.yaml", GOOD.replace("lint-good", "lint-b1").replace(
            "id: score_entries_linear_in_T", "id: no_such_mistake")),
        write(folder, "b2.yaml", "key: [practice/lint-b2\n"),
        write(folder, "b3.yaml", GOOD.replace("lint-good", "lint-b3").replace(
            "answer: score_entries(B, 1, T, T)", "answer: no_such_function(B)")),
    ]


def alone(path: Path) -> str:
    """The line validating ``path`` on its own gives."""
    with pytest.raises(TemplateError) as caught:
        validate_files([path], seeds=3)
    assert not isinstance(caught.value, TemplateErrors)
    (line,) = caught.value.lines()
    return line


def test_every_broken_file_is_reported_in_order_with_its_own_line(tmp_path: Path) -> None:
    good = write(tmp_path, "a-good.yaml", GOOD)
    b1, b2, b3 = broken_files(tmp_path)
    with pytest.raises(TemplateErrors) as caught:
        validate_files([good, b1, b2, b3], seeds=3)
    lines = caught.value.lines()
    assert lines == [alone(b1), alone(b2), alone(b3)]
    assert lines[0].startswith(f"{b1}: template 'practice/lint-b1': field 'misconceptions.0.id': unknown misconception")
    assert lines[1].startswith(f"{b2}:2: invalid YAML")
    assert lines[2].startswith(f"{b3}: template 'practice/lint-b3': seed 0 (B = 3, T = 25): "
                               "field 'answer': unknown function")
    assert [str(problem) for problem in caught.value.problems] == lines
    assert len(validate_files([good], seeds=3)) == 1  # the good file is fine on its own


def test_one_broken_file_is_raised_as_itself_in_one_line(tmp_path: Path) -> None:
    good = write(tmp_path, "a-good.yaml", GOOD)
    b1 = broken_files(tmp_path)[0]
    with pytest.raises(TemplateError) as caught:
        validate_files([good, b1], seeds=3)
    assert type(caught.value) is TemplateError and caught.value.lines() == [alone(b1)]


def test_a_duplicate_key_is_the_later_files_problem_even_when_the_first_file_is_broken(tmp_path: Path) -> None:
    first = write(tmp_path, "a.yaml", GOOD.replace("answer: score_entries(B, 1, T, T)", "answer: no_such_function(B)"))
    second = write(tmp_path, "b.yaml", GOOD)
    with pytest.raises(TemplateErrors) as caught:
        validate_files([first, second], seeds=3)
    refused_first, refused_second = caught.value.lines()
    assert refused_first.startswith(f"{first}: template 'practice/lint-good': seed 0 (B = 2, T = 30): "
                                    "field 'answer': unknown function")
    assert refused_second == f"{second}: template 'practice/lint-good': duplicate key: also defined in {first}"


def test_each_file_is_bounded_on_its_own_and_a_costly_refusal_does_not_spill_onto_the_next(tmp_path: Path) -> None:
    costly = HOSTILE / "cost-steps-over-all-seeds.yaml"
    first, second = tmp_path / "a-costly.yaml", tmp_path / "c-costly.yaml"
    shutil.copyfile(costly, first)
    second.write_text(costly.read_text(encoding="utf-8").replace("practice/hostile", "practice/hostile-2"))
    good = write(tmp_path, "b-good.yaml", GOOD)
    with pytest.raises(TemplateErrors) as caught:
        validate_files([first, good, second], seeds=200)
    lines = caught.value.lines()
    assert len(lines) == 2 and all("too costly to validate: 200 seeds would cost about" in line for line in lines)
    assert lines[0].startswith(f"{first}: ") and lines[1].startswith(f"{second}: ")


def test_once_the_refused_files_took_the_allowance_the_rest_are_not_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b1, b2, b3 = broken_files(tmp_path)
    good = write(tmp_path, "good.yaml", GOOD)
    loaded: list[str] = []
    real_load = validate.load_text
    monkeypatch.setattr(validate, "load_text",
                        lambda text, where: (loaded.append(where), real_load(text, where=where))[1])
    monkeypatch.setattr(validate, "MAX_REFUSED_CPU_SECONDS", 0.0)  # the first refusal spends it all
    with pytest.raises(TemplateErrors) as caught:
        validate_files([good, b1, b2, b3], seeds=3)
    assert loaded == [str(good), str(b1)]  # b2 and b3 were not even read
    first, rest = caught.value.lines()
    assert first == alone(b1)
    assert rest.startswith(f"{b2}: not checked (nor 1 more file(s) after it): the 1 file(s) refused so far took ")
    assert rest.endswith("(limit 0 s); fix them and validate again")
