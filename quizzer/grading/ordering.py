"""Ordering answers: reading a sequence of letters, and scoring an order by its pairs.

A question of kind ``order`` shows its steps shuffled, each with a letter; the student types
the letters in the order the steps happen (``c a d b``, ``c, a, d, b``, ``cadb``, ``c > a > d > b``).
Every step must appear exactly once: a blank, a missing or repeated letter, or a word such as
"all" is unreadable and never counts as an attempt.

**Score: ordered pairs, right minus wrong.**  Of the n(n−1)/2 pairs of steps, count those the
answer puts in the right relative order (R) and those it inverts (W); the score is
max(0, (R − W) / (R + W)), Kendall's τ floored at 0 — the select-all rule (right picks minus
wrong picks) applied to pairs.  The exact order scores 1; one adjacent swap in n steps loses
4/(n(n−1)) (0.87 for six steps); the reversed order, and every order that is at least as wrong
as right, scores 0.  A template may name the relations it examines (``must_precede``: step a before
step b, say "the mask before the softmax"): an order that inverts one of them scores 0, however many
other pairs it has right — one adjacent swap of eight steps would otherwise keep 0.93 for the very
mistake the question asks about.  The steps are displayed in an order that is itself at least as wrong as
right, so typing the letters as shown earns nothing.  Written here by hand: it is a dozen lines,
and SciPy's ``kendalltau`` would make grading import SciPy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quizzer.grading.describe import option_letter
from quizzer.grading.typed import AnswerFormatError, clean, quote

_SEPARATORS = re.compile(r"[\s,;>→\-]+")
_LETTER = re.compile(r"[(\[]?([a-zA-Z])[)\].:]?")


def parse_order(text: str, options: Sequence[str] = ()) -> tuple[int, ...]:
    """The typed letters as displayed positions (``"c a b"`` → ``(2, 0, 1)``), each step exactly once."""
    n = len(options)
    if n < 2:
        raise ValueError("an ordering question needs at least two steps")
    last = option_letter(n - 1)
    how = f"type each of the letters a–{last} once, in order, e.g. 'b, d, a, c, …'"
    pieces = [piece for piece in _SEPARATORS.split(clean(text)) if piece]
    if len(pieces) == 1 and pieces[0].isalpha() and len(pieces[0]) == n:
        pieces = list(pieces[0])  # "cadb"
    positions: list[int] = []
    for piece in pieces:
        letter = _LETTER.fullmatch(piece)
        if letter is None:
            raise AnswerFormatError(f"could not read {quote(piece)} as a step: {how}")
        position = ord(letter[1].lower()) - ord("a")
        if not 0 <= position < n:
            raise AnswerFormatError(f"there is no step {letter[1].lower()}: the steps are a–{last}")
        if position in positions:
            raise AnswerFormatError(f"step {option_letter(position)} appears twice: give each step once")
        positions.append(position)
    missing = [option_letter(i) for i in range(n) if i not in positions]
    if missing:
        raise AnswerFormatError(f"put every step in the order: {', '.join(missing)} missing ({how})")
    return tuple(positions)


def pair_counts(got: Sequence[int], expected: Sequence[int]) -> tuple[int, int]:
    """(pairs in the right relative order, pairs inverted) of ``got`` against ``expected``."""
    rank = {step: place for place, step in enumerate(expected)}
    places = [rank[step] for step in got]
    right = wrong = 0
    for i, earlier in enumerate(places):
        for later in places[i + 1:]:
            if earlier < later:
                right += 1
            else:
                wrong += 1
    return right, wrong


def order_score(got: Sequence[int], expected: Sequence[int]) -> float:
    """max(0, (right pairs − inverted pairs) / all pairs): 1 for the exact order, 0 reversed."""
    right, wrong = pair_counts(got, expected)
    return max(0.0, (right - wrong) / (right + wrong))


def examined_pair_inverted(got: Sequence[int], expected: Sequence[int],
                           must_precede: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The first pair of ``must_precede`` — step numbers (a, b), 1-based in the right order, a before
    b — that ``got`` puts the other way round; None when it keeps them all."""
    place = {step: index for index, step in enumerate(got)}
    return next(((a, b) for a, b in must_precede if place[expected[a - 1]] > place[expected[b - 1]]), None)


def order_feedback(got: Sequence[int], expected: Sequence[int]) -> str:
    """How far the order is off: pairs right, and the first place that is wrong."""
    right, wrong = pair_counts(got, expected)
    first = next(place for place, (have, want) in enumerate(zip(got, expected, strict=True)) if have != want)
    return (f"{right} of {right + wrong} pairs of steps are in the right order; "
            f"place {first + 1} should be step {option_letter(expected[first])}, not {option_letter(got[first])}")
