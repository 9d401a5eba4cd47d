"""Benchmark of ``quizzer export``: a 20-question paper with its answer sheet, wall time per format.

Each figure is the whole command as a user runs it (a subprocess: interpreter start-up, bank
open, selection, rendering, writing), median of a few runs against a bank imported beforehand.
Goals from the issue: md/html/json ≤ 1 s, pdf ≤ 3 s, apkg ≤ 2 s; 20 questions × 30 versions to
PDF with the answer key ≤ 20 s.  Beside them, the same run times a bare ``python -c pass``: the
floor no command can go below on this machine at this moment (the machine is shared, so read
each figure against it).

``--baseline REV`` (a git revision, e.g. ``main``) times that revision's code side by side
with the working tree, in the same run and alternating command by command, so both see the
same machine load: the only fair before/after on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FORMATS = {"md": 1.0, "html": 1.0, "json": 1.0, "moodle": 1.0, "pdf": 3.0, "apkg": 2.0}
REPEATS = 3
# Week 2 has the figure templates (causal masks, positional encodings, warm-up): the costliest papers.
SELECTION = ["--week", "2", "-n", "20", "--seed", "11"]
# Runs quizzer from the checkout given as the first argument rather than the editable install.
LAUNCHER = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if not f.__module__.startswith('__editable__')]; "
            "sys.path.insert(0, sys.argv.pop(1)); from quizzer.cli import main; main()")


@dataclass(frozen=True)
class Tree:
    """A quizzer source tree to time, with a bank of its own."""

    name: str
    root: Path
    env: dict[str, str]

    def run(self, *args: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", LAUNCHER, str(self.root), *args], env=self.env, check=True,
                       capture_output=True)
        return time.perf_counter() - started


VERSIONS = 30
VERSIONS_GOAL = 20.0


def bare_python() -> float:
    """Wall time of a bare interpreter start: the baseline of this run."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def export_args(fmt: str, folder: Path) -> list[str]:
    return ["export", *SELECTION, "--format", fmt, "-o", str(folder / f"paper-{fmt}.{fmt}"), "--force"]


def checkout(revision: str, folder: Path) -> Path:
    """The files of ``revision`` (no worktree, no change to the repository)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], check=True, capture_output=True).stdout
    folder.mkdir()
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def tree(name: str, root: Path, folder: Path) -> Tree:
    folder.mkdir()
    env = {**os.environ, "QUIZZER_DB": str(folder / "bank.sqlite")}
    made = Tree(name, root, env)
    made.run("list")  # import the bank once: every timed run opens an existing bank
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision, side by side")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        trees = [tree("now", REPO, folder / "now")]
        if options.baseline:
            trees.insert(0, tree(options.baseline, checkout(options.baseline, folder / "baseline-src"),
                                 folder / "baseline"))
        print(f"{'format':<8} " + " ".join(f"{t.name[:10]:>10}" for t in trees)
              + f" {'goal s':>7}   (wall s, 20 questions + answer sheet, median of {REPEATS})")
        for fmt, goal in FORMATS.items():
            samples: dict[str, list[float]] = {t.name: [] for t in trees}
            for _ in range(REPEATS):
                for t in trees:  # alternate, so a burst of load on the machine hits both alike
                    samples[t.name].append(t.run(*export_args(fmt, folder)))
            medians = [statistics.median(samples[t.name]) for t in trees]
            print(f"{fmt:<8} " + " ".join(f"{m:>10.2f}" for m in medians)
                  + f" {goal:>7.1f}   {'ok' if medians[-1] <= goal else 'over'}")
        now = trees[-1]
        (folder / "versions").mkdir()
        versions = now.run("export", *SELECTION, "--versions", str(VERSIONS), "--format", "pdf",
                           "-o", str(folder / "versions" / "exam.pdf"))
        floor = statistics.median([bare_python() for _ in range(REPEATS)])
        print(f"{'pdf ×' + str(VERSIONS):<8} {versions:>10.2f} {VERSIONS_GOAL:>7.1f}   "
              f"{'ok' if versions <= VERSIONS_GOAL else 'over'}   ({VERSIONS} versions of the paper + one answer key, "
              f"{now.name} only)")
        print(f"{'python':<8} {floor:>10.2f}            (bare interpreter start, the floor on this machine now)")


if __name__ == "__main__":
    main()
