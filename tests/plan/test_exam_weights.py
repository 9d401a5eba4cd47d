"""A teacher's exam weights (``QUIZZER_EXAM_WEIGHTS``): a good file changes the plan's weights; a bad
one is one line saying what and where, exit status 2, and the default weights are left as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import run

NOW = "2026-06-01T18:00:00Z"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    return bundled_bank


def weights(monkeypatch: pytest.MonkeyPatch, path: Path | None) -> dict[str, tuple[float, str]]:
    if path is None:
        monkeypatch.delenv("QUIZZER_EXAM_WEIGHTS", raising=False)
    else:
        monkeypatch.setenv("QUIZZER_EXAM_WEIGHTS", str(path))
    code, out, err = run("plan", "--json", "--now", NOW)
    assert (code, err) == (0, ""), err
    return {t["id"]: (t["weight"], t["weight_source"]) for t in json.loads(out)["predicted"]["topics"]}


def test_a_listed_topic_takes_the_files_weight_and_the_others_keep_theirs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    default = weights(monkeypatch, None)
    file = tmp_path / "weights.yaml"
    file.write_text("softmax: 0\nresidual_normalization: 40.5\n")
    chosen = weights(monkeypatch, file)
    assert chosen["softmax"] == (0.0, str(file)) and chosen["residual_normalization"] == (40.5, str(file))
    assert {t: w for t, w in chosen.items() if t not in ("softmax", "residual_normalization")} == \
        {t: w for t, w in default.items() if t not in ("softmax", "residual_normalization")}
    assert default["residual_normalization"] == (21.0, "routed")


BAD = {
    "nested-bomb": ("softmax: " + "[" * 30_000 + "]" * 30_000 + "\n",
                    ":1: not a flat YAML mapping of topic: weight (a weight is one number, not a list or mapping)"),
    "alias": ("softmax: &w 3\nresidual_normalization: *w\n",
              ":2: not a flat YAML mapping of topic: weight (no aliases or tags here)"),
    "python-tag": ("softmax: !!python/name:os.system\n",
                   ":1: not a flat YAML mapping of topic: weight (no aliases or tags here)"),
    "two-documents": ("softmax: 2\n---\nsoftmax: 3\n", ":2: not a YAML mapping of topic: weight"),
    "broken-syntax": ("softmax: 1\n  residual_normalization: 2\n", ":2: not a YAML mapping of topic: weight"),
    "a-list": ("- softmax\n- 3\n", ": expected a YAML mapping of topic: weight, e.g. 'softmax: 4'"),
    "empty": ("", ": expected a YAML mapping of topic: weight, e.g. 'softmax: 4'"),
    "unknown-topic": ("sofmax: 3\n", ": unknown topic 'sofmax' (did you mean 'softmax'?)"),
    "negative": ("softmax: -1\n", ": the weight of softmax must be a number ≥ 0, got -1"),
    "not-a-number": ("softmax: .nan\n", ": the weight of softmax must be a number ≥ 0, got nan"),
    "too-large": ("# " + "x" * 70_000 + "\nsoftmax: 3\n",
                  ": the exam weights file may be at most 65,536 bytes; this one is larger"),
    "not-utf8": (b"softmax: 3 \xff\n", ": cannot read the file: not UTF-8 text (line 1, byte 11)"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_weights_file_is_one_line_and_exit_2(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    bundled_bank: Path) -> None:
    content, message = BAD[name]
    file = tmp_path / "weights.yaml"
    file.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = bundled_bank.read_bytes()
    monkeypatch.setenv("QUIZZER_EXAM_WEIGHTS", str(file))
    code, out, err = run("plan", "--json", "--now", NOW)
    assert (code, out) == (2, "")
    assert err == f"quizzer: {file}{message}\n"
    assert bundled_bank.read_bytes() == before
