"""The digits a typed number gives, entry by entry: ``0.20`` gives 2 decimals and 2 significant figures.

The precision rule (:func:`quizzer.grading.tolerance.short_of_precision`) counts what was typed, not
the float read from it: ``0.20`` and ``0.2`` are one float but not one precision.  An entry that is
not a plain decimal literal (``1/3``, ``e^-1``, ``73%``) gives no count: it is exact, or computed at
full precision, so it can never be short of one.
"""

from __future__ import annotations

import re

from quizzer.grading.readers import element_texts, row_texts
from quizzer.grading.tolerance import Digits
from quizzer.grading.typed import AnswerFormatError, clean, fold_powers_of_ten

_GROUPING = re.compile(r"(?<=[0-9])[, ](?=[0-9]{3}\b)")  # 4,200,000 and 4 200 000
_PLAIN = re.compile(r"[+-]?(?P<whole>[0-9]*)(?:\.(?P<fraction>[0-9]*))?(?:[eE](?P<exponent>[+-]?[0-9]+))?")


def typed_digits(kind: str, text: str) -> list[Digits | None]:
    """One count per entry, row by row (one for a number); [] when the text cannot be split."""
    try:
        typed = fold_powers_of_ten(clean(text))
        if kind == "number":
            entries = [typed]
        elif kind == "vector":
            entries = element_texts(typed)
        else:
            entries = [entry for row in row_texts(typed) for entry in element_texts(row)]
    except AnswerFormatError:
        return []
    return [literal_digits(entry) for entry in entries]


def literal_digits(text: str) -> Digits | None:
    """``0.20`` → (2, 2), ``7.3e-3`` → (4, 2), ``4200000`` → (0, 2), ``12`` → (0, 2); None for ``1/3``."""
    match = _PLAIN.fullmatch(_GROUPING.sub("", text.strip()))
    if match is None or not (match["whole"] or match["fraction"]):
        return None
    whole, fraction = match["whole"] or "", match["fraction"] or ""
    exponent = int(match["exponent"] or 0)
    digits = (whole + fraction).lstrip("0")
    if not fraction:
        digits = digits.rstrip("0") or digits  # 4200000: the trailing zeros of a whole number hold places
    return Digits(max(0, len(fraction) - exponent), len(digits))
