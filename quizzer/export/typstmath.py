"""Convert LaTeX math, as the question templates write it, into typst math.

typst's math syntax differs from LaTeX in ways that matter for correctness, not just looks:
a run of letters is one identifier (``QK`` would be an unknown variable), ``/`` makes a
fraction, ``,`` and ``;`` separate function arguments and matrix cells, and spaces around
text are significant.  So the converter parses the LaTeX (a small recursive-descent parser
over its tokens) and writes every atom separately: letters apart, ``/`` and ``,`` escaped,
words as strings glued to their neighbours, commands as typst functions or Unicode symbols.

Covered: fractions, roots, scripts and primes, matrices (``bmatrix`` & co.), ``cases`` and
``aligned``, ``\\left``/``\\right``, accents, font commands (``\\mathbf``, ``\\mathrm``, ``\\rm``,
``\\mathbb``, …), ``\\text``-like commands, operator names, braces, Greek letters and the usual
relations and operators.  An unknown command is written as its name in upright text, or, with
``strict=True`` (the tests use it on every bundled template), raises :class:`MathConversionError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from quizzer.text.symbols import SYMBOLS as _UNICODE_SYMBOLS  # the terminal renderer's LaTeX→Unicode table


class MathConversionError(ValueError):
    """LaTeX the converter does not understand (raised in strict mode only)."""


# Where typst's own symbol differs from the terminal's Unicode stand-in, or spacing is needed.
_SYMBOLS = {
    **_UNICODE_SYMBOLS,
    "top": "⊤", "cdot": "⋅", "cdotp": "⋅", "mid": "∣", "dots": "…", "ldots": "…", "cdots": "⋯",
    ",": "thin", ":": "med", ">": "med", ";": "thick", " ": "space", "quad": "quad", "qquad": "wide",
    "!": "#h(-0.17em)", "colon": ":", "|": "‖", "backslash": "\\\\",
    "{": "\\{", "}": "\\}", "lbrace": "\\{", "rbrace": "\\}", "\\": "\\ ", "%": "%", "$": "\\$",
    "&": "\\&", "_": "\\_", "#": "\\#",
}  # fmt: skip
_BIG_OPERATORS = {"sum": "sum", "prod": "product", "coprod": "product.co", "int": "integral",
                  "oint": "integral.cont", "bigcup": "union.big", "bigcap": "sect.big"}
_OPERATOR_NAMES = frozenset(
    "log ln lg exp sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth arg deg dim "
    "hom ker mod Pr det gcd lcm max min sup inf lim liminf limsup argmax argmin".split())
_LIMIT_OPERATORS = frozenset("max min sup inf lim liminf limsup det gcd lcm Pr argmax argmin".split())
_ACCENTS = {"hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde", "bar": "macron",
            "overline": "overline", "underline": "underline", "vec": "arrow", "overrightarrow": "arrow",
            "overleftarrow": "arrow.l",
            "dot": "dot", "ddot": "dot.double", "check": "caron", "breve": "breve"}
_FONTS = {"mathbf": "upright(bold({}))", "bm": "bold({})", "boldsymbol": "bold({})", "pmb": "bold({})",
          "mathbb": "bb({})", "Bbb": "bb({})", "mathcal": "cal({})", "mathscr": "scr({})",
          "mathfrak": "frak({})", "mathsf": "sans({})", "mathtt": "mono({})", "mathit": "italic({})",
          "mathrm": "upright({})", "mathnormal": "{}", "textbf": "bold({})", "textit": "italic({})",
          "texttt": "mono({})", "textsf": "sans({})"}
_TEXT_COMMANDS = frozenset("text textrm textnormal textup mbox hbox".split())
_SWITCHES = {"rm": "upright({})", "bf": "upright(bold({}))", "it": "italic({})", "tt": "mono({})",
             "sf": "sans({})", "cal": "cal({})"}
_IGNORED = frozenset(
    "displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits big Big bigg Bigg bigl bigr "
    "Bigl Bigr biggl biggr Biggl Biggr bigm Bigm middle nonumber notag allowbreak strut mathstrut".split())
_MATRIX_DELIMITERS = {"matrix": "#none", "smallmatrix": "#none", "pmatrix": '"("', "bmatrix": '"["',
                      "Bmatrix": '"{"', "vmatrix": '"|"', "Vmatrix": '"‖"'}
_PAIRS = {"lVert": ("norm", "\\rVert"), "lvert": ("abs", "\\rvert"), "lfloor": ("floor", "\\rfloor"),
          "lceil": ("ceil", "\\rceil")}
_DELIMITERS = {"(": "(", ")": ")", "[": "[", "]": "]", "|": "|", ".": "", "\\{": "\\{", "\\}": "\\}",
               "\\lbrace": "\\{", "\\rbrace": "\\}", "\\|": "‖", "\\lVert": "‖", "\\rVert": "‖", "\\Vert": "‖",
               "\\vert": "|", "\\lvert": "|", "\\rvert": "|", "\\langle": "⟨", "\\rangle": "⟩",
               "\\lfloor": "⌊", "\\rfloor": "⌋", "\\lceil": "⌈", "\\rceil": "⌉", "/": "\\/"}
# Characters with a meaning of their own in typst math; escaped so they stay characters.
_TYPST_SPECIAL = frozenset("\\#$\"@/,;&_^'`~*")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9 .\-:]*")

_TOKEN = re.compile(r"""
      \\(?:[A-Za-z]+\*?|.)                 # a command (\frac, \operatorname*) or an escape (\, \{)
    | \d+(?:\{,\}\d{3})*(?:\.\d+)?          # a number, with LaTeX's {,} thousands separators
    | \.\d+
    | \S                                   # any other single character
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class _Piece:
    """A converted atom; text pieces are glued to their neighbours (spaces around strings show)."""

    code: str
    text: bool = False


