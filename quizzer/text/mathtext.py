"""Render LaTeX math in Markdown as readable Unicode for a terminal.

`latex_to_unicode` converts one expression; `render_math` replaces every
`$…$` and `$$…$$` span in Markdown text.  Only the standard library is used
because this runs every time a prompt or a solution is shown.

Rendering rules, in short:

* fractions become `a/b`, parenthesising a side only when it is not a single
  visual unit (`(x+1)/√(2d)`);
* a sub/superscript becomes Unicode sub/superscript characters only when
  every character has one; otherwise it falls back to `_word`, `_(…)`,
  `^x` or `^(…)`, so the output never hides where a script ends;
* display matrices, `cases` and `aligned` are drawn as aligned grids.
"""

from __future__ import annotations

import enum
import re
import string
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

__all__ = ["latex_to_unicode", "render_math"]

# --------------------------------------------------------------------------
# Character tables
# --------------------------------------------------------------------------

# Capitals other than T are left out on purpose: Q has no superscript form, so
# W^Q, W^K, W^V would otherwise render inconsistently, and small-capital
# superscripts are hard to tell from lowercase ones.
_SUPERSCRIPT: dict[str, str] = dict(
    zip(
        "0123456789+-−=()/abcdefghijklmnoprstuvwxyzTαβγδεθφχᵀ′″∘",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᐟᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀᵅᵝᵞᵟᵋᶿᵠᵡᵀ′″°",
        strict=True,
    )
)
_SUBSCRIPT: dict[str, str] = dict(
    zip(
        "0123456789+-−=()aehijklmnoprstuvxəβγρφχ",
        "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓₔᵦᵧᵨᵩᵪ",
        strict=True,
    )
)
# Characters that visually attach to the preceding symbol.
_ATTACHED = frozenset(_SUPERSCRIPT.values()) | frozenset(_SUBSCRIPT.values())

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ",
    "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ",
    "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
    "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ",
    "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip

_SYMBOLS = _GREEK | {
    # operators and relations
    "cdot": "·", "cdotp": "·", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
    "ast": "∗", "star": "⋆", "circ": "∘", "bullet": "•", "odot": "⊙",
    "otimes": "⊗", "oplus": "⊕", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "cong": "≅",
    "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "lt": "<", "gt": ">",
    "coloneqq": "≔", "triangleq": "≜", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "gets": "←", "leftrightarrow": "↔", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "Leftrightarrow": "⇔", "implies": "⇒", "impliedby": "⇐",
    "iff": "⇔", "mapsto": "↦", "longrightarrow": "⟶", "uparrow": "↑",
    "downarrow": "↓", "in": "∈", "notin": "∉", "ni": "∋", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "cup": "∪", "cap": "∩",
    "setminus": "∖", "emptyset": "∅", "varnothing": "∅", "forall": "∀",
    "exists": "∃", "neg": "¬", "lnot": "¬", "land": "∧", "lor": "∨",
    "wedge": "∧", "vee": "∨", "vdash": "⊢", "models": "⊨", "perp": "⊥",
    "parallel": "∥", "mid": "|",
    # ordinary symbols
    "infty": "∞", "partial": "∂", "nabla": "∇", "top": "ᵀ", "bot": "⊥",
    "ldots": "…", "dots": "…", "cdots": "…", "dotsc": "…", "dotsb": "…",
    "vdots": "⋮", "ddots": "⋱", "prime": "′", "ell": "ℓ", "hbar": "ℏ",
    "Re": "ℜ", "Im": "ℑ", "aleph": "ℵ", "angle": "∠", "degree": "°",
    "dagger": "†", "square": "□", "checkmark": "✓", "colon": ":",
    "backslash": "\\",
    # delimiters
    "vert": "|", "lvert": "|", "rvert": "|", "Vert": "‖", "lVert": "‖",
    "rVert": "‖", "|": "‖", "langle": "⟨", "rangle": "⟩", "lceil": "⌈",
    "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "lbrace": "{", "rbrace": "}",
    "lbrack": "[", "rbrack": "]",
    # escapes and spacing (`\\` only reaches here outside an environment)
    "{": "{", "}": "}", "%": "%", "$": "$", "&": "&", "_": "_", "#": "#",
    ",": " ", ":": " ", ";": " ", " ": " ", ">": " ", "!": "", "\\": " ",
    "quad": "  ", "qquad": "    ",
}  # fmt: skip

_BIG_OPERATORS = {
    "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬",
    "iiint": "∭", "oint": "∮", "bigcup": "⋃", "bigcap": "⋂", "bigoplus": "⨁",
    "bigotimes": "⨂", "bigvee": "⋁", "bigwedge": "⋀", "bigodot": "⨀",
}  # fmt: skip

