"""Units and scale words a learner types after a number: ``2048 MiB``, ``25,224,192 parameters``, ``57.92%``,
``6.144 million``, ``25k``.

A scale word is a factor and is always read (``6.144 million`` is 6,144,000; ``25k`` 25,000).  A unit is read
only where the question's own unit is known — its prompt names it (:func:`units_in`: "in MiB", "how many
parameters", "as a percentage") — and it is then dropped: the number is in the question's unit.  A unit the
question does not use (``MB`` where it asks for MiB) is refused with a hint that says what to drop, never
read as something else.  A percent sign where the prompt asks for no percentage keeps its usual meaning (a
hundredth: ``73%`` for 0.73).
"""

from __future__ import annotations

import re
from fractions import Fraction

from quizzer.grading.typed import AnswerFormatError, quote

# Units as the course writes them (lower case for matching); each names the words a prompt uses for it.
UNITS: dict[str, tuple[str, ...]] = {
    "mib": ("MiB",), "gib": ("GiB",), "kib": ("KiB",), "mb": ("MB",), "gb": ("GB",), "kb": ("KB",),
    "bytes": ("bytes",), "byte": ("bytes",), "parameters": ("parameters",), "params": ("parameters",),
    "parameter": ("parameters",), "weights": ("weights",), "entries": ("entries",), "tokens": ("tokens",),
    "%": ("%", "percent", "percentage"), "percent": ("%", "percent", "percentage"),
}
SCALES = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000, "billion": 1_000_000_000}
_TRAILING = re.compile(r"^(?P<number>.*?[0-9.)])\s*(?P<word>%|[A-Za-z]+)\s*$")


def units_in(prompt: str) -> tuple[str, ...]:
    """The units a prompt names (``MiB``, ``parameters``, ``%``): the ones a typed answer may carry."""
    found = []
    for words in dict.fromkeys(UNITS.values()):
        if any(re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", prompt) for word in words):
            found.append(words[0])
    return tuple(found)


def strip_unit(text: str, units: tuple[str, ...]) -> tuple[str, Fraction | int, bool]:
    """``text`` without a trailing unit of the question or scale word: (the number's text, the factor the scale
    word gives, whether a percent sign of a percentage question was dropped).  A unit the question does not
    use is refused."""
    match = _TRAILING.match(text.strip())
    if match is None:
        return text, 1, False
    number, word = match["number"], match["word"]
    key = word.lower()
    if word in ("k", "K", "M") or key in ("thousand", "million", "billion"):
        return number, SCALES[key], False
    if key not in UNITS:
        return text, 1, False  # not a unit: left to the number reader (``e``, ``pi`` and their errors)
    unit = UNITS[key][0]
    if unit in units:
        return number, 1, unit == "%"
    if unit == "%":
        return text, 1, False  # a hundredth, as the number reader reads it
    asked = f" (the question asks for {', '.join(units)})" if units else ""
    raise AnswerFormatError(f"could not read {quote(text.strip())}: drop {quote(word)} and type the number "
                            f"alone{asked}")