def latex_to_typst(tex: str, *, strict: bool = False) -> str:
    """Typst math for one LaTeX expression (without the ``$`` delimiters).

    Outside strict mode, LaTeX that cannot be parsed at all is shown as its source in upright
    text: an odd formula in a new template must not stop a whole paper from printing.
    """
    try:
        return _convert(tex, strict)
    except MathConversionError:
        if strict:
            raise
        return _string(tex)


@lru_cache(maxsize=8192)
def _convert(tex: str, strict: bool) -> str:
    parser = _Parser(tex, strict)
    code = parser.sequence(stops=())
    if parser.peek():
        raise MathConversionError(f"unbalanced {parser.peek()!r} in {tex!r}")
    return code


class _Parser:
    """Recursive descent over LaTeX tokens; each method returns typst code."""

    def __init__(self, tex: str, strict: bool):
        self.tex, self.strict = tex, strict
        matches = list(_TOKEN.finditer(tex))
        self.tokens = [m.group() for m in matches]
        self.starts = [m.start() for m in matches]
        self.pos = 0

    # -- token access ---------------------------------------------------------------------------

    def peek(self) -> str:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ""

    def take(self) -> str:
        token = self.peek()
        self.pos += 1
        return token

    def expect(self, token: str) -> None:
        if self.take() != token:
            raise MathConversionError(f"expected {token!r} in {self.tex!r}")

    def unknown(self, what: str, name: str) -> _Piece:
        """Unsupported LaTeX: an error in strict mode, else its name as text (the most readable guess)."""
        if self.strict:
            raise MathConversionError(f"unsupported LaTeX {what} in {self.tex!r}")
        return _Piece(_string(name), text=True)

    # -- structure ------------------------------------------------------------------------------

    def sequence(self, stops: tuple[str, ...]) -> str:
        """Atoms with their scripts until a stop token (not consumed) or the end."""
        pieces: list[_Piece] = []
        while (token := self.peek()) and token not in stops:
            if token == "}" and "}" not in stops:
                raise MathConversionError(f"unbalanced '}}' in {self.tex!r}")
            if token in _SWITCHES_TOKENS:
                pieces.append(self.switch(stops))
                break
            pieces.append(self.scripts(self.atom()))
        return _join(pieces)

    def switch(self, stops: tuple[str, ...]) -> _Piece:
        """``{\\rm model}``: a font switch applies to the rest of its group."""
        wrapper = _SWITCHES[self.take()[1:]]
        start = self.pos
        code = self.sequence(stops)
        words = self.tokens[start:self.pos]
        if words and all(token.isalnum() for token in words):
            return _Piece(wrapper.replace("upright({})", "{}").format(_string("".join(words))), text=True)
        return _Piece(wrapper.format(code))

    def group(self) -> str:
        """A braced group's contents (the next token is ``{``)."""
        self.expect("{")
        code = self.sequence(stops=("}",))
        self.expect("}")
        return code

    def argument(self) -> str:
        """One macro argument: a group, a command with its own arguments, or one character."""
        token = self.peek()
        if token == "{":
            return self.group()
        if not token or token in ("}", "^", "_", "&"):
            raise MathConversionError(f"missing argument in {self.tex!r}")
        if token.startswith("\\"):
            return self.atom().code
        if token[0].isdigit() and len(token) > 1:  # \frac12: TeX reads one digit per argument
            self.tokens[self.pos] = token[1:]
            return token[0]
        return self.atom().code

    def raw_group(self) -> str:
        """A braced group as source text (for ``\\text`` and environment names)."""
        self.expect("{")
        start, depth = self.starts[self.pos - 1] + 1, 1
        while depth:
            token = self.take()
            if not token:
                raise MathConversionError(f"unclosed '{{' in {self.tex!r}")
            depth += (token == "{") - (token == "}")
        return self.tex[start:self.starts[self.pos - 1]]

    def atom(self) -> _Piece:
        token = self.take()
        if token == "{":
            self.pos -= 1
            return _Piece(self.group())
        if token.startswith("\\"):
            return self.command(token[1:])
        if token == "'":
            return _Piece("prime")
        if token == "~":
            return _Piece("space.nobreak")
        if token in _TYPST_SPECIAL:
            return _Piece("\\" + token)
        if "{,}" in token:
            return _Piece(_string(token.replace("{,}", ",")), text=True)  # 4{,}096: no space after the comma
        return _Piece(token)

    def scripts(self, base: _Piece) -> _Piece:
        """Attach primes, ``_`` and ``^`` (in any order) to ``base``."""
        code, attached = base.code or '""', False
        while (token := self.peek()) in ("_", "^", "'"):
            self.pos += 1
            if token == "'":
                code += "'"
            else:
                code += f"{token}({self.argument()})"
            attached = True
        return _Piece(code, base.text) if attached else base

    # -- commands -------------------------------------------------------------------------------

    def command(self, name: str) -> _Piece:
        if name in _PAIRS:  # before the symbols: \lVert alone would be a loose ‖
            return self.paired(name)
        if name in _SYMBOLS:
            return _Piece(_SYMBOLS[name])
        if name in _BIG_OPERATORS:
            return _Piece(_BIG_OPERATORS[name])
        if name in _OPERATOR_NAMES:
            return _Piece(_operator(name))
        if name in _IGNORED:
            return _Piece("")
        handler = _HANDLERS.get(name.rstrip("*"))
        if handler is not None:
            return handler(self, name)
        return self.unknown(f"command \\{name}", name)

    def fraction(self, name: str) -> _Piece:
        numerator = self.argument()
        code = f"frac({numerator}, {self.argument()})"
        return _Piece({"dfrac": f"display({code})", "tfrac": f"inline({code})"}.get(name, code))

    def binomial(self, _name: str) -> _Piece:
        top = self.argument()
        return _Piece(f"binom({top}, {self.argument()})")

    def root(self, _name: str) -> _Piece:
        if self.peek() != "[":
            return _Piece(f"sqrt({self.argument()})")
        self.pos += 1
        index = self.sequence(stops=("]",))
        self.expect("]")
        return _Piece(f"root({index}, {self.argument()})")

    def font(self, name: str) -> _Piece:
        """A font command; a plain word in an upright or text font becomes a string."""
        wrapper = _FONTS[name]
        if name != "mathrm" and not name.startswith("text"):
            return _Piece(wrapper.format(self.argument()))
        content = self.raw_group() if self.peek() == "{" else self.take()
        if _PLAIN_WORD.fullmatch(content) and len(content.strip()) > 1:
            return _Piece(wrapper.replace("upright({})", "{}").format(_string(content)), text=True)
        return _Piece(wrapper.format(_convert(content, self.strict)))

    def text(self, _name: str) -> _Piece:
        return _Piece(_string(self.raw_group()), text=True)

    def operator(self, name: str) -> _Piece:
        word = self.raw_group()
        return _Piece(_operator(word.strip(), limits=name.endswith("*")))

    def accent(self, name: str) -> _Piece:
        return _Piece(f"{_ACCENTS[name]}({self.argument()})")

    def brace(self, name: str) -> _Piece:
        """``\\underbrace{x}_{note}``: the note is the brace's annotation, not a subscript."""
        body = self.argument()
        script = "_" if name == "underbrace" else "^"
        if self.peek() == script:
            self.pos += 1
            return _Piece(f"{name}({body}, {self.argument()})")
        return _Piece(f"{name}({body})")

    def boxed(self, _name: str) -> _Piece:
        return _Piece(f"#box(stroke: 0.5pt, inset: 3pt, baseline: 3pt, ${self.argument()}$)")

    def left(self, _name: str) -> _Piece:
        opening = self.delimiter()
        body = self.sequence(stops=("\\right",))
        self.expect("\\right")
        closing = self.delimiter()
        if not (opening and closing):  # "\left( … \right.": typst would pair a bare "(" with lr's own and
            opening, closing = _lone(opening), _lone(closing)  # not typeset the paper ("unclosed delimiter")
        return _Piece(f"lr({opening} {body} {closing})")

    def paired(self, name: str) -> _Piece:
        """``\\lVert x \\rVert`` → ``norm(x)``: typst spaces a lone ``‖`` like an operator."""
        function, closing = _PAIRS[name]
        body = self.sequence(stops=(closing,))
        self.expect(closing)
        return _Piece(f"{function}({body})")

    def delimiter(self) -> str:
        token = self.take()
        if token not in _DELIMITERS:
            raise MathConversionError(f"unknown delimiter {token!r} in {self.tex!r}")
        return _DELIMITERS[token]

    def begin(self, _name: str) -> _Piece:
        environment = self.raw_group().strip()
        if environment == "array":
            self.raw_group()  # the column specification
        rows = self.rows()
        self.expect("\\end")
        if self.raw_group().strip() != environment:
            raise MathConversionError(f"\\begin{{{environment}}} closed by another \\end in {self.tex!r}")
        if environment in _MATRIX_DELIMITERS or environment == "array":
            cells = "; ".join(", ".join(row) for row in rows)
            return _Piece(f"mat(delim: {_MATRIX_DELIMITERS.get(environment, '#none')}, {cells})")
        if environment == "cases":
            return _Piece("cases(" + ", ".join(" & ".join(row) for row in rows) + ")")
        if environment in ("aligned", "align", "align*", "gathered", "split"):
            return _Piece(" \\ ".join(" & ".join(row) for row in rows))
        return self.unknown(f"environment {environment}", environment)

    def rows(self) -> list[list[str]]:
        """An environment body: rows split at ``\\\\``, cells at ``&``."""
        rows, cells = [], []
        while True:
            cells.append(self.sequence(stops=("&", "\\\\", "\\end")))
            separator = self.peek()
            if separator == "&":
                self.pos += 1
                continue
            rows.append(cells)
            cells = []
            if separator != "\\\\":
                break
            self.pos += 1
        if rows and rows[-1] == [""]:
            rows.pop()  # a trailing \\ before \end
        return rows

    def negation(self, _name: str) -> _Piece:
        return _Piece(self.argument() + "\u0338")