_OPERATOR_NAMES = frozenset(
    "log ln lg exp max min sup inf lim liminf limsup sin cos tan cot sec csc "
    "arcsin arccos arctan sinh cosh tanh coth arg argmax argmin det dim ker "
    "gcd lcm deg hom Pr mod sgn tr diag rank Var Cov".split()
)

# Sizing, style and layout commands that carry no content of their own.
_IGNORED = frozenset(
    "displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits "
    "displaylimits rm bf it cal sf tt mit mathstrut strut nonumber notag "
    "big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm "
    "biggm Biggm middle hline allowbreak nobreak relax centering".split()
)

_ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
    "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7",
    "overrightarrow": "\u20d7", "dot": "\u0307", "ddot": "\u0308",
    "check": "\u030c", "breve": "\u0306", "acute": "\u0301", "grave": "\u0300",
    "mathring": "\u030a", "underline": "\u0332",
}  # fmt: skip
# Over several characters these accents become a continuous line.
_LINE_MARKS = {"\u0304": "\u0305", "\u0305": "\u0305", "\u0332": "\u0332"}

_NEGATED = {
    "=": "≠", "∈": "∉", "≡": "≢", "<": "≮", ">": "≯", "≤": "≰", "≥": "≱",
    "⊂": "⊄", "⊆": "⊈", "∼": "≁", "|": "∤",
}  # fmt: skip

_ROOTS = {"2": "√", "3": "∛", "4": "∜"}


def _alphabet(
    upper: int, lower: int, digits: int | None, holes: str = ""
) -> dict[int, str]:
    """A str.translate table onto a Mathematical Alphanumeric Symbols block."""
    table = {ord(c): chr(upper + i) for i, c in enumerate(string.ascii_uppercase)}
    table |= {ord(c): chr(lower + i) for i, c in enumerate(string.ascii_lowercase)}
    if digits is not None:
        table |= {ord(c): chr(digits + i) for i, c in enumerate(string.digits)}
    # Letters encoded earlier in Letterlike Symbols are unassigned in the block.
    table |= {
        ord(plain): styled
        for plain, styled in zip(holes[::2], holes[1::2], strict=True)
    }
    return table


_BOLD = _alphabet(0x1D400, 0x1D41A, 0x1D7CE) | {
    ord(c): chr(0x1D6C2 + i) for i, c in enumerate("αβγδεζηθικλμνξοπρςστυφχψω")
}
_FONTS: dict[str, dict[int, str]] = {
    "mathbf": _BOLD,
    "boldsymbol": _BOLD,
    "bm": _BOLD,
    "pmb": _BOLD,
    "mathbb": _alphabet(0x1D538, 0x1D552, 0x1D7D8, "CℂHℍNℕPℙQℚRℝZℤ"),
    "Bbb": _alphabet(0x1D538, 0x1D552, 0x1D7D8, "CℂHℍNℕPℙQℚRℝZℤ"),
    "mathcal": _alphabet(0x1D49C, 0x1D4B6, None, "BℬEℰFℱHℋIℐLℒMℳRℛeℯgℊoℴ"),
    "mathscr": _alphabet(0x1D49C, 0x1D4B6, None, "BℬEℰFℱHℋIℐLℒMℳRℛeℯgℊoℴ"),
    "mathfrak": _alphabet(0x1D504, 0x1D51E, None, "CℭHℌIℑRℜZℨ"),
}

# Environment name -> (left, right) delimiter; everything else is aligned-like.
_MATRICES = {
    "matrix": ("", ""), "smallmatrix": ("", ""), "array": ("", ""),
    "pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "Bmatrix": ("{", "}"),
    "vmatrix": ("|", "|"), "Vmatrix": ("‖", "‖"),
}  # fmt: skip
_TALL = {
    "[": "⎡⎢⎣", "]": "⎤⎥⎦", "(": "⎛⎜⎝", ")": "⎞⎟⎠",
    "{": "⎧⎪⎩", "}": "⎫⎪⎭", "|": "│││", "‖": "‖‖‖",
}  # fmt: skip
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

_ROOT_SIGNS = "√∛∜"
_PREFIXES = _ROOT_SIGNS + "∂∇"  # bind to the following factor: ∂L/∂W, √dₖ
_FACTOR_STARTS = frozenset(_PREFIXES + "([⟨‖∑∏∫")
_CLOSERS = frozenset(")]}|‖⟩′")
_MAX_DEPTH = 60
_RELATION = re.compile(r"\s*([=≈≤≥≠→∈×])\s*")

