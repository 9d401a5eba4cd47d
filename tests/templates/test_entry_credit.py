"""The two fields that shape a vector's or matrix's partial credit, refused where they cannot mean
anything: ``given_entries`` (entries the prompt gives away) and ``partial_credit: false`` (all or nothing)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.templates.test_validate_checks import GOOD, passes, refusal

MASKED = textwrap.dedent("""\
    key: practice/lint-masked
    title: Softmax with one key blocked
    week: 1
    topics: [softmax]
    difficulty: 1
    source: tests
    kind: vector
    params:
      z: {vector: 3, dist: integers, low: -2, high: 5, decimals: 0}
    derived:
      blocked: arange(3) == 2
    require:
      - z[0] != z[1]
    prompt: Logits {{ show(z) }}, key 3 blocked. Give the three weights to 4 decimal places.
    answer: softmax(z, mask=blocked)
    given_entries: blocked
    solution: "{{ show(answer) }}"
    """)


def test_entries_given_away_pass_and_are_graded_without_them(tmp_path: Path) -> None:
    assert passes(tmp_path, MASKED)


@pytest.mark.parametrize(("change", "message"), [
    (("given_entries: blocked", "given_entries: arange(2) == 1"),
     "field 'given_entries': must be true or false for each entry of the answer (shape [3]), got [false, true]"),
    (("given_entries: blocked", "given_entries: arange(3) < 5"),
     "field 'given_entries': gives away every entry, leaving nothing to work out"),
    (("given_entries: blocked", "given_entries: where(blocked, 1, 0)"),
     "field 'given_entries': must be true or false for each entry of the answer (shape [3]), got [0, 0, 1]"),
    (("given_entries: blocked", "partial_credit: false"),
     "field 'partial_credit': 'false' is for answers whose entries are all whole numbers"),
    (("given_entries: blocked", "given_entries: blocked\npartial_credit: false"),
     "'given_entries' says which entries earn no partial credit, and 'partial_credit: false' gives none: keep one"),
])
def test_a_field_that_cannot_shape_the_credit_is_refused(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    line = refusal(tmp_path, MASKED.replace(*change))
    assert message in line, line


@pytest.mark.parametrize("given", ["arange(3) == 0", "blocked == False"])
def test_an_entry_that_changes_with_the_numbers_drawn_is_not_given(tmp_path: Path, given: str) -> None:
    """Key 1's weight is worked out: listing it would take its credit away."""
    line = refusal(tmp_path, MASKED.replace("given_entries: blocked", f"given_entries: {given}"))
    assert "field 'given_entries': entry 1 is " in line, line
    assert "an entry given away is the same whatever the numbers drawn" in line, line


@pytest.mark.parametrize("field", ["given_entries: B > 2", "partial_credit: false"])
def test_only_vectors_and_matrices_take_them(tmp_path: Path, field: str) -> None:
    line = refusal(tmp_path, GOOD.replace("solution:", f"{field}\nsolution:"))
    name = field.split(":")[0]
    assert f"'{name}' is only for kinds 'vector' and 'matrix', not 'integer'" in line, line
