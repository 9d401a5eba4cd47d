"""`make bench`: every benchmark of the project, printed as tables (figures, never assertions)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_engine  # noqa: E402
import bench_export  # noqa: E402
import bench_quizzer  # noqa: E402
import bench_ratios  # noqa: E402
import bench_scan  # noqa: E402
import bench_tui  # noqa: E402
import calibration  # noqa: E402
import exam_cohort  # noqa: E402


def main() -> None:
    print("== start-up and latency goals (issue 17): each figure beside its baseline, same run ==")
    bench_ratios.main()
    print()
    print("== engine: NumPy vs PyTorch backends ==")
    bench_engine.main()
    print()
    print("== quizzer: instances, grading, import, start-up ==")
    bench_quizzer.main()
    print()
    print("== practice app (Pilot) ==")
    bench_tui.main()
    print()
    print("== exports (quizzer export, from the command line) ==")
    bench_export.main()
    print()
    print("== paper exams: the synthetic-scan suite in full (quizzer scan) ==")
    bench_scan.main()
    print()
    print("== mastery against simulated learners of known skill ==")
    calibration.main()
    print()
    print("== the plan: a simulated cohort's exam scores under five policies (issue 38; minutes, 2 processes) ==")
    exam_cohort.main([])


if __name__ == "__main__":
    main()
