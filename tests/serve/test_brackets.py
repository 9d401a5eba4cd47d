"""Issue 42: a matrix's tall brackets join up in the served page, checked on its pixels in Chromium.

The served page (quizzer's HTML, stylesheet and bundled fonts, textual-serve's xterm.js) is opened from a
real ``quizzer serve``; its websocket is answered here instead of by an app process (Playwright's
``route_web_socket``), with a screen we know: a matrix as quizzer draws it (``render_math``), placed at a
known row and column.  The terminal's screenshot is then read cell by cell: the vertical stroke of
``⎡ ⎢ ⎣`` (and of ``⎤ ⎥ ⎦``) must have ink on every pixel row from the middle of its first row to the
middle of its last, across both row boundaries.  A column of ASCII ``|`` (what a page without the glyphs
showed, each row its own bracket) is checked the same way and must show the gaps, so the check can fail.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from quizzer.text.grid import text_width
from quizzer.text.mathtext import render_math
from tests.serve.helpers import chromium, free_port, served

pytestmark = pytest.mark.slow

MATRIX = r"$$X = \begin{bmatrix} 1 & 0.5 \\ -2 & 3 \\ 4 & 7 \\ 0 & 1 \end{bmatrix}$$"
TOP, LEFT = 3, 4  # where the matrix is drawn (0-based row and column)
CONTROL_COLUMN = 40  # an ASCII '|' over as many rows, for the negative control


def screen_bytes(lines: list[str]) -> bytes:
    """Clear the terminal, draw ``lines`` from (TOP, LEFT), and a column of '|' beside them."""
    out = "\x1b[2J"
    for offset, line in enumerate(lines):
        out += f"\x1b[{TOP + offset + 1};{LEFT + 1}H{line}\x1b[{TOP + offset + 1};{CONTROL_COLUMN + 1}H|"
    return out.encode()


def stroke_is_continuous(image: np.ndarray, cell: tuple[float, float], column: int, rows: range) -> bool:
    """Whether the vertical stroke in ``column`` has ink on every pixel row from the middle of ``rows``' first
    cell to the middle of its last (the stroke: the pixel columns inked over most of a middle cell)."""
    width, height = cell
    background = np.median(image[: int(height), :].reshape(-1, image.shape[2]), axis=0)
    ink = np.abs(image.astype(int) - background).sum(axis=2) > 120
    left, right = int(column * width), int((column + 1) * width)
    middle = rows[len(rows) // 2]
    inner = ink[int(middle * height) + 1:int((middle + 1) * height) - 1, left:right]
    stroke = inner.mean(axis=0) > 0.6
    assert stroke.any(), f"no vertical stroke in column {column}"
    xs = np.nonzero(stroke)[0] + left
    top, bottom = int((rows[0] + 0.5) * height), int((rows[-1] + 0.5) * height)
    return bool(ink[top:bottom, xs].any(axis=1).all())


def test_a_matrix_s_brackets_join_up_in_the_served_page(isolated_bank: Path, tmp_path: Path) -> None:
    import cv2

    lines = render_math(MATRIX).splitlines()
    assert lines[0].lstrip().startswith("⎡") or "⎡" in lines[0], lines
    rows = range(TOP, TOP + len(lines))
    left_bracket = LEFT + text_width(lines[0][:lines[0].index("⎡")])
    right_bracket = LEFT + text_width(lines[0][:lines[0].index("⎤")])
    assert [line[lines[0].index("⎡")] for line in lines] == ["⎡", "⎢", "⎢", "⎣"]
    size: dict[str, int] = {}

    def answer(route: Any) -> None:  # the websocket: our screen instead of an app process
        query = parse_qs(urlparse(route.url).query)
        size.update(cols=int(query["width"][0]), rows=int(query["height"][0]))

    with served("--port", str(free_port())) as (_, url), chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 700})  # type: ignore[attr-defined]
        sockets: list[Any] = []
        page.route_web_socket(re.compile(r".*/ws\b.*"), lambda route: (answer(route), sockets.append(route)))
        page.goto(url)
        page.wait_for_function("document.querySelector('.xterm-screen') !== null")
        page.evaluate("document.fonts.load('16px \"Roboto Mono\"', '⎡⎢⎣⎤⎥⎦')")
        page.wait_for_function("document.fonts.check('16px \"Roboto Mono\"', '⎡⎢⎣⎤⎥⎦')")
        page.wait_for_function("document.body.classList.contains('-loaded')")  # the socket is open
        sockets[0].send(screen_bytes(lines))
        page.wait_for_function("document.body.classList.contains('-first-byte')")
        page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        screen = page.locator(".xterm-screen")
        box = screen.bounding_box()
        png = screen.screenshot(path=str(tmp_path / "brackets.png"))
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert box is not None and size["cols"] > CONTROL_COLUMN and size["rows"] > rows[-1]
    cell = (image.shape[1] / size["cols"], image.shape[0] / size["rows"])
    assert stroke_is_continuous(image, cell, left_bracket, rows), "⎡ ⎢ ⎣ do not join (see brackets.png)"
    assert stroke_is_continuous(image, cell, right_bracket, rows), "⎤ ⎥ ⎦ do not join (see brackets.png)"
    assert not stroke_is_continuous(image, cell, CONTROL_COLUMN, rows), "the check cannot see a gap"
