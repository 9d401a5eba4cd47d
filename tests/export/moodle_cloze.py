"""Moodle's cloze (qtype_multianswer) as its importer reads it and its engine marks it, ported from
question/type/multianswer/questiontype.php (``qtype_multianswer_extract_question``: the ANSWER_REGEX family)
and question.php (``grade_response``), with question/type/numerical's answer matching, Moodle 4.5.6.

What matters here: a blank's weight is the whole number before its first colon (empty means 1); the
question is marked out of the sum of its blanks' weights, whatever ``<defaultgrade>`` says; a blank earns
its weight times the fraction of the first answer it matches (a numerical answer matches within its
absolute tolerance)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FRACTION = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
_ANSWER = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"  # PHP's (?<!\\|&|&amp;), one width at a time
_FEEDBACK = r".*?(?<!\\)(?=[~}]|$)"
_ALTERNATIVE = f"({_FRACTION})?({_ANSWER})(#({_FEEDBACK}))?"
_TYPES = (r"(NUMERICAL|NM)|(MULTICHOICE|MC)|(MULTICHOICE_V|MCV)|(MULTICHOICE_H|MCH)|(SHORTANSWER|SA|MW)|"
          r"(SHORTANSWER_C|SAC|MWC)|(MULTICHOICE_S|MCS)|(MULTICHOICE_VS|MCVS)|(MULTICHOICE_HS|MCHS)|"
          r"(MULTIRESPONSE|MR)|(MULTIRESPONSE_H|MRH)|(MULTIRESPONSE_S|MRS)|(MULTIRESPONSE_HS|MRHS)")
ANSWER_REGEX = re.compile(r"\{([0-9]*):(" + _TYPES + "):(" + _ALTERNATIVE + "(~" + _ALTERNATIVE + r")*)\}", re.S)
_NUMBER = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
_NUMERICAL_ALTERNATIVE = re.compile(f"^({_NUMBER})(:{_NUMBER})?$", re.S)


@dataclass(frozen=True)
class Blank:
    weight: int
    qtype: str
    answers: tuple[tuple[float, str, float], ...]  # (fraction, answer, tolerance)

    def fraction(self, response: float) -> float:
        """numerical: the first answer within [answer − tolerance, answer + tolerance] (qtype_numerical_answer)."""
        assert self.qtype == "NUMERICAL", self.qtype
        for fraction, answer, tolerance in self.answers:
            if answer == "*" or abs(response - float(answer)) <= tolerance + 1e-12 * max(1.0, abs(float(answer))):
                return fraction
        return 0.0


def extract(text: str) -> list[Blank]:
    """The blanks of a cloze question text in order, as the importer reads them."""
    blanks = []
    for match in ANSWER_REGEX.finditer(text):
        weight = int(match[1]) if match[1] != "" else 1
        alternatives = match[16]
        answers = []
        for alt in re.finditer("~?" + _ALTERNATIVE, alternatives, re.S):
            fraction = 1.0 if alt[1] == "=" else 0.01 * float(alt[2].replace(",", ".")) if alt[2] else 0.0
            numeric = _NUMERICAL_ALTERNATIVE.match(alt[3])
            if numeric:
                answers.append((fraction, numeric[1], float(numeric[6]) if numeric[6] else 0.0))
            else:
                answers.append((fraction, alt[3], 0.0))
        kind = "NUMERICAL" if match[3] else match[2]
        blanks.append(Blank(weight, kind, tuple(answers)))
    return blanks


def default_mark(text: str) -> int:
    """What Moodle marks the question out of: the sum of its blanks' weights."""
    return sum(blank.weight for blank in extract(text))


def grade(text: str, responses: list[float]) -> float:
    """The question's fraction for one response per blank (``qtype_multianswer_question::grade_response``)."""
    blanks = extract(text)
    assert len(blanks) == len(responses)
    return sum(blank.weight * blank.fraction(value) for blank, value in zip(blanks, responses, strict=True)) / \
        sum(blank.weight for blank in blanks)
