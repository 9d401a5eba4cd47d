"""Showing and comparing text that came from a file, a bank or a person (SECURITY.md, "Terminal output").

``terminal_safe`` is the one function every face uses before text it did not write reaches a terminal:
a key, an id, a learner's name or response, a refusal quoting its input.  Escape sequences could clear
the screen, retitle the window or write the clipboard (OSC 52); bidirectional controls make a line read
in another order than it is stored.  ``quoted`` shows a piece of input inside a message, cut to a length
a line can hold.  ``visible_key`` is what two texts that look the same have in common (options, choices).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

# A whole escape sequence goes, not just its ESC (else "[2J" would be left on the screen): CSI (ESC [ or the
# 8-bit 0x9B), OSC/DCS/APC/PM/SOS strings up to their terminator, and two-character escapes.
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?")
# What is left that a terminal acts on or that reorders text: C0 but tab and newline, DEL, C1, a lone CR,
# the line and paragraph separators, and the bidirectional controls (quizzer.templates.characters refuses
# them in a template file).
CONTROL = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
                      "|\r(?!\n)")
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters that render as nothing.
DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
QUOTE_CHARS = 80  # how much of a piece of input a refusal repeats


def terminal_safe(text: str) -> str:
    """``text`` without anything a terminal would act on: escape sequences and control characters go
    (tab and newline stay), so what is printed is only what can be read."""
    if text.isascii() and text.isprintable():
        return text  # the common case, without a regular expression
    return CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


def control_character(text: str) -> str | None:
    """``control character U+001B`` for the first character of ``text`` a terminal would act on, or None:
    what a file or a typed answer may not store (it would be shown again, in the app, raw)."""
    found = CONTROL.search(text)
    return None if found is None else f"control character U+{ord(found.group()[0]):04X}"


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``'text'`` for a message, safe for a terminal and at most ``limit`` characters of it, with how
    long the rest is: a refusal never repeats a 100,000-character input."""
    if len(text) <= limit:
        return repr(terminal_safe(text))
    return f"{terminal_safe(text[:limit])!r}… ({len(text):,} characters)"


def visible_key(text: str) -> str:
    """What a reader sees of ``text``: compatibility forms folded (NFKC: 'Ｙｅｓ' is 'Yes'), invisible
    characters removed, case and spacing ignored.  Two texts with the same key look alike."""
    folded = unicodedata.normalize("NFKC", DEFAULT_IGNORABLE.sub("", text))
    return "".join(DEFAULT_IGNORABLE.sub("", folded).split()).casefold()


class _SafeText:
    """A text stream whose writes pass through ``terminal_safe``; everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, buffer (binary exports), isatty, fileno, encoding
        return getattr(self._stream, name)


@contextmanager
def terminal_safe_stdout() -> Iterator[None]:
    """While a command runs, everything it prints passes through ``terminal_safe`` (the CLI's one place:
    a key, a name, a response read from a bank or a file cannot reach the terminal as an escape).  The
    Textual app writes to ``sys.__stdout__``/``__stderr__``, untouched."""
    original = sys.stdout
    sys.stdout = _SafeText(original)  # a TextIO in all a command uses of it
    try:
        yield
    finally:
        sys.stdout = original
