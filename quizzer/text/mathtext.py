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

This module finds the maths in Markdown and spaces relations; `parser` reads
the LaTeX, `layout` joins the pieces, `grid` draws environments and `symbols`
holds the tables.  The parser is hand-written rather than pylatexenc's because
its latex2text flattens instead of laying out: `x^2` and `x_ij` stay as typed,
`\\frac{a+1}{b}` comes out as the wrong `a+1/b`, a matrix as `[ 1 2; 3 4 ]` and
an empty matrix raises.  Every rule above would stay ours, on top of a
dependency whose parser alone is several times slower than this whole renderer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from quizzer.text.parser import TooDeep, render_expression

__all__ = ["code_span", "latex_to_unicode", "render_math", "terminal_text"]

_RELATION = re.compile(r"\s*([=≈≤≥≠→∈×])\s*")
_MARKUP = re.compile(r"[\\^_{}'~&]")

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


@lru_cache(maxsize=4096)
def _render(tex: str, display: bool) -> str:
    """Render one expression; display mode may return several lines."""
    if not _MARKUP.search(tex):
        return _RELATION.sub(r" \1 ", "".join(tex.split())).strip()  # plain `x+1`: TeX's own spacing
    try:
        out = render_expression(tex, display)
    except TooDeep:
        return tex  # pathological nesting: showing the source beats crashing
    if "\n" in out:
        return "\n".join(line.rstrip() for line in out.strip("\n").split("\n"))
    # TeX spaces relations and × itself; without that, `d×V=512×37,000` is hard to read.
    return _RELATION.sub(r" \1 ", out).strip()


def latex_to_unicode(tex: str) -> str:
    """Render one LaTeX math expression (without `$`) as one line of Unicode."""
    return _render(tex, False)


_FENCE = "```text"


def _display_block(m: re.Match[str], fenced: bool = False) -> str:
    """A $$…$$ span as its own line(s), indented by four spaces; ``fenced``: inside a code fence marked
    ``text``, so a Markdown renderer keeps a block's rows (it joins indented lines that follow a list item into
    one paragraph) and never highlights the maths as program code (an unmarked block's language is guessed:
    ``1 + 2 + … + T`` was read as Python, its ``…`` on an error's red)."""
    source = m.string
    line_start = source.rfind("\n", 0, m.start()) + 1
    lead = source[line_start : m.start()]
    line_end = source.find("\n", m.end())
    tail = source[m.end() : len(source) if line_end < 0 else line_end]
    # Text before the block on its line: break the line.  Only indentation
    # (a list item, say): repeat it on every row so grids stay aligned.
    prefix, indent = ("\n", "") if lead.strip() else ("", lead)
    body = _render(m["display"], True).split("\n")
    if fenced:
        body = [_FENCE, *body, "```"]
    block = ("\n" + indent).join(f"{'' if line in (_FENCE, '```') else '    '}{line}".rstrip() for line in body)
    return prefix + block + ("\n" if tail.strip() else "")


def _replace(m: re.Match[str], fenced: bool = False) -> str:
    """Render a math span; code, escapes and plain dollars pass through."""
    if m["display"] is not None and m["display"].strip():
        return _display_block(m, fenced)
    if m["inline"] is not None:
        return latex_to_unicode(m["inline"])
    return m[0]


def render_math(markdown: str, *, fenced: bool = False) -> str:
    """Replace every `$…$` and `$$…$$` span in Markdown with Unicode.

    ``fenced``: display maths of several lines (a matrix) goes in a code fence, for text that a
    Markdown renderer shows next (the app); without it, the text is for a plain terminal."""
    if "$" not in markdown:
        return markdown
    return _MARKDOWN.sub(lambda m: _replace(m, fenced), markdown)


_CODE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,}).*?(?:^[ ]{0,3}\1[`~]*[ \t]*$|\Z)|(`+).+?(?<!`)\2(?!`)",
                   re.MULTILINE | re.DOTALL)
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", re.DOTALL)


def terminal_text(markdown: str) -> str:
    """Markdown for a plain terminal: maths as Unicode (``render_math``) and ``**bold**`` marks dropped,
    outside code, where ``x ** 2`` is code; code spans keep their backticks, the terminal's convention."""
    text = render_math(markdown)
    if "**" not in text:
        return text
    pieces, end = [], 0
    for code in _CODE.finditer(text):
        pieces += [_BOLD.sub(r"\1", text[end:code.start()]), code.group()]
        end = code.end()
    return "".join(pieces) + _BOLD.sub(r"\1", text[end:])


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, shown verbatim (``*`` and ``_`` stay themselves) in every format."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"
