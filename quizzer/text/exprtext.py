"""An answer expression as a student writes it on paper: ``B*h*T*(T+1)/2`` → ``BhT(T+1)/2``.

Graded expressions are kept in the grader's syntax (``*``, ``**``); shown that way they read as
Python, and in Markdown ``*…*`` even turns into emphasis.  :func:`expression_unicode` writes the
same expression as maths: a product of a single-letter name, a number or a bracket with what
follows is juxtaposed (``4d``, ``2(T+1)``), other products get a ``·`` (``d_model·h``, ``2·3``),
powers are superscripts and ``sqrt`` a root (via :func:`quizzer.text.mathtext.latex_to_unicode`,
the renderer every prompt uses), and a top-level ``+``, ``−`` or ``=`` is spaced.  The student's
answer and the expected one go through the same function, so they look alike.
"""

from __future__ import annotations

import re

from quizzer.text.mathtext import latex_to_unicode, render_math

__all__ = ["as_maths", "expression_unicode"]

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)|(?P<name>[^\W\d]\w*)|(?P<op>\*\*|\S))")
_BINARY = {"+": "+", "-": "−", "=": "="}
_NAMES = {"pi": r"\pi"}

Token = tuple[str, str]  # (num | name | op, text)


def _tokens(source: str) -> list[Token]:
    return [(m.lastgroup or "op", m.group(m.lastgroup or "op")) for m in _TOKEN.finditer(source)]


def expression_unicode(source: str) -> str:
    """``source`` in the grader's expression syntax, written as Unicode maths: ``4d² + 2df``."""
    tokens = _tokens(source)
    terms, signs, start, depth = [], [], 0, 0
    # Split at the top-level + − =, so those are spaced while brackets stay tight: BhT(T+1)/2.
    for index, (kind, text) in enumerate(tokens):
        depth += (text == "(") - (text == ")")
        unary = index == 0 or tokens[index - 1][1] in ("(", "**", "*", "/", "+", "-", "=")
        if depth == 0 and kind == "op" and text in _BINARY and not unary:
            terms.append(tokens[start:index])
            signs.append(_BINARY[text])
            start = index + 1
    terms.append(tokens[start:])
    shown = [latex_to_unicode(_latex(term)) for term in terms]
    return shown[0] + "".join(f" {sign} {term}" for sign, term in zip(signs, shown[1:], strict=True))


def _closing(tokens: list[Token], index: int) -> int:
    """The index of the ")" matching the "(" at ``index`` (the end when unbalanced)."""
    depth = 0
    for position in range(index, len(tokens)):
        depth += (tokens[position][1] == "(") - (tokens[position][1] == ")")
        if depth == 0:
            return position
    return len(tokens) - 1


def _latex(tokens: list[Token]) -> str:
    """One term as LaTeX for the renderer: juxtaposed or dotted products, braced powers, √."""
    out: list[str] = []
    index = 0
    while index < len(tokens):
        kind, text = tokens[index]
        if text == "**" and index + 1 < len(tokens):
            end = _closing(tokens, index + 1) if tokens[index + 1][1] == "(" else index + 1
            inner = tokens[index + 2:end] if tokens[index + 1][1] == "(" else tokens[index + 1:end + 1]
            out.append("^{" + _latex(inner) + "}")
            index = end + 1
            continue
        if text == "sqrt" and index + 1 < len(tokens) and tokens[index + 1][1] == "(":
            end = _closing(tokens, index + 1)
            out.append(r"\sqrt{" + _latex(tokens[index + 2:end]) + "}")
            index = end + 1
            continue
        if text == "*":
            previous = tokens[index - 1] if index else None
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            out.append(" " if _juxtaposes(previous, following) else r" \cdot ")
        elif kind == "name":
            out.append(_name(text))
        elif kind == "op" and text == "-":
            out.append("−")
        else:
            out.append(text)
        index += 1
    return "".join(out)


def _name(name: str) -> str:
    """``pi`` → π; ``d_model`` keeps its subscript whole (``d_{model}``: the renderer writes d_model)."""
    if name in _NAMES:
        return _NAMES[name] + " "
    base, _, sub = name.partition("_")
    return f"{base}_{{{sub}}}" if len(sub) > 1 else name


def _single(name: str) -> bool:
    """A name that reads as one symbol: ``d``, ``pi``, or a letter with a one-character subscript ``d_k``."""
    base, _, sub = name.partition("_")
    return name in _NAMES or (len(base) == 1 and len(sub) <= 1)


def _juxtaposes(left: Token | None, right: Token | None) -> bool:
    """Whether ``left·right`` can be written ``left right`` without changing how it reads."""
    if left is None or right is None:
        return False
    (left_kind, left_text), (right_kind, right_text) = left, right
    if right_kind == "num" or (right_kind == "op" and right_text != "("):
        return False  # 2·3 and x·2 keep the dot (x2 would read as a name)
    if right_kind == "name" and not _single(right_text) and right_text != "sqrt":
        return left_kind == "num"  # 2df reads as 2·d·f, but a·bc would read as abc
    if left_kind == "name":
        return _single(left_text)
    return left_kind == "num" or left_text == ")"


def as_maths(kind: str, text: str) -> str:
    """An answer or a reading of ``kind`` as maths: an expression as written on paper (``4d² + 2df``),
    anything else with its LaTeX rendered.  The student's answer, the expected one and the live
    preview all come through here, so they look alike."""
    return expression_unicode(text) if kind == "expression" else render_math(text)
