"""The HTML paper in real clients: an HTML5 parser in strict mode, headless Chromium (no console
messages, a screenshot, print to PDF without clipping code), and MathML that Chromium shows as meant."""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

import pytest

from quizzer.export.richtext import math_spans, mathml
from tests.bundled_templates import bundled, instance
from tests.cli_runner import run
from tests.export.clients import chromium, console_messages, pdf_text

CODE = "practice/w1b-sdpa-variance-table"  # a code block with a 106-character line
DISPLAY_IN_PARAGRAPH = "practice/seq2seq-bottleneck-recall"  # $$…$$ inside a paragraph of its model answer


@pytest.fixture
def page(bundled_bank: Path, tmp_path: Path) -> Path:
    target = tmp_path / "paper.html"
    code, _, err = run("export", "--week", "1", "--seed", "5", "--key", CODE, "--key", DISPLAY_IN_PARAGRAPH,
                       "--format", "html", "-o", str(target))
    assert code == 0, err
    return target


def test_html_passes_a_strict_html5_parser_with_unique_ids(page: Path) -> None:
    html5lib = pytest.importorskip("html5lib")
    html5lib.HTMLParser(strict=True).parse(page.read_bytes())  # raises on the first parse error
    ids = Counter(re.findall(r'\bid="([^"]+)"', page.read_text()))
    assert ids and not [name for name, count in ids.items() if count > 1]


def test_html_loads_in_chromium_without_console_messages(page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    log = chromium(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1000,1400")
    assert console_messages(log) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_printing_keeps_every_line_of_long_code(page: Path, tmp_path: Path) -> None:
    printed = tmp_path / "printed.pdf"
    chromium(page, tmp_path / "profile", f"--print-to-pdf={printed}", "--no-pdf-header-footer")
    text = re.sub(r"\s+", "", pdf_text(printed))
    made = instance(CODE, 5)
    code = re.findall(r"```\w*\n(.*?)```", made.prompt + made.solution, re.S)
    assert code and max(len(line) for block in code for line in block.splitlines()) > 100
    for line in "".join(code).splitlines():
        assert re.sub(r"\s+", "", line) in text, line


# --- 7. MathML that Chromium shows as the LaTeX means -----------------------------------------------------

ARTEFACTS = {
    # Chromium's MathML ignores mathvariant except "normal": \mathbf 1, \mathbb R, \texttt lose their look.
    "a mathvariant Chromium ignores": re.compile(r'mathvariant="(?!normal")'),
    "a LaTeX command left as text": re.compile(r">[^<]*\\[A-Za-z_][^<]*<"),
    "a function name run into its argument": re.compile(
        r"<m[io]>(?:log|exp|sin|cos|tanh|max|min|softmax|argmax|Var|LN)</m[io]>(?:<mrow>)*<(?:m[in][ >]|msub>|msup>)"),
    "a minus spaced as subtraction after an opening": re.compile(
        r"<mo[^>]*>(?:\[|\(|&#x0005B;|&#x00028;|,|&#x0002C;)</mo><mo>&#x02212;</mo>"),
}


def test_every_templates_maths_converts_without_artefacts() -> None:
    found: dict[str, list[str]] = {}
    for key in bundled():
        made = instance(key, 0)
        for text in (made.prompt, made.solution, made.answer_text, *made.choices):
            for tex, display in math_spans(text):
                converted = mathml(tex, display=display)
                for name, pattern in ARTEFACTS.items():
                    if pattern.search(converted):
                        found.setdefault(name, []).append(f"{key}: {tex[:80]}")
    assert not found, {name: cases[:3] for name, cases in found.items()}


@pytest.mark.parametrize(("tex", "shown"), [
    (r"\mathbf 1[i=y]", "\U0001d7cf"), (r"\mathbb R^{d}", "\u211d"), (r"\mathbb{R}", "\u211d"),
    (r"\texttt{scaled\_var}", "scaled_var"),
    (r"\left[ -0.2291, 1 \right]", "<mrow><mo>&#x02212;</mo><mn>0.2291</mn></mrow>"),
])
def test_conversions_chromium_shows_as_meant(tex: str, shown: str) -> None:
    assert html.unescape(shown) in html.unescape(mathml(tex, display=False))
