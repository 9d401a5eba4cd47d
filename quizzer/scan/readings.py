"""Box darkness → what the student marked, and a field's boxes → the answer ``quizzer grade`` reads.

The sheet asks for a cross in a box and, to take a mark back, the box filled completely (the convention
of R/exams' NOPS sheets: a cross and a filled box look nothing alike to a scanner).  A box's ink is two
numbers from 0 (paper) to 1 (the markers' black), measured inside its outline: the *mean*, and the
*light quarter* (the 25th percentile: a cross leaves paper between its strokes, a filled box none).  So:

* light quarter from ``FILLED_FROM``: **cancelled**, filled in: not marked;
* else mean below ``EMPTY_BELOW``: **empty** (specks, dust, a stray line's end);
* else mean from ``MARKED_FROM``: **marked** (a cross, a tick, a heavy scribble);
* anything between (a mean between the two, a light quarter between ``HALF_FILLED`` and
  ``FILLED_FROM``) is **uncertain** (a faint tick, an erasure, a cross gone over until almost filled):
  never guessed, the field goes to the teacher's queue with its image.

The thresholds sit in the middle of the gaps the synthetic-scan suite (``tests/scan``, ``bench/bench_scan.py``)
measured over 15,000 boxes at 150–300 dpi, rotated, in perspective, blurred, noisy and JPEG'd: empty boxes'
mean 0.01–0.04, marks' 0.17–0.73; marks' light quarter 0.01–0.54 (a heavy partial fill), filled boxes'
0.76–0.97.  (With the filled-box band starting at 0.56, 6 of 92,960 boxes — heavy marks — were uncertain
and 2.5 % of sheets queued.)

A field's reading is the answer text as a student would type it (``b``; ``a, c``; ``true``; ``-42``;
``-3.47e-2``), or ``None`` when nothing is marked (the question left blank: nothing is recorded, as the
app records no unanswered question), or a reason it needs the teacher.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from quizzer.scan.manifest import FieldSpec, Point

EMPTY_BELOW = 0.09
MARKED_FROM = 0.14
HALF_FILLED = 0.60
FILLED_FROM = 0.70

State = Literal["empty", "marked", "cancelled", "uncertain"]


def state(ink: tuple[float, float]) -> State:
    """A box's state from its ink: (mean, light quarter)."""
    mean, light = ink
    if light >= FILLED_FROM:
        return "cancelled"
    if light >= HALF_FILLED:
        return "uncertain"
    if mean < EMPTY_BELOW:
        return "empty"
    return "marked" if mean >= MARKED_FROM else "uncertain"


@dataclass(frozen=True)
class Reading:
    """A field's answer (None: left blank), or ``doubt``: why the teacher must read it."""

    answer: str | None
    doubt: str = ""


Darkness = Callable[[Point], tuple[float, float]]


def read_field(spec: FieldSpec, darkness: Darkness) -> Reading:
    if spec.type == "hand":
        return Reading(None, "written answer: marked by hand")
    if spec.type in ("choice", "multi", "bool"):
        return _options(spec, darkness)
    return _digits(spec, darkness)


def read_student_id(columns: Sequence[Sequence[Point]], darkness: Darkness) -> Reading:
    digits = _columns(columns, darkness, "student ID")
    if isinstance(digits, Reading):
        return digits
    text = _joined(digits)
    if text is None:
        return Reading(None, "a blank column inside the student ID")
    return Reading(text or None, "" if text else "no student ID marked")


def _options(spec: FieldSpec, darkness: Darkness) -> Reading:
    states = [state(darkness(box)) for box in spec.boxes]
    if "uncertain" in states:
        faint = [spec.options[i] for i, s in enumerate(states) if s == "uncertain"]
        return Reading(None, f"box {', '.join(faint)} neither clearly marked nor clearly empty")
    marked = [option for option, s in zip(spec.options, states, strict=True) if s == "marked"]
    if not marked:
        return Reading(None)
    if spec.type != "multi" and len(marked) > 1:
        return Reading(None, f"{' and '.join(marked)} both marked on a one-answer question")
    return Reading(", ".join(marked))


def _digits(spec: FieldSpec, darkness: Darkness) -> Reading:
    assert spec.sign is not None
    signed = _signed(spec.sign, spec.digits, darkness, "digit", "the minus box")
    if isinstance(signed, Reading):
        return signed
    minus, mantissa = signed
    if spec.type == "integer":
        text = _joined(mantissa)
        if text is None:
            return Reading(None, "a blank digit between two marked ones")
        return Reading(minus + text if text else None, "the minus marked without digits" if minus and not text
                       else "")
    if mantissa[0] is None:
        if any(mantissa) or minus:
            return Reading(None, "digits marked without the first one")
        mantissa = []
    if any(d is None for d in mantissa[:len(_trimmed(mantissa))]):
        return Reading(None, "a blank digit between two marked ones")
    digits = "".join(d for d in _trimmed(mantissa) if d is not None)
    exponent = _exponent(spec, darkness)
    if isinstance(exponent, Reading):
        return exponent
    if not digits:
        return Reading(None, "an exponent marked without digits") if exponent else Reading(None)
    number = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return Reading(f"{minus}{number}{'e' + exponent if exponent else ''}")


def _exponent(spec: FieldSpec, darkness: Darkness) -> str | Reading:
    assert spec.exponent_sign is not None
    signed = _signed(spec.exponent_sign, spec.exponent, darkness, "exponent digit", "the exponent's minus box")
    if isinstance(signed, Reading):
        return signed
    minus, columns = signed
    text = _joined(columns)
    if text is None:
        return Reading(None, "a blank exponent digit between two marked ones")
    if minus and not text:
        return Reading(None, "the exponent's minus marked without digits")
    return minus + str(int(text)) if text else ""


def _signed(sign: Point, columns: Sequence[Sequence[Point]], darkness: Darkness, what: str,
            minus_box: str) -> tuple[str, list[str | None]] | Reading:
    """A minus box and its digit columns: ``"-"`` or ``""`` and each column's digit, or why the teacher
    must read them (an uncertain minus box first)."""
    minus = state(darkness(sign))
    if minus == "uncertain":
        return Reading(None, f"{minus_box} is neither clearly marked nor clearly empty")
    digits = _columns(columns, darkness, what)
    if isinstance(digits, Reading):
        return digits
    return ("-" if minus == "marked" else ""), digits


def _columns(columns: Sequence[Sequence[Point]], darkness: Darkness, what: str) -> list[str | None] | Reading:
    """Each column's digit (None: blank), or why a column needs the teacher."""
    digits: list[str | None] = []
    for number, column in enumerate(columns, start=1):
        states = [state(darkness(box)) for box in column]
        if "uncertain" in states:
            return Reading(None, f"{what} {number}: box {states.index('uncertain')} neither clearly marked nor "
                                 "clearly empty")
        marked = [str(d) for d, s in enumerate(states) if s == "marked"]
        if len(marked) > 1:
            return Reading(None, f"{what} {number}: {' and '.join(marked)} both marked")
        digits.append(marked[0] if marked else None)
    return digits


def _trimmed(digits: list[str | None]) -> list[str | None]:
    """Without the blank columns at the end."""
    end = len(digits)
    while end and digits[end - 1] is None:
        end -= 1
    return digits[:end]


def _joined(digits: list[str | None]) -> str | None:
    """The digits with blank columns at either end left out; None when a blank one stands between two."""
    start = 0
    while start < len(digits) and digits[start] is None:
        start += 1
    middle = _trimmed(digits[start:])
    if any(d is None for d in middle):
        return None
    return "".join(d for d in middle if d is not None)