_SWITCHES_TOKENS = frozenset("\\" + name for name in _SWITCHES)

_HANDLERS = {
    **dict.fromkeys(("frac", "dfrac", "tfrac", "cfrac"), _Parser.fraction),
    **dict.fromkeys(("binom", "dbinom", "tbinom"), _Parser.binomial),
    "sqrt": _Parser.root,
    **dict.fromkeys(_FONTS, _Parser.font),
    **dict.fromkeys(_TEXT_COMMANDS, _Parser.text),
    **dict.fromkeys(("operatorname", "mathop"), _Parser.operator),
    **dict.fromkeys(_ACCENTS, _Parser.accent),
    **dict.fromkeys(("underbrace", "overbrace"), _Parser.brace),
    "boxed": _Parser.boxed,
    "left": _Parser.left,
    "begin": _Parser.begin,
    "not": _Parser.negation,
}


def _lone(delimiter: str) -> str:
    """A bracket without its partner, escaped: the same glyph, which typst does not pair."""
    return f"\\{delimiter}" if delimiter in ("(", ")", "[", "]") else delimiter


def _operator(word: str, *, limits: bool = False) -> str:
    limits = limits or word in _LIMIT_OPERATORS
    return f"op({_string(word)}{', limits: #true' if limits else ''})"


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _join(pieces: list[_Piece]) -> str:
    """Atoms apart (so letters never fuse into identifiers), but text glued to its neighbours."""
    out = ""
    previous_text = True
    for piece in pieces:
        if not piece.code:
            continue
        out += piece.code if (previous_text or piece.text) else " " + piece.code
        previous_text = piece.text
    return out
