"""Compare import_and_grade.php's marks with quizzer's: python compare.py CASES.json OUT.json"""

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
    marks_off: collections.Counter[str] = collections.Counter()
    for result in out["results"]:
        case = cases[result["idnumber"]]
        if abs(result["defaultmark"] - case["points"]) < 1e-9:
            marks_ok += 1
        else:
            marks_off[result["qtype"]] += 1
        for fraction, ours, typed in zip(result["fractions"], case["quizzer"], case["typed"], strict=True):
            total += 1
            theirs = None if fraction is None else float(fraction)
            if theirs is not None and abs(theirs - ours) < 1e-6:
                agree += 1
            else:
                differ.append((result["idnumber"], result["qtype"], typed[:40], theirs, ours))
    print(f"imported {out['imported']} (ok={out['ok']}); marks equal points for {marks_ok} of "
          f"{len(out['results'])} (not: {dict(marks_off)})")
    print(f"Moodle's engine agrees with quizzer on {agree} of {total} cases")
    for row in differ:
        print("  ", row)


if __name__ == "__main__":
    main(*sys.argv[1:3])
