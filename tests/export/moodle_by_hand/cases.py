"""Cases for import_and_grade.php: every question of a Moodle XML export, its right answer and each listed
mistake as a student types them, with quizzer's score and, where Moodle may differ, the rule of quizzer's
Moodle cannot state (``moodle_engine.why_they_differ``).  Usage: python cases.py FILE.xml CASES.json"""

from __future__ import annotations

import json
import math
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository, for quizzer and tests


def main(source: str, target: str) -> None:
    from quizzer.grading.verdict import grade
    from tests.export.moodle_engine import response, why_they_differ
    from tests.export.test_qti import made_by

    out = []
    for question in ET.parse(source).getroot():
        if question.get("type") in ("category", "essay"):
            continue
        made = made_by(question.findtext("idnumber") or "")
        cases = [(made.answer, made.answer_text, 1.0)]
        cases += [(m.answer, m.answer_text, grade(made.spec, m.answer_text).score) for m in made.mistakes]
        responses = []
        for value, typed, _ in cases:
            given = response(question, made.kind, value, typed, made.answer if made.kind == "order" else ())
            if isinstance(given, set):
                given = sorted(given)
            if isinstance(given, list):  # a blank that cannot be typed (NaN) is left empty
                given = [None if isinstance(x, float) and math.isnan(x) else x for x in given]
            responses.append(given)
        feedback = question.findtext("generalfeedback/text") or ""
        out.append({"idnumber": question.findtext("idnumber"), "points": made.points, "kind": made.kind,
                    "responses": responses, "quizzer": [ours for _, _, ours in cases],
                    "typed": [typed for _, typed, _ in cases],
                    # where Moodle may differ, the rule of quizzer's it cannot state (Moodle giving 0, for an order)
                    "excuse": [why_they_differ(made, value, 0.0, ours, feedback) if ours < 1 else ""
                               for value, _, ours in cases]})
    Path(target).write_text(json.dumps(out, default=float))
    print(len(out), "questions", sum(len(case["responses"]) for case in out), "cases")


if __name__ == "__main__":
    main(*sys.argv[1:3])
