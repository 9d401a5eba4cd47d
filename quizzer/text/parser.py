"""The LaTeX maths tokeniser and recursive-descent parser behind mathtext.

Owns the grammar: tokens, groups, arguments, scripts, environments' rows and
what each command does with its arguments (``_HANDLERS``).  It turns tokens
into ``layout.Piece``s and leaves spacing and bracketing to ``layout``, symbols
to ``symbols`` and grids to ``grid``.  ``render_expression`` is its one entry
point; ``TooDeep`` is raised rather than exhausting the stack.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from quizzer.text.grid import layout_environment
from quizzer.text.layout import EMPTY, Kind, Piece, Script, accented, attach, fraction, join, root
from quizzer.text.symbols import ACCENTS, BIG_OPERATORS, FONTS, IGNORED, NEGATED, OPERATOR_NAMES, escape, text_mode

# Tokens, with the whitespace TeX ignores in math dropped: a \text{…} command
# whole (its spaces matter), a command, a run of ASCII letters/digits (split
# again where TeX reads one character), or any single character.
_TEXT_COMMANDS = (
    "text textrm textit textbf textsf texttt textnormal textup mbox hbox emph".split()
)
_BRACED = r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"  # up to one level of nesting
_TEXT_CALL = rf"\\(?:{'|'.join(_TEXT_COMMANDS)})\s*{_BRACED}"
_TOKEN = re.compile(rf"\s*({_TEXT_CALL}|\\(?:[A-Za-z]+|.)?|[A-Za-z0-9]+|\S)", re.DOTALL)

_MAX_DEPTH = 60

# First characters of tokens that atom() must handle ("" is the end sentinel).
_ACTIVE = frozenset(("", *"\\{}^_&'~"))
_SCRIPT_TOKENS = frozenset(("^", "_", "\\limits", "\\nolimits"))
_BARE_MATRIX_OPENINGS = [
    ["\\begin", "{", env, "}"] for env in ("matrix", "smallmatrix", "array")
]
_ARG_STOPS = frozenset({"}", "&", "\\\\", "\\end", "^", "_"})


class TooDeep(Exception):
    """Nesting too deep to render safely within the recursion limit."""


def render_expression(tex: str, display: bool) -> str:
    """Tokenise and render one expression; raises TooDeep on pathological nesting."""
    return _Parser(_TOKEN.findall(tex), display).seq(in_group=False, in_env=False)


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
            raise TooDeep

    def grid_here(self) -> bool:
        """Whether an environment here is drawn as a multi-line grid."""
        return self.display and self.depth == 0

    # -- structure ----------------------------------------------------------

    def seq(self, in_group: bool, in_env: bool) -> str:
        """Render atoms until a closing brace, an environment separator, or the end."""
        pieces: list[Piece] = []
        toks, literal = self.toks, self.literal
        while tok := toks[self.pos]:
            if literal[self.pos]:  # a run of plain characters renders as itself
                start = self.pos
                while literal[self.pos]:
                    self.pos += 1
                pieces.append(Piece("".join(toks[start : self.pos])))
                continue
            if tok == "}" and not in_group:
                self.pos += 1  # a stray } is dropped
                continue
            if tok == "}" or (in_env and tok in ("&", "\\\\", "\\end")):
                break
            pieces.append(self.scripts(self.atom()))
        return join(pieces)

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

    def script_arg(self) -> Script:
        """Render a script argument, noting whether it holds a word."""
        words = self.words
        text = self.arg()
        return text, self.words != words

    def word(self, text: str, kind: Kind = Kind.ORD) -> Piece:
        """A piece that may be a multi-letter word (\\max, \\text{…})."""
        if sum(c.isalpha() for c in text) > 1:
            self.words += 1
        return Piece(text, kind)

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

    def atom(self) -> Piece:
        """Render the next atom, without its scripts."""
        tok = self.peek()
        if not tok or tok in ("^", "_"):
            return EMPTY  # the end, or a script with no base
        if tok == "{":
            return Piece(self.braced(), Kind.GROUP)
        self.pos += 1
        if tok[0] == "\\":
            return self.command(tok[1:])
        return Piece({"'": "′", "~": " ", "&": ""}.get(tok, tok))

    def scripts(self, base: Piece) -> Piece:
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
        return base if sub is None and sup is None else attach(base, sub, sup)

    def command(self, name: str) -> Piece:
        """Render a control sequence (its arguments are consumed here)."""
        symbol = escape(name)
        if symbol is not None:
            return Piece(symbol)
        if "{" in name:  # a whole \\text{…} token, see _TOKEN
            return self.word(text_mode(name[name.index("{") + 1 : -1]))
        if name in BIG_OPERATORS:
            return Piece(BIG_OPERATORS[name], Kind.BIG)
        if name in OPERATOR_NAMES:
            return self.word(name, Kind.OP)
        if name in FONTS:
            return Piece(self.arg().translate(FONTS[name]))
        if name in ACCENTS:
            return Piece(accented(name, self.arg()))
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, name)
        if name in IGNORED:
            return EMPTY
        return self.word(name)  # unknown: the name is still the most readable thing

    # -- command handlers ---------------------------------------------------

    def frac(self, _name: str) -> Piece:
        """\\frac{a}{b} and variants."""
        num = self.arg()
        return fraction(num, self.arg())

    def binom(self, _name: str) -> Piece:
        """\\binom{n}{k} as C(n,k)."""
        n = self.arg()
        return Piece(f"C({n},{self.arg()})")

    def sqrt(self, _name: str) -> Piece:
        """\\sqrt[k]{x}."""
        index = self.optional()
        return Piece(root(index, self.arg()))

    def plain(self, _name: str) -> Piece:
        """Font switches without a Unicode alphabet: keep the content."""
        return self.word(self.arg())

    def braces(self, _name: str) -> Piece:
        """\\underbrace{…} and friends: the content, bracketed if it takes a script."""
        return Piece(self.arg(), Kind.GROUP)

    def text(self, _name: str) -> Piece:
        """\\text{…}: spaces are kept."""
        return self.word(text_mode(self.raw_arg()))

    def operator(self, _name: str) -> Piece:
        """\\operatorname{X} and \\mathop{X}."""
        if self.peek() == "*":
            self.pos += 1
        return self.word(self.arg(), Kind.OP)

    def drop_arg(self, name: str) -> Piece:
        """Commands whose argument is not content (\\label, \\color, \\hspace)."""
        self.raw_arg()
        return Piece(" ") if name == "hspace" else EMPTY

    def second_arg(self, _name: str) -> Piece:
        """\\textcolor{c}{x}: keep x."""
        self.raw_arg()
        return Piece(self.arg())

    def negate(self, _name: str) -> Piece:
        """\\not= and friends."""
        body = self.arg()
        return Piece(NEGATED.get(body, body + "\u0338" if body else ""))

    def stack(self, name: str) -> Piece:
        """\\overset{a}{b} / \\underset{a}{b} as b with a super/subscript."""
        extra = self.script_arg()
        base = Piece(self.arg())
        if name == "underset":
            return attach(base, extra, None)
        return attach(base, None, extra)

    def pmod(self, _name: str) -> Piece:
        """\\pmod{n}."""
        return Piece(f" (mod {self.arg()})")

    def delimiter(self, name: str) -> Piece:
        """\\left / \\right: the delimiter renders itself; `.` is invisible."""
        if self.peek() == ".":
            self.pos += 1
        elif name == "left":
            return self.delimited_matrix() or EMPTY
        return EMPTY

    def delimited_matrix(self) -> Piece | None:
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
        return Piece(layout_environment(env, rows, self.grid_here(), (opening, closing)))

    def delimiter_token(self) -> str:
        """Consume the delimiter after \\left or \\right; `.` is invisible."""
        tok = self.take()
        if tok.startswith("\\"):
            return escape(tok[1:]) or ""
        return "" if tok == "." else tok

    def begin(self, _name: str) -> Piece:
        """\\begin{env} … \\end{env}."""
        env = self.raw_arg().strip()
        if env == "array":
            self.raw_arg()  # column specification
        grid = self.grid_here()
        return Piece(layout_environment(env, self.rows(), grid))

    def end(self, _name: str) -> Piece:
        """A stray \\end{…}."""
        self.raw_arg()
        return EMPTY

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


_Handler = Callable[[_Parser, str], Piece]
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
