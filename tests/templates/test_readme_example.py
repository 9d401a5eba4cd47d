"""The worked example in questions/README.md is a template that validates as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quizzer.templates.instance import make_instance
from quizzer.templates.validate import validate_files

README = Path(__file__).resolve().parents[2] / "questions" / "README.md"


def test_readme_worked_example_validates_and_gives_the_notes_number(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The example is the bundled question for its record, which any other file may not redefine:
    # validate it as the author of that question would, before it was bundled.
    monkeypatch.setenv("QUIZZER_QUESTIONS_DIR", str(tmp_path / "no-bundled-questions"))
    example = re.search(r"## A complete example\n\n```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert example, "questions/README.md lost its complete example"
    path = tmp_path / "example.yaml"
    path.write_text(example.group(1), encoding="utf-8")
    (loaded,) = validate_files([path], seeds=50)
    assert make_instance(loaded.template, 0).answer == 18_944_000
