"""The served page's bundled font draws every character quizzer's maths text can contain: each
non-ASCII character in a string of ``quizzer.text`` (written in its source, or in its modules' tables:
symbols, scripts, arrows, bracket pieces, the letter alphabets it builds) is in DejaVu Sans Mono, or
in one of the fallback faces and inside the unicode-range the page's stylesheet gives that face.
Read from the font files themselves (fontTools), so a character added to the renderer without a
glyph fails here rather than as a box in a student's browser."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from fontTools.ttLib import TTFont

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "quizzer/server/static/quizzer"


def maths_characters() -> set[str]:
    found: set[str] = set()

    def collect(value: object, depth: int = 0) -> None:
        if isinstance(value, str):
            found.update(c for c in value if ord(c) > 0x7F)
        elif isinstance(value, dict) and depth < 4:
            for key, item in value.items():
                collect(key, depth + 1)
                collect(item, depth + 1)
        elif isinstance(value, list | tuple | set | frozenset) and depth < 4:
            for item in value:
                collect(item, depth + 1)

    for module in (REPO / "quizzer/text").glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Constant):
                collect(node.value)
        loaded = importlib.import_module(f"quizzer.text.{module.stem}" if module.stem != "__init__" else "quizzer.text")
        for name, value in vars(loaded).items():
            if not name.startswith("__"):
                collect(value)
    return found


def fallback_range(font: str) -> set[int]:
    """The code points of the stylesheet's unicode-range for the face of ``font``."""
    css = (STATIC / "quizzer.css").read_text()
    face = re.search(r"@font-face\s*{[^}]*" + re.escape(font) + r"[^}]*}", css)
    assert face, f"no face for {font} in quizzer.css"
    points: set[int] = set()
    for start, end in re.findall(r"U\+([0-9A-F]+)(?:-([0-9A-F]+))?", face.group()):
        points.update(range(int(start, 16), int(end or start, 16) + 1))
    return points


def test_every_maths_character_has_a_glyph_in_the_bundled_fonts() -> None:
    mono = TTFont(STATIC / "fonts/DejaVuSansMono.ttf").getBestCmap()
    fallbacks = [(set(TTFont(STATIC / "fonts" / font).getBestCmap()) & fallback_range(font))
                 for font in ("DejaVuSans.ttf", "DejaVuMathTeXGyre.ttf")]
    characters = maths_characters()
    assert {"⎡", "⎢", "⎣", "⊙", "√", "∑", "ᵢ", "\u20d7", "𝒜", "ℬ", "𝔸"} <= characters  # the scan found the tables
    missing = sorted(c for c in characters if ord(c) not in mono and not any(ord(c) in face for face in fallbacks))
    assert not missing, " ".join(f"{c} U+{ord(c):04X}" for c in missing)
    for arrow in (0x20D6, 0x20D7):  # h⃗ᵢ and h⃖ᵢ (combining arrows above), which DejaVu Sans Mono lacks
        assert arrow not in mono and arrow in fallbacks[0]


def test_the_fonts_come_with_their_licence() -> None:
    licence = (STATIC / "fonts/LICENSE-DejaVu.txt").read_text()
    assert "Bitstream" in licence and "Permission is hereby granted" in licence
    css = (STATIC / "quizzer.css").read_text()
    assert "fonts.googleapis" not in css and "http" not in css.replace("https://dejavu-fonts.github.io", "")
