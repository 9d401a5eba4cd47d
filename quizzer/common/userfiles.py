"""The bounds every file a user hands in is read within: a batch of answers (``grade --batch``) and a
progress file (``progress import``).  Each is read at most its size limit (``/dev/zero`` is refused
after that many bytes, not after memory runs out), its JSON nesting is measured before it is parsed
(a 200,000-deep array is refused in one line, not a RecursionError), and every number is held to a
range (``seconds``: a finite, bounded duration).  SECURITY.md lists the limits.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from pathlib import Path
from typing import Any

from quizzer.common.errors import UserError
from quizzer.common.untrusted import quoted

MAX_SECONDS = 24 * 60 * 60  # time spent on one answer: a day is already a left-open window
# A string in JSON (its escapes included), then the brackets that are left.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}\n]")  # and the line breaks, counted as they come


def read_bounded(file: Path, *, limit: int, what: str) -> str:
    """A UTF-8 file's text ('-': standard input), read no further than ``limit`` bytes, without the byte
    order mark a spreadsheet may start it with; a larger file, an unreadable one or one that is not UTF-8
    is one UserError naming it."""
    try:
        if str(file) == "-":
            raw = sys.stdin.buffer.read(limit + 1)
        else:
            with file.open("rb") as stream:
                raw = stream.read(limit + 1)
    except OSError as exc:
        raise UserError(f"cannot read the file: {exc.strerror or exc}", where=str(file)) from None
    if len(raw) > limit:
        raise UserError(f"{what} may be at most {limit:,} bytes; this one is larger", where=str(file))
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UserError(f"cannot read the file: not UTF-8 text (line {line}, byte {exc.start:,})",
                        where=str(file)) from None


def csv_rows(text: str, *, required: tuple[str, ...], optional: tuple[str, ...] = (), shape: str,
             where: str | None, heading: str = "the header") -> csv.DictReader[str]:
    """A CSV file's rows under its header (names stripped of spaces): a header without every ``required``
    column, or with a column neither required nor ``optional``, is one UserError naming line 1 and the
    ``shape`` a header must have (``key,seed,answer[,learner,seconds]``)."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in required if name not in header]
    unknown = [name for name in header if name not in required + optional]
    if missing or unknown:
        problem = f"missing {', '.join(missing)}" if missing else f"unknown column {quoted(unknown[0], 40)}"
        raise UserError(f"line 1: {heading} must be {shape} ({problem})", where=where)
    reader.fieldnames = header
    return reader


def json_depth(text: str) -> tuple[int, int]:
    """How deep the JSON ``text`` nests (a flat object is 1), and the line where it is deepest: measured on
    the brackets outside strings, before anything is parsed (so no recursion can run away)."""
    depth = deepest = deepest_line = 0
    line = 1
    bare = _JSON_STRING.sub(lambda string: "\n" * string.group().count("\n"), text)
    for found in _BRACKETS.finditer(bare):
        mark = found.group()
        if mark == "\n":
            line += 1
            continue
        depth += 1 if mark in "[{" else -1
        if depth > deepest:
            deepest, deepest_line = depth, line
    return deepest, deepest_line


def seconds_taken(value: Any, *, field: str = "'seconds'") -> float:
    """A time spent on one answer: a finite number of seconds from 0 to MAX_SECONDS (not NaN, not
    Infinity, not 1e308, which would be recorded and then written out as no JSON reader reads it)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        seconds = math.nan
    if isinstance(value, bool) or not (math.isfinite(seconds) and 0 <= seconds <= MAX_SECONDS):
        raise ValueError(f"{field} must be a number of seconds from 0 to {MAX_SECONDS:,}, got {quoted(str(value), 40)}")
    return seconds
