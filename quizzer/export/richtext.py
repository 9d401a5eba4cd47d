"""Question text — Markdown with ``$…$`` math, as templates write it — for each export format.

The text is parsed once by markdown-it (CommonMark, GFM tables, dollar math with pandoc's
rule: no space inside the dollars and no digit after the closing one, the rule the terminal
renderer uses too) and then rendered:

* as HTML with MathML (``latex2mathml``: renders offline in any current browser),
* as HTML with the LaTeX left in ``\\(…\\)`` / ``\\[…\\]`` for MathJax (Anki, Moodle),
* as typst markup with the math converted by :mod:`quizzer.export.typstmath`.

Raw HTML in a template is shown as text, never passed through.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any, Literal, cast

from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.dollarmath import dollarmath_plugin

from quizzer.export.typstmath import latex_to_typst

MathStyle = Literal["mathml", "mathjax"]


@functools.lru_cache(maxsize=4096)
def mathml(tex: str, *, display: bool) -> str:
    """MathML for ``tex`` as Chromium's MathML Core shows it: it ignores ``mathvariant`` (but "normal"),
    so styled letters become their Unicode characters, and it spaces a minus by its position only.
    The LaTeX is its ``alttext``: what a screen reader without MathML support reads (WCAG 1.1.1).
    Kept per formula: the same ones come back across a paper's questions and a template's seeds (half of
    the 3,078 that validating the bundled questions converts), and latex2mathml is pure Python."""
    from html import escape

    from latex2mathml.converter import convert

    converted = convert(_UNBRACED_STYLE.sub(r"\\\1{\2}", tex), display="block" if display else "inline")
    converted = _STYLED.sub(_unicode_styled, converted)
    converted = _MONOSPACE.sub(_monospace, converted)
    converted = _FUNCTION_THEN_ARGUMENT.sub(r'\1<mspace width="0.1667em"></mspace>', converted)
    converted = converted.replace("<math ", f'<math alttext="{escape(tex, quote=True)}" ', 1)
    return _SIGN_AFTER_OPENING.sub(r"\1<mrow><mo>&#x02212;</mo>\2</mrow>", converted)


# \mathbf 1, \mathbb R: latex2mathml styles only a braced argument as the letter it means.
_UNBRACED_STYLE = re.compile(r"\\(mathbb|mathbf|mathcal|mathrm|mathsf|boldsymbol|texttt)\s+([A-Za-z0-9])")
_STYLED = re.compile(r'<(mi|mn) mathvariant="(bold|double-struck|bold-italic)">([^<]+)</\1>')
_MONOSPACE = re.compile(r'<mtext mathvariant="monospace">([^<]*)</mtext>')
_TEX_ESCAPE = re.compile(r"\\([_%&#$])")
_FUNCTIONS = "log|ln|exp|sin|cos|tan|tanh|max|min|arg ?max|arg ?min|softmax|Var|E|LN|det|sup|inf"
# A function name straight before a letter or number (\max e, \log p): Chromium would print "maxe".
_FUNCTION_THEN_ARGUMENT = re.compile(rf"(<m[io]>(?:{_FUNCTIONS})</m[io]>)(?=(?:<mrow>)*<(?:m[in][ >]|msub>|msup>))")
# A minus after an opening bracket, a comma or "=" is a sign: spaced as subtraction unless it starts a row.
_SIGN_AFTER_OPENING = re.compile(
    r"(<mo[^>]*>(?:\[|\(|&#x0005B;|&#x00028;|,|&#x0002C;|&#x0003D;)</mo>)<mo>&#x02212;</mo>(<m[in]>[^<]+</m[in]>|<mo>&#x0221E;</mo>)")
_DOUBLE_STRUCK = {"C": "\u2102", "H": "\u210d", "N": "\u2115", "P": "\u2119", "Q": "\u211a", "R": "\u211d",
                  "Z": "\u2124"}


def _monospace(match: re.Match[str]) -> str:
    """Code in maths (``\\texttt{scaled\\_var}``) in a monospace font, its TeX escapes undone."""
    code = _TEX_ESCAPE.sub(lambda escaped: escaped[1], match[1])
    return f'<mtext style="font-family: monospace">{code}</mtext>'


def _unicode_styled(match: re.Match[str]) -> str:
    """A bold digit or a double-struck letter as its own Unicode character; other styles are dropped."""
    tag, style, text = match[1], match[2], html.unescape(match[3])
    if len(text) == 1 and style == "bold" and text.isdigit():
        text = chr(0x1D7CE + int(text))
    elif len(text) == 1 and style == "bold" and text.isascii() and text.isalpha():
        text = chr((0x1D400 if text.isupper() else 0x1D41A) + ord(text.upper() if text.isupper() else text) -
                   ord("A" if text.isupper() else "a"))
    elif len(text) == 1 and style == "double-struck" and text in _DOUBLE_STRUCK:
        text = _DOUBLE_STRUCK[text]
    elif len(text) == 1 and style == "double-struck" and text.isascii() and text.isalpha():
        text = chr((0x1D538 if text.isupper() else 0x1D552) + ord(text) - ord("A" if text.isupper() else "a"))
    return f"<{tag}>{html.escape(text, quote=False)}</{tag}>"


def _mathml(tex: str, options: dict[str, Any]) -> str:
    return mathml(tex, display=options["display_mode"])


def _mathjax(tex: str, options: dict[str, Any]) -> str:
    opening, closing = (r"\[", r"\]") if options["display_mode"] else (r"\(", r"\)")
    return html.escape(f"{opening}{tex}{closing}", quote=False)


_MATH_RENDERERS: dict[str, Callable[[str, dict[str, Any]], str]] = {"mathml": _mathml, "mathjax": _mathjax}


@functools.cache
def _markdown(math: MathStyle = "mathml") -> MarkdownIt:
    parser = (MarkdownIt("commonmark", {"html": False}).enable("table")
              .use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False,
                   double_inline=True, renderer=_MATH_RENDERERS[math]))
    # $$…$$ inside a paragraph: the plugin wraps it in a <div>, which may not sit inside a <p>.
    parser.add_render_rule("math_inline_double", lambda self, tokens, index, options, env: (
        f'<span class="math display">{_MATH_RENDERERS[math](tokens[index].content, {"display_mode": True})}</span>'))
    return parser


def to_html(text: str, *, math: MathStyle) -> str:
    """Block HTML (paragraphs, lists, tables, code) for a prompt or a solution.  A code block may
    scroll sideways on a screen, so it takes the keyboard focus (WCAG 2.1.1; axe's
    scrollable-region-focusable); raw HTML is off, so every ``<pre>`` is markdown-it's own."""
    rendered = cast(str, _markdown(math).render(text))  # markdown-it types its renderer's output as Any
    return rendered.replace("<pre>", '<pre tabindex="0">')


