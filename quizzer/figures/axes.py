"""Axis arithmetic: "nice" tick values (1, 2, 2.5 or 5 times a power of ten) and their labels."""

from __future__ import annotations

import math
from dataclasses import dataclass

from quizzer.templates.figure import cell_text

NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0, 20.0)  # 20: always few enough ticks


def nice_step(low: float, high: float, *, most: int) -> float:
    """The smallest nice step that puts at most ``most`` ticks on [low, high]."""
    span = high - low
    power = 10.0 ** math.floor(math.log10(span / most))
    return next(step * power for step in NICE_STEPS if math.floor(high / (step * power)) -
                math.ceil(low / (step * power)) + 1 <= most)


def nice_ticks(low: float, high: float, *, most: int) -> list[float]:
    """Multiples of a nice step within [low, high] (a hair of tolerance keeps the ends)."""
    step = nice_step(low, high, most=most)
    slack = step * 1e-9
    first, last = math.ceil((low - slack) / step), math.floor((high + slack) / step)
    # Rounded to a few digits below the step, not to a fixed 12 decimals: values around 1e-17 would all
    # round to 0 (a zero step, and a math domain error in every export's figure).
    digits = 3 - math.floor(math.log10(step))
    return [round(i * step, digits) for i in range(first, last + 1)]


def tick_labels(ticks: list[float]) -> list[str]:
    """The ticks with as many decimals as their step needs (0.25 steps need two), true minus signs."""
    if len(ticks) < 2:
        return [cell_text(t, 2) for t in ticks]
    step = ticks[1] - ticks[0]
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    if round(step / 10.0 ** -decimals, 6) % 1:  # 2.5 × 10^k: one more decimal than the power
        decimals += 1
    return [cell_text(t, decimals) for t in ticks]


@dataclass(frozen=True)
class Scale:
    """A linear map from data values [low, high] to points [start, end] (end < start for a y axis)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)
