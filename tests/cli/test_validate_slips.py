"""`quizzer validate` names the engine slips that change each answer; `--all` prints the coverage table."""

from __future__ import annotations

from quizzer.templates.catalog import questions_dir
from tests.cli_runner import run


def test_validate_lists_slips_per_template_and_the_table() -> None:
    path = str(next(questions_dir().rglob("practice-w1b-sdpa-weights-matrix.yaml")))
    code, out, _ = run("validate", path, "--seeds", "3")
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("practice/w1b-sdpa-weights-matrix:"))
    listed, discovered = line.split("listed: ")[1].split("; discovered: ")
    assert "no_sqrt_dk_scaling" in listed and "scaled_by_d_k" in discovered and "scaled_by_d_k" not in listed
    code, out, _ = run("validate", path, "--seeds", "3", "--all")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("scaled_by_d_k "))
    assert row.split()[1:] == ["1", "1", "0", "1"]  # calls, alters, listed, discovered
    assert "1 templates; 1 call an engine function with a slip" in out
