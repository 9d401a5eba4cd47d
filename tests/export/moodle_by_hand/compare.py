"""Compare import_and_grade.php's marks with quizzer's: python compare.py CASES.json OUT.json

Prints what was imported, how many questions Moodle marks out of their points, and how many cases Moodle's
engine scores as quizzer does; each other case is either one the case file excuses (a rule of quizzer's
Moodle cannot state, which the question says where a student would meet it), counted by reason, or listed
as a disagreement to fix."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path


def main(cases_file: str, out_file: str) -> None:
    cases = {case["idnumber"]: case for case in json.loads(Path(cases_file).read_text())}
    out = json.loads(Path(out_file).read_text())
    agree = total = marks_ok = 0
    differ: list[tuple[object, ...]] = []
    excused: collections.Counter[str] = collections.Counter()
    marks_off: collections.Counter[str] = collections.Counter()
    for result in out["results"]:
        case = cases[result["idnumber"]]
        if result.get("missing"):
            differ.append((result["idnumber"], "not imported"))
            continue
        if abs(result["defaultmark"] - case["points"]) < 1e-9:
            marks_ok += 1
        else:
            marks_off[result["qtype"]] += 1
        for fraction, ours, typed, excuse in zip(result["fractions"], case["quizzer"], case["typed"],
                                                 case["excuse"], strict=True):
            total += 1
            theirs = None if fraction is None else float(fraction)
            if theirs is not None and abs(theirs - ours) < 1e-6:
                agree += 1
            elif excuse and theirs is not None and (not excuse.startswith("order") or theirs == 0.0):
                excused[excuse] += 1
            else:
                differ.append((result["idnumber"], result["qtype"], typed[:40], theirs, ours))
    print(f"imported {out['imported']} (ok={out['ok']}); marks equal points for {marks_ok} of "
          f"{len(out['results'])} (not: {dict(marks_off)})")
    print(f"Moodle's engine agrees with quizzer on {agree} of {total} cases; excused {sum(excused.values())} "
          f"({dict(excused)}); unexplained {len(differ)}")
    for row in differ:
        print("  ", row)


if __name__ == "__main__":
    main(*sys.argv[1:3])