# --------------------------------------------------------------------------
# Regular expressions
# --------------------------------------------------------------------------

# Tokens, with the whitespace TeX ignores in math dropped: a \text{…} command
# whole (its spaces matter), a command, a run of ASCII letters/digits (split
# again where TeX reads one character), or any single character.
_TEXT_COMMANDS = (
    "text textrm textit textbf textsf texttt textnormal textup mbox hbox emph".split()
)
_BRACED = r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"  # up to one level of nesting
_TEXT_CALL = rf"\\(?:{'|'.join(_TEXT_COMMANDS)})\s*{_BRACED}"
_TOKEN = re.compile(rf"\s*({_TEXT_CALL}|\\(?:[A-Za-z]+|.)?|[A-Za-z0-9]+|\S)", re.DOTALL)
_TEXT_TOKEN = re.compile(r"\\([A-Za-z]+|.?)|[{}~]|\s+", re.DOTALL)
_MARKUP = re.compile(r"[\\^_{}'~&]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_NUMERIC_CELL = re.compile(r"[-+−]?(?:\d+(?:\.\d*)?|\.\d+)")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9\u0370-\u03ff]+")
_MARKDOWN = re.compile(
    r"""
      (?P<fence>^[ ]{0,3}(?P<fc>`{3,}|~{3,}).*?(?:^[ ]{0,3}(?P=fc)[`~]*[ \t]*$|\Z))
    | (?P<bt>`+).+?(?<!`)(?P=bt)(?!`)           # inline code span
    | `+                                        # unmatched backticks: literal
    | \\.                                       # escaped character, e.g. \$
    | \$\$(?P<display>(?:[^$\\]|\\.)+?)\$\$[ \t]*
    | \$(?![\s$])                              # pandoc's rule: no space inside the dollars,
      (?P<inline>(?:[^$\\\n]|\\.|\n(?![ \t]*\n))+?)
      (?<!\s)\$(?!\d)                           # and no digit right after the closing one ("$5 and $6")
    """,
    re.MULTILINE | re.DOTALL | re.VERBOSE,
)

# --------------------------------------------------------------------------
# Rendered pieces and how they join
# --------------------------------------------------------------------------


class _Kind(enum.Enum):
    """How a rendered piece interacts with its neighbours."""

    ORD = enum.auto()
    GROUP = enum.auto()  # a braced group: parenthesised if it takes a script
    FRAC = enum.auto()  # a linear fraction: parenthesised next to operands
    OP = enum.auto()  # a named operator such as log or softmax
    BIG = enum.auto()  # a big operator such as ∑


class _Piece(NamedTuple):
    """One rendered atom; `alt` is its form when a neighbour would merge into it."""

    text: str
    kind: _Kind = _Kind.ORD
    alt: str | None = None


_EMPTY = _Piece("")
# A rendered script argument and whether it contains a word such as \max.
_Script = tuple[str, bool]
_SPACED = (_Kind.OP, _Kind.BIG)
_PLAIN = (_Kind.ORD, _Kind.GROUP)


class _TooDeep(Exception):
    """Nesting too deep to render safely within the recursion limit."""


def _extends_word(c: str) -> bool:
    """Whether `c` would read as a continuation of the word before it."""
    return c.isalnum() and c not in _ATTACHED


def _starts_operand(c: str) -> bool:
    """Whether `c` begins something an operator name applies to."""
    return _extends_word(c) or c in _PREFIXES


def _ends_operand(c: str) -> bool:
    """Whether `c` ends an operand (so a following operator needs a space)."""
    return c.isalnum() or c in _CLOSERS


def _gap(prev: _Piece, before: str, cur: _Piece, after: str) -> str:
    """The space LaTeX would put between two rendered pieces, reduced to 0 or 1."""
    if "\n" in before and "\n" in after:
        return " "
    last, first = before[-1], after[0]
    if last.isspace() or first.isspace():
        return ""
    if prev.kind is _Kind.OP and _starts_operand(first):
        return " "
    if prev.kind is _Kind.BIG and first not in _CLOSERS and first not in ",;":
        return " "
    if cur.kind in _SPACED and _ends_operand(last):
        return " "
    return ""


def _merges(prev: _Piece, following: str, gap: str) -> bool:
    """Whether `following` would visually merge into `prev` unless it is wrapped."""
    if prev.kind is _Kind.FRAC:
        return _extends_word(following[0]) or following[0] in _FACTOR_STARTS
    return not gap and _extends_word(following[0])


