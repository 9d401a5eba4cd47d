"""How close a typed number must be to the expected one: :class:`Tolerance`.

Shared by grading, template validation and the exports (Moodle states the same tolerance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

DEFAULT_SIG = 3
_BOUND_SLACK = 1e-9  # so 1.01 is within 1% of 1.0 despite binary rounding


@dataclass(frozen=True)
class Tolerance:
    """How close a number must be; accepted if ANY given criterion accepts (default: 3 s.f.)."""

    rel: float | None = None   # |got-exp| <= rel*|exp|
    abs: float | None = None   # |got-exp| <= abs
    sig: int | None = None     # agrees with exp to `sig` significant figures

    def __post_init__(self) -> None:
        if (self.rel is not None and not self.rel >= 0) or (self.abs is not None and not self.abs >= 0):
            raise ValueError("tolerances must be ≥ 0")
        if self.sig is not None and self.sig < 1:
            raise ValueError("sig must be at least 1")

    def _criteria(self) -> tuple[float | None, float | None, int | None]:
        if self.rel is None and self.abs is None and self.sig is None:
            return None, None, DEFAULT_SIG
        return self.rel, self.abs, self.sig

    def accepts(self, got: float, expected: float) -> bool:
        """Whether ``got`` is close enough to ``expected``."""
        have, want = _finite_float(got), _finite_float(expected)
        if have is None or want is None:
            return False
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
        rel, absolute, sig = self._criteria()
        return Tolerance(rel=None if rel is None else rel * 10,
                         abs=None if absolute is None else absolute * 10,
                         sig=None if sig is None else max(sig - 1, 1))

    def describe(self) -> str:
        """``to 3 significant figures``, ``within 1%``, ``within ±0.001`` (joined by 'or')."""
        rel, absolute, sig = self._criteria()
        parts = []
        if sig is not None:
            parts.append(f"to {sig} significant figure{'s' if sig != 1 else ''}")
        if rel is not None:
            parts.append(f"within {rel * 100:g}%")
        if absolute is not None:
            parts.append(f"within ±{absolute:g}")
        return " or ".join(parts)

    def display_digits(self) -> int:
        """Significant figures to show the expected value with: at least 4, more for tight tolerances."""
        rel, _, sig = self._criteria()
        digits = [4, (sig or 0) + 1]
        if rel:
            digits.append(math.ceil(-math.log10(rel)) + 1)
        return min(max(digits), 15)


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
