"""Read an answer of any kind: the dispatch by kind, the length cap, and the live preview.

:func:`parse` is what grading calls; :func:`preview` is what the answer box shows while the
student types, so both read the text the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from quizzer.grading.choices import parse_choice, parse_multi
from quizzer.grading.describe import describe
from quizzer.grading.expr import ExprError
from quizzer.grading.ordering import parse_order
from quizzer.grading.readers import (
    parse_bool,
    parse_expression,
    parse_integer,
    parse_matrix,
    parse_number,
    parse_shape,
    parse_text,
    parse_vector,
)
from quizzer.grading.typed import AnswerFormatError

MAX_ANSWER_CHARS = 2000
KINDS = ("number", "integer", "vector", "matrix", "shape", "bool", "choice", "multi", "order", "expression", "text")

_PARSERS: dict[str, Callable[..., Any]] = {
    "number": parse_number, "integer": parse_integer, "vector": parse_vector,
    "matrix": parse_matrix, "shape": parse_shape, "bool": parse_bool, "choice": parse_choice,
    "multi": parse_multi, "order": parse_order, "expression": parse_expression, "text": parse_text,
}


def parse(kind: str, text: str, **context: Any) -> Any:
    """Parse ``text`` as an answer of ``kind``; context: length, shape, options or variables."""
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ValueError(f"unknown answer kind {kind!r} (kinds: {', '.join(KINDS)})")
    # The cap is on what was typed; normalized text may be longer and is bounded by quizzer.grading.expr.
    if isinstance(text, str) and len(text) > MAX_ANSWER_CHARS:
        raise AnswerFormatError("answer is too long")
    return parser(text, **context)


class Preview(NamedTuple):
    """How the text typed so far reads: the value as read, or why it cannot be read yet."""

    readable: bool
    text: str


def preview(kind: str, text: str, **context: Any) -> Preview:
    """Read ``text`` as :func:`parse` would, for the "I read: …" line under the answer box."""
    try:
        value = parse(kind, text, **context)
    except (AnswerFormatError, ExprError) as exc:
        return Preview(False, str(exc))
    return Preview(True, describe(kind, value))
