"""What a wrong answer's feedback says: a sign, a power of ten, how close, which entries are off, a
constant factor between expressions, or that a right value is short of the asked precision.

Only words: whether an answer is right, and its score, are decided in :mod:`quizzer.grading.verdict`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from quizzer.grading.describe import format_number
from quizzer.grading.match import MIN_AGREEING_POINTS, nearly_equal, value_pairs
from quizzer.grading.readers import whole_number
from quizzer.grading.tolerance import Precision, Tolerance
from quizzer.grading.typed import ExpressionAnswer


def number_hint(kind: str, tolerance: Tolerance, got: Any, expected: Any) -> str:
    """Say what is wrong with a number: its sign, its power of ten, or how close it is."""
    exact = kind == "integer"
    target: Any = _whole(expected) if exact else float(expected)
    matches: Callable[[Any], bool] = ((lambda value: value == target) if exact
                                      else (lambda value: tolerance.accepts(value, target)))
    if got != 0 and matches(-got):
        return "right size, wrong sign"
    power = _power_of_ten_gap(got, target)
    if power and matches(Fraction(got) / Fraction(10) ** power):
        return f"your answer is {_factor(power)} the expected value — check units and powers of ten"
    if exact:
        difference = got - target
        if 0 < abs(difference) <= max(10, abs(target) // 100):
            return f"close: off by {abs(difference):,} (too {'large' if difference > 0 else 'small'})"
        return "not the expected value (whole numbers must be exact)"
    if tolerance.loosened().accepts(got, target):
        return f"close, but not {tolerance.describe()}"
    return f"not the expected value (accepted {tolerance.describe()})"


def _whole(value: Any) -> int:
    """The expected value of an integer question, as an int."""
    whole = whole_number(value)
    if whole is None:
        raise ValueError(f"an integer answer must be a whole number, got {value!r}")
    return whole


def _power_of_ten_gap(got: Any, expected: Any) -> int | None:
    """k when got ≈ expected × 10^k for a whole k ≠ 0 (exact arithmetic: integers may be huge)."""
    if got == 0 or expected == 0:
        return None
    ratio = abs(Fraction(got) / Fraction(expected))
    power = round(math.log10(ratio.numerator) - math.log10(ratio.denominator))
    return power if 1 <= abs(power) <= 15 else None


def _factor(power: int) -> str:
    if power > 0:
        return f"{10 ** power:,}×" if power <= 6 else f"10^{power}×"
    return f"1/{10 ** -power:,} of" if power >= -6 else f"10^{power}×"


def entry_positions(mask: np.ndarray) -> list[tuple[int, ...]]:
    """The 1-based positions of a mask's true entries, as feedback names them: ``(2,)``, ``(1, 3)``."""
    return [tuple(int(i) + 1 for i in index) for index in np.argwhere(mask)]


def positions_off(positions: Sequence[tuple[int, ...]], noun: tuple[str, str] = ("entry", "entries"),
                  limit: int = 6, state: str = "off") -> str:
    """``entry 2 is off``, ``entries 2 and 4 are off``, ``entries (1, 2) and (2, 1) are off``."""
    names = [str(p[0]) if len(p) == 1 else "(" + ", ".join(map(str, p)) + ")" for p in positions]
    if len(names) == 1:
        return f"{noun[0]} {names[0]} is {state}"
    if len(names) > limit:
        names = [*names[:limit], f"{len(names) - limit} more"]
    return f"{noun[1]} {', '.join(names[:-1])} and {names[-1]} are {state}"


def expression_hint(got: ExpressionAnswer, expected: ExpressionAnswer) -> str:
    """Name a constant factor or offset between the two expressions when there is one."""
    pairs = list(value_pairs(got, expected))
    if len(pairs) >= MIN_AGREEING_POINTS:
        differences = [have - want for have, want in pairs]
        if all(nearly_equal(d, differences[0]) for d in differences):
            offset = format_number(differences[0])
            return f"your expression differs from the expected one by a constant ({offset})"
        if all(want != 0 for _, want in pairs):
            ratios = [have / want for have, want in pairs]
            if all(nearly_equal(r, ratios[0]) for r in ratios):
                return f"your expression is {format_number(ratios[0])}× the expected one"
    return "not equivalent to the expected expression"




def precision_hint(given: int, asked: Precision, *, credited: bool = True,
                   rough: Sequence[tuple[int, ...]] = ()) -> str:
    """``right to 2 decimals; give 4``: the value is right, its precision short of what the prompt asks
    (``… too few digits to credit`` for a rounding too rough to tell from a guess; ``rough``: the
    positions of such entries among credited ones)."""
    too_rough = "" if credited else ", too few digits to credit"
    rough_entries = f" ({positions_off(rough, state='too rough to credit')})" if rough else ""
    return f"right to {asked.name(given)}{too_rough}; give {asked.digits}{rough_entries}"


def fewer_digits_hint(given: int, asked: Precision) -> str:
    """A right answer (within the tolerance) typed with fewer digits than the prompt asks: still right,
    but an exam marker holding the prompt's precision might not accept it."""
    return f"correct, within the tolerance; the question asks for {asked.name()}, you gave {asked.name(given)}"


def selection_credit(right_options: int) -> str:
    """How a select-all question's marks are shared (verdict's rule), for answer sheets and hand grading."""
    return f"in part: right ticks minus wrong ticks, over the {right_options} right options, never below 0"


def order_credit(order: Sequence[str], examined: Sequence[tuple[int, int]]) -> str:
    """How an ordering question's marks are shared (quizzer.grading.ordering's rule): ``order`` is the
    steps' letters in the right order, ``examined`` the relations the template names, as 1-based steps
    (first, then), each of which scores 0 when inverted."""
    n = len(order)
    if {(step, step + 1) for step in range(1, n)} <= set(examined):  # every step's place is examined
        return "this order only, all or nothing"
    pairs = n * (n - 1) // 2
    rule = f"in part: pairs of steps in the right order minus pairs reversed, over all {pairs} pairs, never below 0"
    inverted = (f"0 if ({order[then - 1]}) comes before ({order[first - 1]})" for first, then in examined)
    return "; ".join([rule, *inverted])


def given_note(expected: np.ndarray, given: np.ndarray) -> str:
    """The entries a vector or matrix question gives away, printed with its prompt in every face (the app, a
    paper, an LMS item, a card) exactly as given: ``**Given (no marks):** entries 2 and 4 are 0.``"""
    values = np.asarray(expected, dtype=float)
    shown = [format_number(float(values[index])) for index in map(tuple, np.argwhere(given))]
    by_value = {text: [p for p, t in zip(entry_positions(given), shown, strict=True) if t == text] for text in shown}
    entries = "; ".join(positions_off(positions, limit=len(positions), state=text)
                        for text, positions in by_value.items())
    return f"**Given (no marks):** {entries}."


def entries_credit(given: np.ndarray | None, partial_credit: bool) -> str:
    """How a vector's or matrix's marks are shared, when not simply an equal share per entry: for answer
    sheets and hand grading, in the words of the scoring rules (questions/README.md)."""
    if not partial_credit:
        return "all or nothing"
    if given is None:
        return ""
    positions = entry_positions(given)
    earn = "earns" if len(positions) == 1 else "earn"
    return f"{positions_off(positions, limit=len(positions), state='given away')} and {earn} nothing"