def _join(pieces: list[_Piece]) -> str:
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
        if cur.kind is _Kind.FRAC and (isolated or texts[i - 1] == prev.alt):
            texts[i] = cur.alt or cur.text
        gaps[i] = _gap(prev, texts[i - 1], cur, texts[i])
    if tall:
        return _hcat([part for pair in zip(gaps, texts, strict=True) for part in pair])
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
        if c in _ATTACHED or unicodedata.combining(c):
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
    if i >= n or s[i] in _ATTACHED:
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


def _script(script: _Script, table: dict[str, str], marker: str) -> tuple[str, str]:
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


def _attach(base: _Piece, sub: _Script | None, sup: _Script | None) -> _Piece:
    """base with its subscript and superscript attached."""
    text = base.text
    if "\n" in text:
        return _Piece(_attach_tall(text, sub, sup))
    if base.kind in (_Kind.GROUP, _Kind.FRAC) and not _is_factor(text):
        text = f"({text})"
    plain = safe = text
    for script, table, marker in ((sub, _SUBSCRIPT, "_"), (sup, _SUPERSCRIPT, "^")):
        if script and script[0]:
            shown, wrapped = _script(script, table, marker)
            plain, safe = plain + shown, safe + wrapped
    kind = base.kind if base.kind in _SPACED else _Kind.ORD
    return _Piece(plain, kind, safe if safe != plain else None)


def _attach_tall(block: str, sub: _Script | None, sup: _Script | None) -> str:
    """Scripts on a drawn grid: superscript by the top row, subscript by the bottom."""
    lines = block.split("\n")
    width = max(map(_width, lines))
    lines = [_pad(line, width, "<") for line in lines]
    if sup and sup[0]:
        lines[0] += _script(sup, _SUPERSCRIPT, "^")[1]
    if sub and sub[0]:
        lines[-1] += _script(sub, _SUBSCRIPT, "_")[1]
    return "\n".join(line.rstrip() for line in lines)


def _fraction(num: str, den: str) -> _Piece:
    """num/den with brackets only where a side is not a single unit."""
    top = num if _is_product(num) else f"({num})"
    bottom = den if _is_factor(den) else f"({den})"
    text = f"{top}/{bottom}"
    return _Piece(text, _Kind.FRAC, f"({text})")


def _root(index: str | None, radicand: str) -> str:
    """√x, ∛x, ⁿ√x, or x^(1/k) when the index has no superscript form."""
    body = radicand if _is_factor(radicand) else f"({radicand})"
    sign = _ROOTS.get(index or "2")
    if sign is None and index is not None:
        raised = _translate(index, _SUPERSCRIPT)
        if raised is None:
            return f"{body}^(1/{index})"
        sign = raised + "√"
    return (sign or "√") + body


def _accented(name: str, body: str) -> str:
    """body with the combining accent of command `name`."""
    mark = _ACCENTS[name]
    if body and not unicodedata.combining(body[0]):
        if all(unicodedata.combining(c) for c in body[1:]):
            return body + mark
        if mark in _LINE_MARKS:
            return "".join(c + _LINE_MARKS[mark] for c in body)
    return f"{name}({body})" if body else ""


def _escape(name: str) -> str | None:
    """The rendering of a symbol command, or None; `\\` + newline is a space."""
    return _SYMBOLS.get(" " if name.isspace() else name)


def _text_token(m: re.Match[str]) -> str:
    """One token of \\text{…} content."""
    if m[1] is not None:
        symbol = _escape(m[1])
        return m[1] if symbol is None else symbol
    return "" if m[0] in ("{", "}") else " "


def _text_mode(raw: str) -> str:
    """Render \\text{…} content: literal words, escapes resolved."""
    return _TEXT_TOKEN.sub(_text_token, raw)


# --------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------


def _width(s: str) -> int:
    """Terminal columns used by s (combining marks take none)."""
    return sum(1 for c in s if not unicodedata.combining(c))


def _pad(s: str, width: int, align: str) -> str:
    """s padded to width; align is '<' or '>'."""
    fill = " " * (width - _width(s))
    return s + fill if align == "<" else fill + s


def _align_column(cells: list[str], align: str) -> list[str]:
    """Cells padded to a common width; numbers line up on the decimal point."""
    if align == "auto":
        if all(not c or _NUMERIC_CELL.fullmatch(c) for c in cells):
            heads = [c.partition(".")[0] for c in cells]
            tails = [c[len(h) :] for c, h in zip(cells, heads, strict=True)]
            lw, rw = max(map(len, heads)), max(map(len, tails))
            return [
                h.rjust(lw) + t.ljust(rw) for h, t in zip(heads, tails, strict=True)
            ]
        align = ">"
    width = max(map(_width, cells))
    return [_pad(c, width, align) for c in cells]