def to_html_inline(text: str, *, math: MathStyle) -> str:
    """Inline HTML for a short text (a choice, an answer): no surrounding paragraph."""
    return cast(str, _markdown(math).renderInline(text))


def math_spans(text: str) -> list[tuple[str, bool]]:
    """Every math span of ``text`` as (LaTeX, display?) in reading order."""
    return [(node.content, node.type != "math_inline")
            for node in _walk(SyntaxTreeNode(_markdown().parse(text))) if node.type.startswith("math_")]


def _walk(node: SyntaxTreeNode) -> list[SyntaxTreeNode]:
    return [node] + [descendant for child in node.children for descendant in _walk(child)]


# --- typst --------------------------------------------------------------------------------------

def to_typst(text: str) -> str:
    """Typst markup for a prompt or a solution."""
    return _typst(SyntaxTreeNode(_markdown().parse(text))).strip()


def to_typst_inline(text: str) -> str:
    """Typst markup for a short text that sits inside a line (a choice, an answer)."""
    return " ".join(to_typst(text).split("\n\n"))


def _typst(node: SyntaxTreeNode) -> str:
    render = _TYPST_NODES.get(node.type)
    if render is None:
        return _children(node)  # containers (root, inline, list items' paragraphs)
    return render(node)


def _children(node: SyntaxTreeNode, separator: str = "") -> str:
    return separator.join(_typst(child) for child in node.children)


def _list(node: SyntaxTreeNode) -> str:
    marker = "+" if node.type == "ordered_list" else "-"
    items = []
    for item in node.children:
        body = _children(item, "\n\n").strip().replace("\n", "\n  ")
        items.append(f"{marker} {body}")
    return "\n".join(items) + "\n\n"


def _table(node: SyntaxTreeNode) -> str:
    rows = [row for section in node.children for row in section.children]
    columns = max(len(row.children) for row in rows)
    cells = ", ".join(f"[{_children(cell)}]" for row in rows for cell in row.children)
    return f"#table(columns: {columns}, align: left, inset: 5pt, stroke: 0.5pt + gray, {cells})\n\n"


def _code_block(node: SyntaxTreeNode) -> str:
    fence = "`" * max(3, _longest_backtick_run(node.content) + 1)
    language = (node.info or "").split()[0] if node.info else ""
    return f"{fence}{language}\n{node.content.rstrip()}\n{fence}\n\n"


def _code_inline(node: SyntaxTreeNode) -> str:
    fence = "`" * (_longest_backtick_run(node.content) + 1)
    padding = " " if node.content.startswith("`") or node.content.endswith("`") else ""
    return f"{fence}{padding}{node.content}{padding}{fence}"


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def escape_typst(text: str) -> str:
    """Plain text as typst markup: every character that could start markup is escaped."""
    return "".join("\\" + char if char in _TYPST_MARKUP else char for char in text)


# "1. " opening a line or a block is a numbered-list item in typst: "**1. Project.**" must stay text.
_NUMBERED = re.compile(r"^(\d+)\.(?=\s|$)")
_TYPST_MARKUP = frozenset("\\#$*_`[]<>@=~/+-")  # quotes stay: typst makes them typographic

_TYPST_NODES: dict[str, Callable[[SyntaxTreeNode], str]] = {
    "paragraph": lambda node: _children(node) + "\n\n",
    "text": lambda node: _NUMBERED.sub(r"\1\\.", escape_typst(node.content)),
    "softbreak": lambda node: " ",
    "hardbreak": lambda node: " \\\n",
    "strong": lambda node: f"#strong[{_children(node)}]",
    "em": lambda node: f"#emph[{_children(node)}]",
    "code_inline": _code_inline,
    "fence": _code_block,
    "code_block": _code_block,
    "bullet_list": _list,
    "ordered_list": _list,
    "table": _table,
    "blockquote": lambda node: f"#quote(block: true)[{_children(node)}]\n\n",
    "hr": lambda node: "#line(length: 100%, stroke: 0.5pt + gray)\n\n",
    "heading": lambda node: f"#strong[{_children(node)}]\n\n",
    "link": lambda node: _children(node),
    "image": lambda node: escape_typst(cast(str, node.attrs.get("alt", "") or "")),  # an image's alt is text
    "math_inline": lambda node: f"${latex_to_typst(node.content)}$",
    "math_inline_double": lambda node: f"#fit-width($ {latex_to_typst(node.content)} $)",
    "math_block": lambda node: f"#fit-width($ {latex_to_typst(node.content)} $)\n\n",
}
