"""The bundled bank as a whole: every template valid over 200 seeds, both engine backends agree,
every routed record and Week 1 topic covered, every notes misconception diagnosable."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzer.reporting.coverage import measure
from quizzer.templates.catalog import load_catalog
from quizzer.templates.validate import LoadedTemplate, validate_files
from quizzer.templates.verify import verify_templates

QUESTIONS = Path(__file__).resolve().parents[2] / "questions"


@pytest.fixture(scope="module")
def bank() -> list[LoadedTemplate]:
    """Every bundled template, test-rendered over 200 seeds (what `quizzer validate` checks)."""
    files = sorted(QUESTIONS.rglob("*.yaml"))
    loaded = validate_files(files, seeds=200)
    assert len(loaded) == len(files)
    return loaded


def test_numpy_and_pytorch_backends_agree_on_every_template(bank: list[LoadedTemplate]) -> None:
    report = verify_templates((item.template for item in bank), seeds=5)
    assert report.instances == 5 * len(bank) and report.values > report.instances


def test_every_routed_record_has_a_template(bank: list[LoadedTemplate]) -> None:
    catalog = load_catalog()
    coverage = measure((item.template for item in bank), catalog)
    assert coverage.missing_records == []
    assert all(covered == routed for covered, routed in coverage.papers.values())
    for item in bank:  # routed templates carry every topic their record is routed to
        if item.template.is_routed:
            assert set(catalog.records[item.template.key].topics) <= set(item.template.topics)


def test_every_week1_topic_has_five_practice_templates(bank: list[LoadedTemplate]) -> None:
    catalog = load_catalog()
    coverage = measure((item.template for item in bank), catalog)
    thin = {t: n for t, n in coverage.topics.items() if catalog.topics[t].week == 1 and n < 5}
    assert thin == {}


def test_every_dangerous_misconception_and_ebook_correction_is_diagnosable(bank: list[LoadedTemplate]) -> None:
    catalog = load_catalog()
    coverage = measure((item.template for item in bank), catalog)
    notes = [m.id for m in catalog.misconceptions.values() if m.kind in ("dangerous", "ebook_correction")]
    assert len(notes) == 12
    assert [m for m in notes if not coverage.misconceptions[m]] == []


def test_a_real_mix_of_kinds(bank: list[LoadedTemplate]) -> None:
    coverage = measure((item.template for item in bank), load_catalog())
    assert all(count >= 3 for count in coverage.kinds.values()), coverage.kinds
