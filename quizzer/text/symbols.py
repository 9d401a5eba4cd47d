"""What single LaTeX commands and characters become in Unicode: the tables behind mathtext.

Owns the character-level mapping: sub/superscript characters, Greek letters and
symbols (``SYMBOLS``, which ``quizzer.export.typstmath`` extends for typst), big
operators, operator names, ignored commands, accents, negations, roots and the
Mathematical Alphanumeric fonts; ``escape`` (one symbol command) and
``text_mode`` (the content of ``\\text{…}``).  No structure: that is the parser's.
"""

from __future__ import annotations

import re
import string

# --------------------------------------------------------------------------
# Character tables
# --------------------------------------------------------------------------

# Capitals other than T are left out on purpose: Q has no superscript form, so
# W^Q, W^K, W^V would otherwise render inconsistently, and small-capital
# superscripts are hard to tell from lowercase ones.
SUPERSCRIPT: dict[str, str] = dict(
    zip(
        "0123456789+-−=()/abcdefghijklmnoprstuvwxyzTαβγδεθφχᵀ′″∘",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᐟᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᵀᵅᵝᵞᵟᵋᶿᵠᵡᵀ′″°",
        strict=True,
    )
)
SUBSCRIPT: dict[str, str] = dict(
    zip(
        "0123456789+-−=()aehijklmnoprstuvxəβγρφχ",
        "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓₔᵦᵧᵨᵩᵪ",
        strict=True,
    )
)
# Characters that visually attach to the preceding symbol.
ATTACHED = frozenset(SUPERSCRIPT.values()) | frozenset(SUBSCRIPT.values())

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

SYMBOLS = _GREEK | {
    # operators and relations
    "cdot": "·", "cdotp": "·", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
    "ast": "∗", "star": "⋆", "circ": "∘", "bullet": "•", "odot": "⊙",
    "otimes": "⊗", "oplus": "⊕", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥",
    "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼", "simeq": "≃", "cong": "≅",
    "equiv": "≡", "propto": "∝", "ll": "≪", "gg": "≫", "lt": "<", "gt": ">",
    "coloneqq": "≔", "triangleq": "≜", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "gets": "←", "leftrightarrow": "↔", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "Leftrightarrow": "⇔", "implies": "⇒", "impliedby": "⇐",
    "iff": "⇔", "mapsto": "↦", "longrightarrow": "⟶", "Longrightarrow": "⟹", "Longleftarrow": "⟸",
    "Longleftrightarrow": "⟺", "longleftarrow": "⟵", "uparrow": "↑",
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

BIG_OPERATORS = {
    "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬",
    "iiint": "∭", "oint": "∮", "bigcup": "⋃", "bigcap": "⋂", "bigoplus": "⨁",
    "bigotimes": "⨂", "bigvee": "⋁", "bigwedge": "⋀", "bigodot": "⨀",
}  # fmt: skip

OPERATOR_NAMES = frozenset(
    "log ln lg exp max min sup inf lim liminf limsup sin cos tan cot sec csc "
    "arcsin arccos arctan sinh cosh tanh coth arg argmax argmin det dim ker "
    "gcd lcm deg hom Pr mod sgn tr diag rank Var Cov".split()
)

# Sizing, style and layout commands that carry no content of their own.
IGNORED = frozenset(
    "displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits "
    "displaylimits rm bf it cal sf tt mit mathstrut strut nonumber notag "
    "big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm "
    "biggm Biggm middle hline allowbreak nobreak relax centering".split()
)

ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
    "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7",
    "overrightarrow": "\u20d7", "overleftarrow": "\u20d6", "dot": "\u0307", "ddot": "\u0308",
    "check": "\u030c", "breve": "\u0306", "acute": "\u0301", "grave": "\u0300",
    "mathring": "\u030a", "underline": "\u0332",
}  # fmt: skip
# Over several characters these accents become a continuous line.
LINE_MARKS = {"\u0304": "\u0305", "\u0305": "\u0305", "\u0332": "\u0332"}

NEGATED = {
    "=": "≠", "∈": "∉", "≡": "≢", "<": "≮", ">": "≯", "≤": "≰", "≥": "≱",
    "⊂": "⊄", "⊆": "⊈", "∼": "≁", "|": "∤",
}  # fmt: skip

ROOTS = {"2": "√", "3": "∛", "4": "∜"}


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
FONTS: dict[str, dict[int, str]] = {
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

# --------------------------------------------------------------------------
# Symbol commands and \text{…} content
# --------------------------------------------------------------------------

_TEXT_TOKEN = re.compile(r"\\([A-Za-z]+|.?)|[{}~]|\s+", re.DOTALL)


def escape(name: str) -> str | None:
    """The rendering of a symbol command, or None; `\\` + newline is a space."""
    return SYMBOLS.get(" " if name.isspace() else name)


def _text_token(m: re.Match[str]) -> str:
    """One token of \\text{…} content."""
    if m[1] is not None:
        symbol = escape(m[1])
        return m[1] if symbol is None else symbol
    return "" if m[0] in ("{", "}") else " "


def text_mode(raw: str) -> str:
    """Render \\text{…} content: literal words, escapes resolved."""
    return _TEXT_TOKEN.sub(_text_token, raw)