def _bracket(ch: str, height: int) -> list[str]:
    """A delimiter drawn over `height` rows."""
    tall = _TALL.get(ch)
    if tall is None or height == 1:
        return [ch] * height
    column = [tall[0]] + [tall[1]] * (height - 2) + [tall[2]]
    if ch in "{}" and height >= 3:
        column[(height - 1) // 2] = "⎨" if ch == "{" else "⎬"
    return column


def _grid(
    rows: list[list[str]], left: str, right: str, aligns: Callable[[int], str], gap: str
) -> str:
    """Rows drawn as an aligned grid between tall delimiters."""
    ncols = max(map(len, rows))
    full = [row + [""] * (ncols - len(row)) for row in rows]
    columns = [_align_column([r[j] for r in full], aligns(j)) for j in range(ncols)]
    lines = [gap.join(col[i] for col in columns) for i in range(len(full))]
    lefts, rights = _bracket(left, len(lines)), _bracket(right, len(lines))
    return "\n".join(
        (f"{lb} " if lb else "") + line + (f" {rb}" if rb else "")
        for lb, line, rb in zip(lefts, lines, rights, strict=True)
    ).rstrip(" ")


def _hcat(parts: list[str]) -> str:
    """Multi-line blocks side by side, middle rows aligned."""
    blocks = [p.split("\n") for p in parts if p]
    height = max(map(len, blocks))
    middle = (height - 1) // 2
    rows = [""] * height
    for block in blocks:
        width = max(map(_width, block))
        top = middle - (len(block) - 1) // 2
        for r in range(height):
            k = r - top
            rows[r] += _pad(block[k] if 0 <= k < len(block) else "", width, "<")
    return "\n".join(row.rstrip() for row in rows)


def _matrix_gap(rows: list[list[str]]) -> str:
    """Column gap: compact for numbers and single symbols, wider for expressions."""
    compact = all(_width(c) <= 1 or _NUMERIC_CELL.fullmatch(c) for r in rows for c in r)
    return " " if compact else "  "


def _layout(
    env: str, rows: list[list[str]], grid: bool, delims: tuple[str, str] | None = None
) -> str:
    """An environment's rows, as a grid in display math or on one line inline."""
    if not rows:
        return ""
    if env == "cases":
        if grid:
            return _grid(rows, "{", "", lambda _: "<", "  ")
        return "{" + "; ".join(", ".join(c for c in row if c) for row in rows) + "}"
    if env in _MATRICES or delims is not None:
        left, right = delims or _MATRICES[env]
        if grid and len(rows) > 1:
            return _grid(rows, left, right, lambda _: "auto", _matrix_gap(rows))
        inner = ", ".join("[" + ", ".join(row) + "]" for row in rows)
        flat = inner if len(rows) == 1 else f"[{inner}]"
        return f"{left}{flat}{right}" if left in ("|", "‖") else flat
    # aligned, align*, gathered, split and unknown environments: & is an
    # alignment point, columns alternate right/left as in LaTeX.
    if grid and len(rows) > 1:
        return _grid(rows, "", "", lambda j: ">" if j % 2 == 0 else "<", "")
    return "; ".join("".join(row) for row in rows)


# --------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------

# First characters of tokens that atom() must handle ("" is the end sentinel).
_ACTIVE = frozenset(("", *"\\{}^_&'~"))
_SCRIPT_TOKENS = frozenset(("^", "_", "\\limits", "\\nolimits"))
_BARE_MATRIX_OPENINGS = [
    ["\\begin", "{", env, "}"] for env in ("matrix", "smallmatrix", "array")
]
_ARG_STOPS = frozenset({"}", "&", "\\\\", "\\end", "^", "_"})


class _Parser:
    """Recursive-descent renderer over LaTeX tokens."""

    __slots__ = ("depth", "display", "literal", "pos", "toks", "words")

    def __init__(self, toks: list[str], display: bool, depth: int = 0) -> None:
        self.toks = [*toks, ""]  # the sentinel "" marks the end
        # literal[i]: token i renders as itself and takes no script (fast path)
        self.literal = [
            tok[:1] not in _ACTIVE and nxt not in _SCRIPT_TOKENS
            for tok, nxt in zip(self.toks, [*self.toks[1:], ""], strict=True)
        ]
        self.pos = 0
        self.depth = depth
        self.display = display
        self.words = 0  # multi-letter words rendered so far (see script_arg)

    # -- token access -------------------------------------------------------

    def peek(self) -> str:
        """The next token, or '' at the end."""
        return self.toks[self.pos]

    def take(self) -> str:
        """Consume and return the next token ('' at the end)."""
        tok = self.peek()
        self.pos += bool(tok)
        return tok

    def enter(self) -> None:
        """Go one level deeper, refusing nesting that would exhaust the stack."""
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _TooDeep

    def grid_here(self) -> bool:
        """Whether an environment here is drawn as a multi-line grid."""
        return self.display and self.depth == 0

    # -- structure ----------------------------------------------------------

    def seq(self, in_group: bool, in_env: bool) -> str:
        """Render atoms until a closing brace, an environment separator, or the end."""
        pieces: list[_Piece] = []
        toks, literal = self.toks, self.literal
        while tok := toks[self.pos]:
            if literal[self.pos]:  # a run of plain characters renders as itself
                start = self.pos
                while literal[self.pos]:
                    self.pos += 1
                pieces.append(_Piece("".join(toks[start : self.pos])))
                continue
            if tok == "}" and not in_group:
                self.pos += 1  # a stray } is dropped
                continue
            if tok == "}" or (in_env and tok in ("&", "\\\\", "\\end")):
                break
            pieces.append(self.scripts(self.atom()))
        return _join(pieces)

    def braced(self) -> str:
        """Render a {…} group (the next token is `{`)."""
        self.pos += 1
        self.enter()
        text = self.seq(in_group=True, in_env=False)
        if self.peek() == "}":
            self.pos += 1
        self.depth -= 1
        return text

    def arg(self) -> str:
        """Render one macro argument: a group, a command or a single character."""
        tok = self.peek()
        if not tok or tok in _ARG_STOPS:
            return ""
        if tok == "{":
            return self.braced()
        if tok[0] == "\\":
            self.enter()
            text = self.atom().text
            self.depth -= 1
            return text
        return self.first_char(tok)

    def first_char(self, tok: str) -> str:
        """Consume one character of tok: TeX reads `\\frac12` as 1 and 2."""
        if len(tok) > 1:
            self.toks[self.pos] = tok[1:]
            return tok[0]
        self.pos += 1
        return "′" if tok == "'" else tok

    def script_arg(self) -> _Script:
        """Render a script argument, noting whether it holds a word."""
        words = self.words
        text = self.arg()
        return text, self.words != words

    def word(self, text: str, kind: _Kind = _Kind.ORD) -> _Piece:
        """A piece that may be a multi-letter word (\\max, \\text{…})."""
        if sum(c.isalpha() for c in text) > 1:
            self.words += 1
        return _Piece(text, kind)

    def raw_arg(self) -> str:
        """One argument as raw source (for \\text and environment names)."""
        tok = self.peek()
        if tok != "{":
            if not tok or tok in _ARG_STOPS:
                return ""
            if tok[0] == "\\":
                self.pos += 1
                return tok
            return self.first_char(tok)
        self.pos += 1
        level, out = 1, []
        while tok := self.take():
            level += (tok == "{") - (tok == "}")
            if level == 0:
                break
            out.append(tok)
        return "".join(out)

    def optional(self) -> str | None:
        """Render a [..] optional argument if one follows."""
        if self.peek() != "[":
            return None
        start = end = self.pos + 1
        level = 0
        last = len(self.toks) - 1  # the sentinel
        while end < last and not (self.toks[end] == "]" and level == 0):
            level += (self.toks[end] == "{") - (self.toks[end] == "}")
            end += 1
        self.pos = min(end + 1, last)
        self.enter()
        inner = _Parser(self.toks[start:end], False, self.depth)
        text = inner.seq(in_group=False, in_env=False)
        self.depth -= 1
        return text

    def atom(self) -> _Piece:
        """Render the next atom, without its scripts."""
        tok = self.peek()
        if not tok or tok in ("^", "_"):
            return _EMPTY  # the end, or a script with no base
        if tok == "{":
            return _Piece(self.braced(), _Kind.GROUP)
        self.pos += 1
        if tok[0] == "\\":
            return self.command(tok[1:])
        return _Piece({"'": "′", "~": " ", "&": ""}.get(tok, tok))

    def scripts(self, base: _Piece) -> _Piece:
        """Attach any following _ and ^ to base."""
        sub = sup = None
        while (tok := self.toks[self.pos]) in _SCRIPT_TOKENS:
            if tok in ("\\limits", "\\nolimits"):
                self.pos += 1  # these sit between ∑ and its scripts
            elif tok == "_" and sub is None:
                self.pos += 1
                sub = self.script_arg()
            elif tok == "^" and sup is None:
                self.pos += 1
                sup = self.script_arg()
            else:
                break
        return base if sub is None and sup is None else _attach(base, sub, sup)

    def command(self, name: str) -> _Piece:
        """Render a control sequence (its arguments are consumed here)."""
        symbol = _escape(name)
        if symbol is not None:
            return _Piece(symbol)
        if "{" in name:  # a whole \\text{…} token, see _TOKEN
            return self.word(_text_mode(name[name.index("{") + 1 : -1]))
        if name in _BIG_OPERATORS:
            return _Piece(_BIG_OPERATORS[name], _Kind.BIG)
        if name in _OPERATOR_NAMES:
            return self.word(name, _Kind.OP)
        if name in _FONTS:
            return _Piece(self.arg().translate(_FONTS[name]))
        if name in _ACCENTS:
            return _Piece(_accented(name, self.arg()))
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, name)
        if name in _IGNORED:
            return _EMPTY
        return self.word(name)  # unknown: the name is still the most readable thing

    # -- command handlers ---------------------------------------------------

    def frac(self, _name: str) -> _Piece:
        """\\frac{a}{b} and variants."""
        num = self.arg()
        return _fraction(num, self.arg())

    def binom(self, _name: str) -> _Piece:
        """\\binom{n}{k} as C(n,k)."""
        n = self.arg()
        return _Piece(f"C({n},{self.arg()})")

    def sqrt(self, _name: str) -> _Piece:
        """\\sqrt[k]{x}."""
        index = self.optional()
        return _Piece(_root(index, self.arg()))

    def plain(self, _name: str) -> _Piece:
        """Font switches without a Unicode alphabet: keep the content."""
        return self.word(self.arg())

    def braces(self, _name: str) -> _Piece:
        """\\underbrace{…} and friends: the content, bracketed if it takes a script."""
        return _Piece(self.arg(), _Kind.GROUP)

    def text(self, _name: str) -> _Piece:
        """\\text{…}: spaces are kept."""
        return self.word(_text_mode(self.raw_arg()))

    def operator(self, _name: str) -> _Piece:
        """\\operatorname{X} and \\mathop{X}."""
        if self.peek() == "*":
            self.pos += 1
        return self.word(self.arg(), _Kind.OP)

    def drop_arg(self, name: str) -> _Piece:
        """Commands whose argument is not content (\\label, \\color, \\hspace)."""
        self.raw_arg()
        return _Piece(" ") if name == "hspace" else _EMPTY

    def second_arg(self, _name: str) -> _Piece:
        """\\textcolor{c}{x}: keep x."""
        self.raw_arg()
        return _Piece(self.arg())

    def negate(self, _name: str) -> _Piece:
        """\\not= and friends."""
        body = self.arg()
        return _Piece(_NEGATED.get(body, body + "\u0338" if body else ""))

    def stack(self, name: str) -> _Piece:
        """\\overset{a}{b} / \\underset{a}{b} as b with a super/subscript."""
        extra = self.script_arg()
        base = _Piece(self.arg())
        if name == "underset":
            return _attach(base, extra, None)
        return _attach(base, None, extra)

    def pmod(self, _name: str) -> _Piece:
        """\\pmod{n}."""
        return _Piece(f" (mod {self.arg()})")

    def delimiter(self, name: str) -> _Piece:
        """\\left / \\right: the delimiter renders itself; `.` is invisible."""
        if self.peek() == ".":
            self.pos += 1
        elif name == "left":
            return self.delimited_matrix() or _EMPTY
        return _EMPTY

    def delimited_matrix(self) -> _Piece | None:
        """\\left( \\begin{matrix}…\\end{matrix} \\right) drawn as one matrix."""
        ahead = self.toks[self.pos + 1 : self.pos + 5]
        if ahead not in _BARE_MATRIX_OPENINGS:
            return None  # checked before consuming anything, so nothing to undo
        opening = self.delimiter_token()
        self.pos += len(ahead)
        env = ahead[2]
        if env == "array":
            self.raw_arg()  # column specification
        rows = self.rows()
        closing = ""
        if self.peek() == "\\right":
            self.pos += 1
            closing = self.delimiter_token()
        if opening == "{" and not closing:
            env = "cases"  # \left\{ \begin{array} … \right. is a case split
        return _Piece(_layout(env, rows, self.grid_here(), (opening, closing)))

    def delimiter_token(self) -> str:
        """Consume the delimiter after \\left or \\right; `.` is invisible."""
        tok = self.take()
        if tok.startswith("\\"):
            return _escape(tok[1:]) or ""
        return "" if tok == "." else tok

    def begin(self, _name: str) -> _Piece:
        """\\begin{env} … \\end{env}."""
        env = self.raw_arg().strip()
        if env == "array":
            self.raw_arg()  # column specification
        grid = self.grid_here()
        return _Piece(_layout(env, self.rows(), grid))

    def end(self, _name: str) -> _Piece:
        """A stray \\end{…}."""
        self.raw_arg()
        return _EMPTY

    def rows(self) -> list[list[str]]:
        """Cells of an environment body up to its \\end, rendered inline."""
        self.enter()
        rows: list[list[str]] = []
        cells: list[str] = []
        while True:
            cells.append(self.seq(in_group=False, in_env=True).strip())
            tok = self.take()
            if tok == "&":
                continue
            rows.append(cells)
            cells = []
            if tok == "\\\\":
                self.optional()  # \\[4pt] spacing
                continue
            if tok == "\\end":
                self.raw_arg()
            break
        self.depth -= 1
        while rows and not any(rows[-1]):
            rows.pop()  # a trailing \\ leaves an empty row
        return rows


