"""How quizzer's tolerances become Moodle's numerical answers (a numerical question's, a cloze blank's, a QTI
item's range): where the tolerance is centred and how wide, quizzer's half credit for a rounding one place short,
and numbers written as Moodle reads and shows them."""

from __future__ import annotations

import math

from quizzer.grading.tolerance import DEFAULT_SIG, Precision, Tolerance, half_unit, last_unit, rounded
from quizzer.grading.verdict import PRECISION_CREDIT
from quizzer.templates.instance import Instance

__all__ = ["PRECISION_CREDIT", "ROUNDED_SHORT", "half_credit", "moodle_center", "moodle_tolerance", "number_text",
           "percent_text", "shown_answer"]

# The feedback on a half-credit answer (no } ~ #: it is written inside a cloze's blank too).
ROUNDED_SHORT = "Right to one place fewer than the question asks: half the marks."


def half_credit(instance: Instance, value: float) -> tuple[float, float] | None:
    """quizzer's precision credit as a Moodle answer (centre, tolerance), where the prompt asks a precision: a
    number that is the answer rounded to one place fewer earns ``PRECISION_CREDIT`` (``short_of_precision``), typed
    with every digit asked (it rounds to that, half up) or with one fewer (it is that).  Those are the numbers in
    the rounding's cell, half a unit of its last place either side, the end away from zero left out (rounded
    half away from zero, it is the next rounding): the centre moves a millionth of the half unit toward zero.
    Moodle reads the number, not how many digits were typed, so two or more digits short (which quizzer also
    pays, about the answer itself) earn nothing there."""
    asked = instance.spec.precision
    if instance.kind == "integer" or asked is None or asked.digits <= (0 if asked.unit == "decimals" else 1):
        return None
    coarser = Precision(asked.digits - 1, asked.unit)
    centre, half = rounded(float(value), coarser), last_unit(float(value), coarser) / 2
    if half == 0:
        return None
    nudge = math.copysign(half * 1e-6, centre)
    return centre - nudge, half - abs(nudge)

def moodle_tolerance(instance: Instance, value: float) -> float:
    """Moodle's absolute tolerance: the widest bound quizzer's tolerance accepts (integers exact)."""
    if instance.kind == "integer":
        return 0.0
    tolerance: Tolerance = instance.spec.tolerance
    if tolerance.asked is not None:  # a unit in the last place asked, about the answer rounded to it (moodle_center)
        return last_unit(value, tolerance.asked)
    sig = tolerance.sig if (tolerance.sig or tolerance.rel or tolerance.abs) else DEFAULT_SIG
    bounds = [tolerance.rel * abs(value) if tolerance.rel else 0.0, tolerance.abs or 0.0,
              half_unit(value, sig) if sig else 0.0]
    return max(bounds)

def moodle_center(instance: Instance, value: float) -> float:
    """Where Moodle's tolerance is centred: the answer itself, or, where the prompt asks a precision, the answer
    rounded to it (quizzer accepts a unit in the last place either side of that: tolerance.Tolerance)."""
    asked = instance.spec.tolerance.asked if instance.kind != "integer" else None
    return float(value) if asked is None else rounded(float(value), asked)

def shown_answer(value: float, tolerance: float) -> str:
    """The shortest decimal within 1/100 of the tolerance of ``value``: what Moodle shows as correct."""
    for digits in range(1, 17):
        text = f"{float(value):.{digits}g}"
        if abs(float(text) - value) <= tolerance / 100:
            return number_text(float(text))
    return number_text(value)

def percent_text(percent: float) -> str:
    """Moodle's fraction list writes 100/3 as 33.33333: five decimals, trailing zeros dropped."""
    return f"{percent:.5f}".rstrip("0").rstrip(".") if not float(percent).is_integer() else str(int(percent))

def number_text(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value) if math.isfinite(value) else "0"
