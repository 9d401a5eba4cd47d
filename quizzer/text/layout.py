"""How rendered pieces of one-line maths fit together: spacing, brackets, scripts, fractions.

Owns ``Piece`` (a rendered atom and its ``Kind``), ``join`` (operator spacing, and
wrapping a fraction or script that would merge into its neighbour), what reads as
one visual unit (``√dₖ`` needs no brackets, ``1/(2d)`` does), ``attach``
(sub/superscripts), ``fraction``, ``root`` and ``accented``.  Works on rendered
strings; the parser decides what the pieces are, ``grid`` draws multi-line ones.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from typing import NamedTuple

from quizzer.text.grid import hcat, pad, text_width
from quizzer.text.symbols import ACCENTS, ATTACHED, LINE_MARKS, ROOTS, SUBSCRIPT, SUPERSCRIPT

_PAIRS = {
    "(": ")",
    "[": "]",
    "{": "}",
    "⟨": "⟩",
    "|": "|",
    "‖": "‖",
    "⌈": "⌉",
    "⌊": "⌋",
}

_PREFIXES = "".join(ROOTS.values()) + "∂∇"  # bind to the following factor: ∂L/∂W, √dₖ
_FACTOR_STARTS = frozenset(_PREFIXES + "([⟨‖∑∏∫")
_CLOSERS = frozenset(")]}|‖⟩′")

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9\u0370-\u03ff]+")

# --------------------------------------------------------------------------
# Rendered pieces and how they join
# --------------------------------------------------------------------------


class Kind(enum.Enum):
    """How a rendered piece interacts with its neighbours."""

    ORD = enum.auto()
    GROUP = enum.auto()  # a braced group: parenthesised if it takes a script
    FRAC = enum.auto()  # a linear fraction: parenthesised next to operands
    OP = enum.auto()  # a named operator such as log or softmax
    BIG = enum.auto()  # a big operator such as ∑


class Piece(NamedTuple):
    """One rendered atom; `alt` is its form when a neighbour would merge into it."""

    text: str
    kind: Kind = Kind.ORD
    alt: str | None = None


EMPTY = Piece("")
# A rendered script argument and whether it contains a word such as \max.
Script = tuple[str, bool]
_SPACED = (Kind.OP, Kind.BIG)
_PLAIN = (Kind.ORD, Kind.GROUP)


def _extends_word(c: str) -> bool:
    """Whether `c` would read as a continuation of the word before it."""
    return c.isalnum() and c not in ATTACHED


def _starts_operand(c: str) -> bool:
    """Whether `c` begins something an operator name applies to."""
    return _extends_word(c) or c in _PREFIXES


def _ends_operand(c: str) -> bool:
    """Whether `c` ends an operand (so a following operator needs a space)."""
    return c.isalnum() or c in _CLOSERS


def _gap(prev: Piece, before: str, cur: Piece, after: str) -> str:
    """The space LaTeX would put between two rendered pieces, reduced to 0 or 1."""
    if "\n" in before and "\n" in after:
        return " "
    last, first = before[-1], after[0]
    if last.isspace() or first.isspace():
        return ""
    if prev.kind is Kind.OP and _starts_operand(first):
        return " "
    if prev.kind is Kind.BIG and first not in _CLOSERS and first not in ",;":
        return " "
    if cur.kind in _SPACED and _ends_operand(last):
        return " "
    return ""


def _merges(prev: Piece, following: str, gap: str) -> bool:
    """Whether `following` would visually merge into `prev` unless it is wrapped."""
    if prev.kind is Kind.FRAC:
        return _extends_word(following[0]) or following[0] in _FACTOR_STARTS
    return not gap and _extends_word(following[0])


def join(pieces: list[Piece]) -> str:
    """Concatenate pieces with operator spacing, wrapping where needed."""
    if all(p.alt is None and p.kind in _PLAIN for p in pieces):
        text = "".join(p.text for p in pieces)  # the common case: nothing to space
        if "\n" not in text:
            return text
    kept = [p for p in pieces if p.text]
    texts = [p.text for p in kept]
    gaps = [""] * len(kept)
    tall = any("\n" in t for t in texts)
    for i in range(1, len(kept)):
        prev, cur = kept[i - 1], kept[i]
        if not tall and prev.alt is None and prev.kind in _PLAIN and cur.kind in _PLAIN:
            continue  # nothing to space or wrap
        if prev.alt is not None and _merges(
            prev, cur.text, _gap(prev, texts[i - 1], cur, cur.text)
        ):
            texts[i - 1] = prev.alt
        # a/b right after an operator, a "/" or another wrapped fraction
        isolated = prev.kind in _SPACED or texts[i - 1].endswith("/")
        if cur.kind is Kind.FRAC and (isolated or texts[i - 1] == prev.alt):
            texts[i] = cur.alt or cur.text
        gaps[i] = _gap(prev, texts[i - 1], cur, texts[i])
    if tall:
        return hcat([part for pair in zip(gaps, texts, strict=True) for part in pair])
    return "".join(g + t for g, t in zip(gaps, texts, strict=True))


# --------------------------------------------------------------------------
# Visual units: what can stand unbracketed under √ or as a denominator
# --------------------------------------------------------------------------


def _close(s: str, i: int) -> int:
    """Index of the bracket closing the one at s[i], or -1."""
    opening = s[i]
    closing = _PAIRS[opening]
    if opening == closing:
        return s.find(closing, i + 1)
    level = 0
    for j in range(i, len(s)):
        if s[j] == opening:
            level += 1
        elif s[j] == closing:
            level -= 1
            if level == 0:
                return j
    return -1


def _script_end(s: str, i: int) -> int:
    """Index past the sub/superscripts and marks attached at s[i:], or -1."""
    n = len(s)
    while i < n:
        c = s[i]
        if c in ATTACHED or unicodedata.combining(c):
            i += 1
        elif c in "_^" and i + 1 < n:
            if s[i + 1] == "(":
                end = _close(s, i + 1)
                if end < 0:
                    return -1
                i = end + 1
            elif c == "_" and (m := _PLAIN_WORD.match(s, i + 1)):
                i = m.end()
            else:
                i += 2
        else:
            break
    return i


def _factor_end(s: str, i: int) -> int:
    """Index past one visual factor (`x`, `2.5`, `√dₖ`, `(…)`, `d_model`), or -1."""
    n = len(s)
    while i < n and s[i] in _PREFIXES:
        i += 1
    if i >= n or s[i] in ATTACHED:
        return -1
    c = s[i]
    if c in _PAIRS:
        end = _close(s, i)
        if end < 0:
            return -1
        i = end + 1
    elif c.isdecimal():
        i = _NUMBER.match(s, i).end()  # type: ignore[union-attr]  # starts with a digit
    elif c.isalpha() or c == "∞":
        i += 1
    else:
        return -1
    return _script_end(s, i)


def _is_factor(s: str) -> bool:
    """Whether s reads as one unit, so √s or x/s needs no brackets."""
    return bool(s) and _factor_end(s, 0) == len(s)


def _is_product(s: str) -> bool:
    """Whether s is a (signed) product of factors, safe as a numerator."""
    i = 1 if s[:1] in ("-", "−") else 0
    n = len(s)
    while i < n:
        i = _factor_end(s, i)
        if i < 0:
            return False
        if i < n and s[i] == "·":
            i += 1
    return n > 0


# --------------------------------------------------------------------------
# Scripts, fractions and other constructions
# --------------------------------------------------------------------------


def _translate(text: str, table: dict[str, str]) -> str | None:
    """text mapped character by character, or None if any character is missing."""
    if all(c in table for c in text):
        return "".join(table[c] for c in text)
    return None


def _script(script: Script, table: dict[str, str], marker: str) -> tuple[str, str]:
    """A script as (plain form, form safe before a letter)."""
    text, is_word = script
    # Words (\max, \text{…}) stay words: ᵐᵃˣ would read as a product m·a·x.
    mapped = None if is_word else _translate(text, table)
    if mapped is not None:
        return mapped, mapped
    bracketed = f"{marker}({text})"
    # `d_model` reads well; the bare form is kept unless a letter follows.
    bare = _PLAIN_WORD.fullmatch(text) if marker == "_" else len(text) == 1
    return (marker + text if bare else bracketed), bracketed


def attach(base: Piece, sub: Script | None, sup: Script | None) -> Piece:
    """base with its subscript and superscript attached."""
    text = base.text
    if "\n" in text:
        return Piece(_attach_tall(text, sub, sup))
    if base.kind in (Kind.GROUP, Kind.FRAC) and not _is_factor(text):
        text = f"({text})"
    plain = safe = text
    for script, table, marker in ((sub, SUBSCRIPT, "_"), (sup, SUPERSCRIPT, "^")):
        if script and script[0]:
            shown, wrapped = _script(script, table, marker)
            plain, safe = plain + shown, safe + wrapped
    kind = base.kind if base.kind in _SPACED else Kind.ORD
    return Piece(plain, kind, safe if safe != plain else None)


def _attach_tall(block: str, sub: Script | None, sup: Script | None) -> str:
    """Scripts on a drawn grid: superscript by the top row, subscript by the bottom."""
    lines = block.split("\n")
    width = max(map(text_width, lines))
    lines = [pad(line, width, "<") for line in lines]
    if sup and sup[0]:
        lines[0] += _script(sup, SUPERSCRIPT, "^")[1]
    if sub and sub[0]:
        lines[-1] += _script(sub, SUBSCRIPT, "_")[1]
    return "\n".join(line.rstrip() for line in lines)


def fraction(num: str, den: str) -> Piece:
    """num/den with brackets only where a side is not a single unit."""
    top = num if _is_product(num) else f"({num})"
    bottom = den if _is_factor(den) else f"({den})"
    text = f"{top}/{bottom}"
    return Piece(text, Kind.FRAC, f"({text})")


def root(index: str | None, radicand: str) -> str:
    """√x, ∛x, ⁿ√x, or x^(1/k) when the index has no superscript form."""
    body = radicand if _is_factor(radicand) else f"({radicand})"
    sign = ROOTS.get(index or "2")
    if sign is None and index is not None:
        raised = _translate(index, SUPERSCRIPT)
        if raised is None:
            return f"{body}^(1/{index})"
        sign = raised + "√"
    return (sign or "√") + body


def accented(name: str, body: str) -> str:
    """body with the combining accent of command `name`."""
    mark = ACCENTS[name]
    if body and not unicodedata.combining(body[0]):
        if all(unicodedata.combining(c) for c in body[1:]):
            return body + mark
        if mark in LINE_MARKS:
            return "".join(c + LINE_MARKS[mark] for c in body)
    return f"{name}({body})" if body else ""

