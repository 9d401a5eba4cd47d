"""Benchmark of ``quizzer export``: a 20-question paper with its answer sheet, wall time per format.

Each figure is the whole command as a user runs it (a subprocess: interpreter start-up, bank
open, selection, rendering, writing), median of a few runs against a bank imported beforehand.
Goals from the issue: md/html/json ≤ 1 s, pdf ≤ 3 s, apkg ≤ 2 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FORMATS = {"md": 1.0, "html": 1.0, "json": 1.0, "moodle": 1.0, "pdf": 3.0, "apkg": 2.0}
REPEATS = 3
# Week 2 has the figure templates (causal masks, positional encodings, warm-up): the costliest papers.
SELECTION = ["--week", "2", "-n", "20", "--seed", "11"]


def export_seconds(exe: Path, env: dict[str, str], fmt: str, folder: Path) -> float:
    target = folder / f"paper-{fmt}.{fmt}"
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        subprocess.run([str(exe), "export", *SELECTION, "--format", fmt, "-o", str(target), "--force"],
                       env=env, check=True, capture_output=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    exe = Path(sys.executable).with_name("quizzer")
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "QUIZZER_DB": str(Path(folder) / "bank.sqlite")}
        subprocess.run([str(exe), "list"], env=env, check=True, capture_output=True)  # import the bank once
        print(f"{'format':<8} {'wall s':>7} {'goal s':>7}   (20 questions + answer sheet, median of {REPEATS})")
        for fmt, goal in FORMATS.items():
            seconds = export_seconds(exe, env, fmt, Path(folder))
            print(f"{fmt:<8} {seconds:>7.2f} {goal:>7.1f}   {'ok' if seconds <= goal else 'over'}")


if __name__ == "__main__":
    main()