_Handler = Callable[[_Parser, str], _Piece]
_HANDLERS: dict[str, _Handler] = {
    **dict.fromkeys(("frac", "dfrac", "tfrac", "cfrac"), _Parser.frac),
    **dict.fromkeys(("binom", "dbinom", "tbinom"), _Parser.binom),
    "sqrt": _Parser.sqrt,
    **dict.fromkeys(
        "mathrm mathit mathsf mathtt mathnormal mathord mathbin mathrel mathopen "
        "mathclose mathpunct mathinner smash".split(),
        _Parser.plain,
    ),
    **dict.fromkeys(("boxed", "underbrace", "overbrace", "cancel"), _Parser.braces),
    **dict.fromkeys(_TEXT_COMMANDS, _Parser.text),
    **dict.fromkeys(("operatorname", "mathop"), _Parser.operator),
    **dict.fromkeys(
        "label tag color hspace vspace phantom vphantom hphantom".split(),
        _Parser.drop_arg,
    ),
    "textcolor": _Parser.second_arg,
    "not": _Parser.negate,
    **dict.fromkeys(("overset", "stackrel", "underset"), _Parser.stack),
    "pmod": _Parser.pmod,
    **dict.fromkeys(("left", "right"), _Parser.delimiter),
    "begin": _Parser.begin,
    "end": _Parser.end,
}

# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _render(tex: str, display: bool) -> str:
    """Render one expression; display mode may return several lines."""
    if not _MARKUP.search(tex):
        return _RELATION.sub(r" \1 ", "".join(tex.split())).strip()  # plain `x+1`: TeX's own spacing
    try:
        out = _Parser(_TOKEN.findall(tex), display).seq(in_group=False, in_env=False)
    except _TooDeep:
        return tex  # pathological nesting: showing the source beats crashing
    if "\n" in out:
        return "\n".join(line.rstrip() for line in out.strip("\n").split("\n"))
    # TeX spaces relations and × itself; without that, `d×V=512×37,000` is hard to read.
    return _RELATION.sub(r" \1 ", out).strip()


def latex_to_unicode(tex: str) -> str:
    """Render one LaTeX math expression (without `$`) as one line of Unicode."""
    return _render(tex, False)


def _display_block(m: re.Match[str]) -> str:
    """A $$…$$ span as its own line(s), indented by four spaces."""
    source = m.string
    line_start = source.rfind("\n", 0, m.start()) + 1
    lead = source[line_start : m.start()]
    line_end = source.find("\n", m.end())
    tail = source[m.end() : len(source) if line_end < 0 else line_end]
    # Text before the block on its line: break the line.  Only indentation
    # (a list item, say): repeat it on every row so grids stay aligned.
    prefix, indent = ("\n", "") if lead.strip() else ("", lead)
    body = _render(m["display"], True).split("\n")
    block = ("\n" + indent).join(f"    {line}".rstrip() for line in body)
    return prefix + block + ("\n" if tail.strip() else "")


def _replace(m: re.Match[str]) -> str:
    """Render a math span; code, escapes and plain dollars pass through."""
    if m["display"] is not None and m["display"].strip():
        return _display_block(m)
    if m["inline"] is not None:
        return latex_to_unicode(m["inline"])
    return m[0]


def render_math(markdown: str) -> str:
    """Replace every `$…$` and `$$…$$` span in Markdown with Unicode."""
    if "$" not in markdown:
        return markdown
    return _MARKDOWN.sub(_replace, markdown)
