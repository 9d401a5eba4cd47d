"""The item analysis checked against the psychometricians' own software on real exam data: R's eRm
(conditional ML Rasch) and base R on psychotools' MathExam14W (729 students, 13 items of a NOPS exam),
imported through ``quizzer report --results`` (``quizzer.reporting.results``).

R computes its side in ``mathexam14w.R``.  CI installs R, eRm and psychotools (``.ci/run``); elsewhere
the test is skipped without them.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import run
from tests.hang import HANG_SECONDS

SCRIPT = Path(__file__).with_name("mathexam14w.R")


def _reference(folder: Path) -> dict[str, dict[str, float]]:
    if shutil.which("Rscript") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install r-base, r-cran-erm and r-cran-psychotools (.ci/run)")
        pytest.skip("needs Rscript with eRm and psychotools (apt-get install r-cran-erm r-cran-psychotools)")
    done = subprocess.run(["Rscript", str(SCRIPT), str(folder)], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert done.returncode == 0, done.stderr
    with (folder / "reference.csv").open() as handle:
        return {row["question"]: {k: float(v) for k, v in row.items() if k != "question"}
                for row in csv.DictReader(handle)}


@pytest.mark.slow
def test_item_analysis_agrees_with_erm_and_r_on_mathexam14w(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    code, out, err = run("report", "--results", str(tmp_path / "results.csv"), "--format", "json")
    assert code == 0, err
    analysis = json.loads(out)
    items = {item["key"]: item for item in analysis["items"]}
    assert sorted(items) == sorted(reference) and len(items) == 13
    assert {item["learners"] for item in items.values()} == {729}
    for question, ref in reference.items():
        item = items[question]
        # Same identification as eRm (difficulties summing to 0): within 0.01 logit is the goal; CML agrees to 1e-4.
        assert item["difficulty"]["value"] == pytest.approx(ref["difficulty"], abs=1e-3), question
        assert item["difficulty"]["se"] == pytest.approx(ref["se"], abs=1e-3), question
        assert item["facility"] == pytest.approx(ref["facility"], abs=1e-12), question
        # Every student answered every item, so the rest's mean and R's rest sum correlate identically.
        assert item["discrimination"] == pytest.approx(ref["discrimination"], abs=1e-9), question
        # The two groups sat different versions: quizzer's two-proportion z is prop.test without correction.
        variants = {v["variant"]: v for v in item["variants"]}
        assert sorted(variants) == ["1", "2"]
        assert variants["1"]["p"] == pytest.approx(ref["group_p"], rel=1e-6, abs=1e-12), question
        assert variants["1"]["flag"] == ("" if ref["group_p"] >= 0.05 else
                                         "easier" if variants["1"]["facility"] > variants["2"]["facility"]
                                         else "harder")
