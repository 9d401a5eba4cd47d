"""Moodle's qtype_ordering grading types, ported from question/type/ordering/question.php
(``grade_response`` and ``get_ordered_subsets``), on an order written as each item's right place; and the hint
rows its importer (questiontype.php, ``import_from_xml``) writes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence

Order = Sequence[int]


def all_or_nothing(order: Order) -> float:
    return float(list(order) == sorted(order))


def absolute_position(order: Order) -> float:
    return sum(place == item for place, item in enumerate(order)) / len(order)


def _next(order: Order, last: bool) -> dict[int, int | None]:
    following: dict[int, int | None] = {item: after for item, after in zip(order, order[1:], strict=False)}
    if last:
        following[order[-1]] = None
    return following


def _relative_next(order: Order, last: bool) -> float:
    right, got = _next(sorted(order), last), _next(order, last)
    return sum(item in got and got[item] == after for item, after in right.items()) / len(right)


def relative_next_exclude_last(order: Order) -> float:
    return _relative_next(order, last=False)


def relative_next_include_last(order: Order) -> float:
    return _relative_next(order, last=True)


def _neighbours(order: Order, everything: bool) -> dict[int, tuple[set[int | None], set[int | None]]]:
    found: dict[int, tuple[set[int | None], set[int | None]]] = {}
    for place, item in enumerate(order):
        before, after = list(order[:place]), list(order[place + 1:])
        if everything:
            found[item] = (set(before), set(after))
        else:
            found[item] = ({before[-1] if before else None}, {after[0] if after else None})
    return found


def _relative_neighbours(order: Order, everything: bool) -> float:
    right, got = _neighbours(sorted(order), everything), _neighbours(order, everything)
    correct = sum(len(got[item][0] & prev) + len(got[item][1] & nxt) for item, (prev, nxt) in right.items())
    return correct / sum(len(prev) + len(nxt) for prev, nxt in right.values())


def relative_one_previous_and_next(order: Order) -> float:
    return _relative_neighbours(order, everything=False)


def relative_all_previous_and_next(order: Order) -> float:
    return _relative_neighbours(order, everything=True)


def _ordered_subsets(order: Order, contiguous: bool) -> list[list[int]]:
    subsets: list[list[int]] = []
    for p, value in enumerate(order):
        new: list[list[int]] = []
        isnew = True
        for subset in subsets:
            end = order[subset[-1]]
            if value == end + 1:
                isnew = False
                subset.append(p)
            elif not contiguous and value > end:
                isnew = False
                new.append(list(subset))
                subset.append(p)
        if isnew:
            new.append([p])
        subsets += new
    return subsets


def _longest(order: Order, contiguous: bool) -> float:
    best = max((len(subset) for subset in _ordered_subsets(order, contiguous)), default=0)
    return (best if best > 1 else 0) / len(order)  # Moodle ignores single-item subsets


def longest_ordered_subset(order: Order) -> float:
    return _longest(order, contiguous=False)


def longest_contiguous_subset(order: Order) -> float:
    return _longest(order, contiguous=True)


def relative_to_correct(order: Order) -> float:
    most = len(order) - 1
    return sum(max(0, most - abs(item - place)) for place, item in enumerate(order)) / (most * len(order))


GRADING_TYPES: dict[str, Callable[[Order], float]] = {
    "ALL_OR_NOTHING": all_or_nothing, "ABSOLUTE_POSITION": absolute_position,
    "RELATIVE_NEXT_EXCLUDE_LAST": relative_next_exclude_last, "RELATIVE_NEXT_INCLUDE_LAST": relative_next_include_last,
    "RELATIVE_ONE_PREVIOUS_AND_NEXT": relative_one_previous_and_next,
    "RELATIVE_ALL_PREVIOUS_AND_NEXT": relative_all_previous_and_next,
    "LONGEST_ORDERED_SUBSET": longest_ordered_subset, "LONGEST_CONTIGUOUS_SUBSET": longest_contiguous_subset,
    "RELATIVE_TO_CORRECT": relative_to_correct,
}


DEFAULT_NUM_HINTS = 5  # qtype_ordering::DEFAULT_NUM_HINTS


def imported_hints(question: ET.Element) -> list[dict[str, str | None]]:
    """The question_hints rows Moodle's importer writes for an ordering question
    (qtype_ordering::import_from_xml, then qformat_xml::import_hints): one per ``<hint>``; and when the file
    has no ``<shownumcorrect>``, DEFAULT_NUM_HINTS of them (or as many as there are hints) with no hint text
    and a NULL ``hintformat``, which PostgreSQL's NOT NULL column refuses ("Error writing to database")."""
    hints: list[dict[str, str | None]] = [
        {"hint": hint.findtext("text") or "", "hintformat": hint.get("format", "html")}
        for hint in question.findall("hint")]
    if question.find("shownumcorrect") is None:
        count = max(DEFAULT_NUM_HINTS, len(hints))
        hints += [{"hint": None, "hintformat": None} for _ in range(count - len(hints))]
    return hints
