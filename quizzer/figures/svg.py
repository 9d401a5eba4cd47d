"""A small SVG writer: shapes and text in points (1/72 in), formatted to two decimals.

Text stays real ``<text>`` (selectable, searchable, scalable).  Layout needs text widths
without a font engine: :func:`text_width` uses DejaVu Sans's advance widths, the first
font asked for; the fallbacks (Verdana, Arial, the reader's sans-serif) are no wider, so
nothing that fits here overflows elsewhere.  Ids carry a per-figure prefix, so several
figures inlined in one HTML page never borrow each other's patterns or clip paths.
"""

from __future__ import annotations

from html import escape

FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"
# DejaVu Sans advance widths in thousandths of an em, for the printable ASCII characters " " to "~".
_ASCII_WIDTHS = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636,
    636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656,
    557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
    635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818,
    592, 592, 525, 636, 337, 636, 838)
_OTHER_WIDTH = 640  # Greek, math symbols, sub- and superscripts: about a digit's width
_BOLD_WIDER = 1.1  # DejaVu Sans Bold against Regular, on average
# Superscript fractions: mathtext's "ᐟ" (a Canadian syllabic) is missing from most fonts, typst's
# included; the fraction slash is everywhere and reads as ¹⁄² with superscript digits.
_PRINTABLE = str.maketrans({"ᐟ": "⁄"})
# Where the baseline sits, as a fraction of the font size, for text centred on or hanging from a point.
BASELINE_MIDDLE, BASELINE_TOP = 0.36, 0.76


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width of ``text`` set at ``size`` points."""
    thousandths = sum(_ASCII_WIDTHS[ord(c) - 32] if 32 <= ord(c) < 127 else _OTHER_WIDTH for c in text)
    return thousandths * size / 1000 * (_BOLD_WIDER if bold else 1.0)


def wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` (a longer single word gets a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and text_width(candidate, size) <= width:
            lines[-1] = candidate
        else:
            lines.append(word)
    return lines


def number(value: float) -> str:
    """A coordinate: at most two decimals, no trailing zeros, never "-0"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def points_path(points: list[tuple[float, float]]) -> str:
    """SVG path data through ``points`` in order."""
    return "M" + "L".join(f"{number(x)},{number(y)}" for x, y in points)


class Svg:
    """An SVG document being built: definitions, then drawing elements in painting order."""

    def __init__(self, width: float, height: float, *, ids: str, label: str):
        self.width, self.height, self.ids, self.label = width, height, ids, label
        self.definitions: list[str] = []
        self.body: list[str] = []

    def id(self, name: str) -> str:
        return f"{self.ids}-{name}"

    def define(self, markup: str) -> None:
        self.definitions.append(markup)

    def add(self, tag: str, content: str | None = None, **attributes: float | str | None) -> None:
        """One element; ``stroke_width=1`` becomes ``stroke-width="1"``, None attributes are left out."""
        self.body.append(element(tag, content, **attributes))

    def text(self, x: float, y: float, content: str, *, size: float, anchor: str = "middle", align: str = "middle",
             **attributes: float | str | None) -> None:
        """``content`` at (x, y): ``anchor`` start/middle/end horizontally; ``align`` middle/top/baseline
        says which part of the line sits at y (computed here: dominant-baseline is not honoured everywhere)."""
        shift = {"middle": BASELINE_MIDDLE, "top": BASELINE_TOP, "baseline": 0.0}[align] * size
        self.add("text", escape(content.translate(_PRINTABLE), quote=False), x=x, y=y + shift, font_size=size,
                 text_anchor=None if anchor == "start" else anchor, **attributes)

    def document(self) -> str:
        size = f'width="{number(self.width)}pt" height="{number(self.height)}pt"'
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" {size} viewBox="0 0 {number(self.width)} '
                f'{number(self.height)}" role="img" aria-label="{escape(self.label)}" '
                f'font-family="{FONT_FAMILY}" font-size="10">\n')
        definitions = f"<defs>\n{''.join(self.definitions)}</defs>\n" if self.definitions else ""
        background = element("rect", width=self.width, height=self.height, fill="white")
        return head + definitions + background + "".join(self.body) + "</svg>\n"


def element(tag: str, content: str | None = None, **attributes: float | str | None) -> str:
    """Markup of one element; numbers are formatted with :func:`number`, strings escaped."""
    written = "".join(f' {name.replace("_", "-")}="{escape(value) if isinstance(value, str) else number(value)}"'
                      for name, value in attributes.items() if value is not None)
    return f"<{tag}{written}/>\n" if content is None else f"<{tag}{written}>{content}</{tag}>\n"
