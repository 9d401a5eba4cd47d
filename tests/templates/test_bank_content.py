"""The bundled bank as a whole: every template valid over 200 seeds, both engine backends agree,
every routed record and Week 1 topic covered, every notes misconception diagnosable, every
displayed formula as wide as a terminal."""

from __future__ import annotations

import re

import pytest

from quizzer.reporting.coverage import measure
from quizzer.templates.catalog import load_catalog
from quizzer.templates.schema import Template
from quizzer.templates.validate import validate_files
from quizzer.templates.verify import verify_templates
from quizzer.text.mathtext import render_math
from tests.bundled_templates import QUESTIONS, SEEDS, bundled, instance

FILES = sorted(QUESTIONS.rglob("*.yaml"))
# The bank-wide checks below are split into interleaved shares of the files, so that pytest-xdist's
# workers take them in parallel (together they took half a minute on one worker).  Twelve shares of
# validation: with six, the two holding the costliest templates took twice as long as the others
# (~8 s), long enough to keep one worker busy after the other had finished.  Three of the backend
# check, whose first share in each worker also pays for importing PyTorch.
VALIDATION_SHARES = 12
BACKEND_SHARES = 3


@pytest.fixture(scope="module")
def bank() -> list[Template]:
    """Every bundled template, loaded (each share's test renders them)."""
    return list(bundled().values())


def test_every_bundled_file_has_a_key_of_its_own() -> None:
    """What ``validate_files`` checks across files, which the shares below cannot see."""
    assert len(bundled()) == len(FILES)


@pytest.mark.parametrize("share", range(VALIDATION_SHARES))
def test_every_template_is_valid_over_200_seeds(share: int) -> None:
    """What ``quizzer validate`` checks (200 seeds), a share of the bank at a time."""
    files = FILES[share::VALIDATION_SHARES]
    assert len(validate_files(files, seeds=200)) == len(files)


@pytest.mark.parametrize("share", range(BACKEND_SHARES))
def test_numpy_and_pytorch_backends_agree_on_every_template(bank: list[Template], share: int) -> None:
    templates = bank[share::BACKEND_SHARES]
    report = verify_templates(templates, seeds=5)
    assert report.instances == 5 * len(templates) and report.values > report.instances


def test_every_routed_record_has_a_template(bank: list[Template]) -> None:
    catalog = load_catalog()
    coverage = measure(bank, catalog)
    assert coverage.missing_records == []
    assert all(covered == routed for covered, routed in coverage.papers.values())
    for template in bank:  # routed templates carry every topic their record is routed to
        if template.is_routed:
            assert set(catalog.records[template.key].topics) <= set(template.topics)


def test_every_week1_topic_has_five_practice_templates(bank: list[Template]) -> None:
    catalog = load_catalog()
    coverage = measure(bank, catalog)
    thin = {t: n for t, n in coverage.topics.items() if catalog.topics[t].week == 1 and n < 5}
    assert thin == {}


def test_every_dangerous_misconception_and_ebook_correction_is_diagnosable(bank: list[Template]) -> None:
    catalog = load_catalog()
    coverage = measure(bank, catalog)
    notes = [m.id for m in catalog.misconceptions.values() if m.kind in ("dangerous", "ebook_correction")]
    assert len(notes) == 12
    assert [m for m in notes if not coverage.misconceptions[m]] == []


def test_a_real_mix_of_kinds(bank: list[Template]) -> None:
    coverage = measure(bank, load_catalog())
    assert all(count >= 3 for count in coverage.kinds.values()), coverage.kinds


# A displayed formula is a block of its own lines, which a terminal cannot re-wrap: one too wide breaks
# its matrices apart in `quizzer show` and is cut off in the app.  In an 80-column terminal the app's
# question pane indents a display's rows five columns more and has room for 70 (seen in tmux).
DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
DISPLAY_COLUMNS = 70


def test_every_displayed_formula_fits_the_app_in_an_80_column_terminal(bank: list[Template]) -> None:
    wide = set()
    for template in bank:
        for seed in SEEDS:
            question = instance(template.key, seed)
            texts = [question.prompt, question.solution, *(part.question.prompt for part in question.parts)]
            for formula in (m[0] for text in texts for m in DISPLAY.finditer(text)):
                if max(len(line) for line in render_math(formula).splitlines()) > DISPLAY_COLUMNS:
                    wide.add((template.key, seed, formula[:60]))
    assert sorted(wide) == []


# What a learner must never see in the app or `quizzer show`: maths the renderer did not read (a `$`
# left over, a TeX command), or a negative value put after a minus without brackets ("z - -1").
LEAKED = re.compile(r"\$|\\[a-zA-Z]+|(?<![-─])[-−]{2}\d|[-−] [-−]\d|\+ ?[-−]\d")


def test_no_rendered_text_leaks_tex_or_a_double_sign(bank: list[Template]) -> None:
    """Over twelve consecutive seeds: a negative value is drawn on some seeds only (one in four, say)."""
    leaks = set()
    for template in bank:
        for seed in range(12):
            question = instance(template.key, seed)
            texts = [question.prompt, question.solution, *question.choices,
                     *(wrong.feedback for wrong in question.spec.wrong_answers),
                     *(part.question.prompt for part in question.parts)]
            for text in texts:
                # Code is shown as written: blocks (fenced or indented) and `spans`.
                prose = re.sub(r"```.*?```", "", render_math(text), flags=re.DOTALL)
                for line in prose.splitlines():
                    if not line.startswith("    ") and LEAKED.search(re.sub(r"`[^`]*`", "", line)):
                        leaks.add((template.key, seed, line.strip()[:80]))
    assert sorted(leaks) == []
