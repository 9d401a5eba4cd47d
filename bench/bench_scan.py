"""The synthetic-scan suite in full: 30 versions × 40 students of one exam, filled in, photographed badly
and read back (``tests/scan/synthetic.py`` makes the pages; ``tests/scan`` runs a subset in ``make test``).

Prints the figures the issue set as goals — boxes read right (≥ 99.9 %), sheets given to a wrong student
or version (0), sheets sent to the teacher's queue (≤ 2 %) — and the scanner's processor time per page,
beside the time to fill and photograph it (a baseline of the same run).

    .venv/bin/python bench/bench_scan.py [--versions 30] [--students 40] [--seed 1] [--jobs 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from quizzer.scan.manifest import Manifest, load_manifest  # noqa: E402
from quizzer.scan.page import PageImage, Unreadable, read_page  # noqa: E402
from quizzer.scan.readings import read_field, read_student_id, state  # noqa: E402
from tests.scan.synthetic import fill, photograph, render  # noqa: E402

DPIS = (150, 200, 300)


@dataclass
class Tally:
    boxes: int = 0
    wrong: int = 0
    uncertain: int = 0
    sheets: int = 0
    queued: int = 0
    misplaced: int = 0
    pages: int = 0
    scan_times: list[float] = field(default_factory=list)
    make_times: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("boxes", "wrong", "uncertain", "sheets", "queued", "misplaced", "pages"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.scan_times += other.scan_times
        self.make_times += other.make_times

    def report(self, versions: int, students: int) -> None:
        print(f"{versions} versions × {students} students = {self.sheets} sheets, {self.pages} pages "
              f"(150/200/300 dpi, rotated ±4°, perspective, blur, noise, JPEG)")
        print(f"  boxes read right        {(self.boxes - self.wrong - self.uncertain) / self.boxes:8.4%}  "
              f"({self.wrong} misread, {self.uncertain} uncertain → the teacher, of {self.boxes})   goal ≥ 99.9 %")
        print(f"  wrong student, version or answer   {self.misplaced}   goal 0")
        print(f"  sheets queued           {self.queued / self.sheets:8.2%}  ({self.queued} of {self.sheets})   "
              "goal ≤ 2 %")
        print(f"  scanning, per page      {statistics.median(self.scan_times) * 1000:6.0f} ms processor time "
              f"(median; filling and photographing it: {statistics.median(self.make_times) * 1000:.0f} ms)",
              flush=True)


def main(versions: int = 30, students: int = 40, seed: int = 1, jobs: int = os.cpu_count() or 1) -> None:
    """Students in rounds, each round one sheet of every version, the rounds shared among ``jobs`` worker
    processes: the figures after each round are those of ``versions`` × the rounds so far (a run stopped
    early still measured every version).  Each sheet draws from its own random stream (the seed, the round,
    the version), so the figures do not depend on how many workers ran."""
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        env = {**os.environ, "QUIZZER_DB": str(root / "bank.sqlite")}
        subprocess.run([str(ROOT / ".venv/bin/quizzer"), "export", "--week", "2", "-n", "20", "--seed", "4812",
                        "--versions", str(versions), "--format", "pdf", "--answer-sheets", "-o",
                        str(root / "exam.pdf")], env=env, check=True, stdout=subprocess.DEVNULL)
        manifest = load_manifest(root / "exam-sheets.json")
        dpis = {code: DPIS[index % len(DPIS)] for index, code in enumerate(manifest.versions)}
        _EXAM.update(manifest=manifest, dpis=dpis,
                     rendered={code: render(root / f"exam-sheet-{code}.pdf", dpi) for code, dpi in dpis.items()})
        tally = Tally()
        # fork: the workers inherit the rendered pages instead of receiving them pickled
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for done, one_round in enumerate(pool.imap_unordered(partial(_round, seed), range(students)), 1):
                tally.add(one_round)
                if done < students:
                    print(f"after round {done}: ", end="")
                tally.report(len(dpis), done)


_EXAM: dict[str, Any] = {}  # the exam every worker reads: its manifest, each version's dpi and rendered pages


def _round(seed: int, number: int) -> Tally:
    """Round ``number``: one student's sheet of every version."""
    tally = Tally()
    for code, pages in _EXAM["rendered"].items():
        _sheet(tally, _EXAM["manifest"], code, pages, _EXAM["dpis"][code], random.Random(f"{seed}:{number}:{code}"))
    return tally


def _sheet(tally: Tally, manifest: Manifest, code: str, rendered: list[np.ndarray], dpi: int,
           rng: random.Random) -> None:
    """One student's sheet of version ``code``: filled in, photographed, read back and checked."""
    student = str(rng.randrange(10**7, 10**8))
    tally.sheets += 1
    doubt = False
    for number, pixels in enumerate(rendered, start=1):
        started = time.process_time()
        filled = fill(pixels, manifest, code, number, student, dpi, rng)
        data = photograph(filled.pixels, rng)
        made = time.process_time()
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
            page = read_page(PageImage("bench", image), manifest)
        except Unreadable:
            doubt = True
            continue
        ink = lambda box, p=page: p.ink(box, manifest.box)  # noqa: E731
        identity = read_student_id(manifest.student_id, ink)
        readings = {spec.name: read_field(spec, ink) for spec in manifest.versions[code][1]
                    if spec.page == number and spec.type != "hand"}
        states = {box: state(ink(box)) for box in filled.marked}
        tally.scan_times.append(time.process_time() - made)
        tally.make_times.append(made - started)
        tally.pages += 1
        tally.misplaced += (page.version, page.page) != (code, number) or identity.answer not in (None, student)
        doubt |= bool(identity.doubt) or any(r.doubt for r in readings.values())
        tally.misplaced += any(not r.doubt and r.answer != filled.answers[name] for name, r in readings.items())
        for box, marked in filled.marked.items():
            tally.boxes += 1
            tally.uncertain += states[box] == "uncertain"
            tally.wrong += states[box] != "uncertain" and (states[box] == "marked") != marked
    tally.queued += doubt


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=30)
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (one per core)")
    args = parser.parse_args()
    main(args.versions, args.students, args.seed, args.jobs)
