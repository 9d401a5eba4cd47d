"""How close a typed number must be to the expected one (:class:`Tolerance`), and the precision a
question asks for (:class:`Precision`, read from its prompt: "to 4 decimal places").

Shared by grading, template validation and the exports (Moodle states the same tolerance).
:func:`short_of_precision` is the rule of ``questions/README.md`` ("Precision"): a number that is
the expected value rounded to the digits it was typed with, but with fewer than asked, is right
yet not precise enough, when it gives at most ``MAX_PRECISION_SHORTFALL`` digits fewer than asked
(``1`` for 0.6667 asked to 4 decimals is simply wrong).  To earn credit for that, and not for a
lucky guess, it must also give at least ``MIN_PRECISION_SIG`` significant figures: ``0.07`` for
0.0730 is one figure, as likely a guess as a rounding, and earns nothing (its feedback still says
it is a rounding).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal, NamedTuple

import msgspec

DEFAULT_SIG = 3
_BOUND_SLACK = 1e-9  # so 1.01 is within 1% of 1.0 despite binary rounding
MIN_PRECISION_SIG = 2
MAX_PRECISION_SHORTFALL = 2


class Precision(msgspec.Struct, frozen=True):
    """The precision a question asks for: ``digits`` decimal places or significant figures."""

    digits: int
    unit: Literal["decimals", "sig"]

    def name(self, digits: int | None = None) -> str:
        """``4 decimals``, ``1 decimal``, ``3 significant figures`` (of ``digits``, default the asked ones);
        no decimals is ``the nearest whole number``."""
        count = self.digits if digits is None else digits
        if count == 0 and self.unit == "decimals":
            return "the nearest whole number"
        noun = "decimal" if self.unit == "decimals" else "significant figure"
        return f"{count} {noun}{'s' if count != 1 else ''}"


class Tolerance(msgspec.Struct, frozen=True):
    """How close a number must be; accepted if ANY given criterion accepts (default: 3 s.f.)."""

    rel: float | None = None   # |got-exp| <= rel*|exp|
    abs: float | None = None   # |got-exp| <= abs
    sig: int | None = None     # agrees with exp to `sig` significant figures
    # The precision the prompt asks for ("to 4 decimal places"), which is then the whole tolerance: within one
    # unit in its last place of exp correctly rounded to it (``rounded``), allowing for rounded intermediate steps.
    asked: Precision | None = None

    def __post_init__(self) -> None:
        if (self.rel is not None and not self.rel >= 0) or (self.abs is not None and not self.abs >= 0):
            raise ValueError("tolerances must be ≥ 0")
        if self.sig is not None and self.sig < 1:
            raise ValueError("sig must be at least 1")

    def _criteria(self) -> tuple[float | None, float | None, int | None]:
        if self.rel is None and self.abs is None and self.sig is None and self.asked is None:
            return None, None, DEFAULT_SIG
        return self.rel, self.abs, self.sig

    def accepts(self, got: float, expected: float) -> bool:
        """Whether ``got`` is close enough to ``expected``."""
        have, want = _finite_float(got), _finite_float(expected)
        if have is None or want is None:
            return False
        if self.asked is not None:
            centre, unit = rounded(want, self.asked), last_unit(want, self.asked)
            # slack for binary rounding: 2048.0001 is not exactly a unit from 2048
            return math.fabs(have - centre) <= unit * (1 + _BOUND_SLACK) + 4 * math.ulp(math.fabs(centre) + unit)
        error = math.fabs(have - want)
        rel, absolute, sig = self._criteria()
        bounds = [
            rel * math.fabs(want) if rel is not None else None,
            absolute,
            half_unit(want, sig) if sig is not None else None,
        ]
        return any(bound is not None and error <= bound * (1 + _BOUND_SLACK) for bound in bounds)

    def loosened(self) -> Tolerance:
        """Ten times looser (one significant figure fewer): what counts as a near miss."""
        if self.asked is not None:
            return Tolerance(asked=Precision(max(self.asked.digits - 1, 0 if self.asked.unit == "decimals" else 1),
                                             self.asked.unit))
        rel, absolute, sig = self._criteria()
        return Tolerance(rel=None if rel is None else rel * 10,
                         abs=None if absolute is None else absolute * 10,
                         sig=None if sig is None else max(sig - 1, 1))

    def describe(self) -> str:
        """``to 3 significant figures``, ``within 1%``, ``within ±0.001`` (joined by 'or'); a precision asked,
        ``to 4 decimals, give or take 1 in the last place``."""
        if self.asked is not None:
            return f"to {self.asked.name()}, give or take 1 in the last place"
        rel, absolute, sig = self._criteria()
        parts = []
        if sig is not None:
            parts.append(f"to {sig} significant figure{'s' if sig != 1 else ''}")
        if rel is not None:
            parts.append(f"within {rel * 100:g}%")
        if absolute is not None:
            parts.append(f"within ±{Decimal(repr(absolute)).normalize():f}")  # ±0.00005, never ±5e-05
        return " or ".join(parts)

    def display_digits(self) -> int:
        """Significant figures to show the expected value with: at least 4, more for tight tolerances."""
        rel, _, sig = self._criteria()
        digits = [4, (sig or 0) + 1, (self.asked.digits + 1) if self.asked is not None else 0]
        if rel:
            digits.append(math.ceil(-math.log10(rel)) + 1)
        return min(max(digits), 15)


def rounded(value: float, asked: Precision) -> float:
    """``value`` correctly rounded to the precision asked (half away from zero on the decimal digits, as a
    person rounds: 0.00125 to 2 figures is 0.0013)."""
    if value == 0:
        return 0.0
    places = asked.digits if asked.unit == "decimals" else asked.digits - 1 - Decimal(value).adjusted()
    return float(Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def last_unit(value: float, asked: Precision) -> float:
    """One unit in the last place asked of ``value`` (rounded): 0.0001 for 4 decimals; 0.000001 for 0.0001747
    to 3 significant figures."""
    if asked.unit == "decimals":
        return 10.0 ** -asked.digits
    if value == 0:
        return 0.0  # no figure of 0 is significant: only 0 is 0 to 3 figures
    return 10.0 ** (Decimal(rounded(value, asked)).adjusted() - asked.digits + 1)


def half_unit(expected: float, sig: int) -> float:
    """Half a unit in the ``sig``-th significant figure of ``expected`` (0 for expected 0)."""
    if expected == 0:
        return 0.0
    leading = Decimal(expected).adjusted()  # exact exponent of the leading digit, no log10 rounding
    return 0.5 * 10.0 ** (leading - sig + 1)


def _finite_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (OverflowError, TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# A precision is stated as a number of one or two digits, then its unit.  The unit's words are found
# first and the number then looked for just before them: a pattern that began with the number would be
# tried at every character of a prompt full of matrices (~20 µs a prompt, a tenth of an instance).
_UNIT = re.compile(r"[dDsS\u017f](?i:(?P<decimals>ecimal(?:\s+places?|s)?\b|\.p\.)"
                   r"|(?P<sig>ignificant\s+(?:figures?|digits?)|\.f\.))")
_COUNT = re.compile(r"\b\d{1,2}\Z")


def asked_precision(prompt: str) -> Precision | None:
    """The precision a prompt asks for ("Give all six entries to 4 decimal places"), or None when it
    states none, or states two different ones (then the rule cannot say which was meant)."""
    asked = set()
    for unit in _UNIT.finditer(prompt):
        before = prompt[:unit.start()].rstrip()  # spaces may stand between the number and its unit
        if count := _COUNT.search(before, len(before) - 2):
            asked.add(Precision(int(count[0]), "decimals" if unit["decimals"] else "sig"))
    return asked.pop() if len(asked) == 1 else None


class Digits(NamedTuple):
    """What a typed number gives: ``0.20``, 2 decimals and 2 significant figures (:mod:`quizzer.grading.digits`)."""

    decimals: int
    sig: int


class Shortfall(NamedTuple):
    """A number right to the ``given`` digits but short of the asked precision; ``credited``: it
    gives enough digits to earn the precision credit (a one-figure rounding does not)."""

    given: int
    credited: bool


def short_of_precision(typed: Digits, got: float, expected: float, asked: Precision) -> Shortfall | None:
    """How ``got`` (typed with ``typed`` digits) falls short of ``asked`` while being ``expected``
    rounded to the digits it gives (or, typed with every digit asked, the same as ``expected`` when both are
    rounded to one digit fewer); None when it is not, or gives more than ``MAX_PRECISION_SHORTFALL`` digits fewer than
    asked."""
    have, want = _finite_float(got), _finite_float(expected)
    given = typed.decimals if asked.unit == "decimals" else typed.sig
    if have is None or want is None:
        return None
    if given >= asked.digits and asked.digits > (0 if asked.unit == "decimals" else 1):
        # All the digits asked, but more than a unit in the last place off: if it rounds to the expected value at
        # one place fewer, it is right to that precision, short of the one asked.
        coarser = Precision(asked.digits - 1, asked.unit)
        if rounded(have, coarser) == rounded(want, coarser):
            return Shortfall(coarser.digits, typed.sig >= MIN_PRECISION_SIG)
        return None
    if not asked.digits - MAX_PRECISION_SHORTFALL <= given < asked.digits:
        return None
    unit = 0.5 * 10.0 ** -given if asked.unit == "decimals" else half_unit(have, given)
    if math.fabs(have - want) > unit * (1 + _BOUND_SLACK):
        return None
    return Shortfall(given, typed.sig >= MIN_PRECISION_SIG)
