"""What a reviewer reads is what quizzer loads: the characters a template file may hold, and plain
scalars that YAML 1.1 (PyYAML) and YAML 1.2 read differently.

A file is one text, read once (``loader.read_template_file``).  Before YAML sees it, every character
that a viewer, a diff or ``cat`` shows differently from how YAML reads it is refused with its line and
column: control characters (C0 but tab and newline, DEL, C1), the Unicode line and paragraph
separators (a viewer breaks the line there, YAML does not: a key after one hides on the line above),
a carriage return not followed by a newline (``cat`` prints the next line over it), a byte-order mark
anywhere but at the very start, and bidirectional controls (the text would read in another order).
Invisible default-ignorable characters (U+200B, U+2060, variation selectors, …) are allowed only in
prose (a prompt, a solution, feedback), where they can join a script's letters; anywhere else — a
name, an option, an expression — they are how two things that look alike differ, and are refused.

Plain (unquoted) scalars are typed by YAML 1.1's rules in PyYAML and by YAML 1.2's core schema in
most other tools: ``010`` is 8 or 10, ``1:30`` is 90 or text, ``yes``/``on`` true or text, ``1_000``
1000 or text.  One that the two read as different values is refused with its line, so every value is
what a reader of either version would take it to be.
"""

from __future__ import annotations

import re
import unicodedata

import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.untrusted import CONTROL, DEFAULT_IGNORABLE

# Refused anywhere in the raw file (escaped inside double quotes, on the values: loader.py); and a BOM after
# the start.
_FORBIDDEN = re.compile(f"{CONTROL.pattern}|\ufeff")
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# The fields that are prose a person reads (and may write in any script); the last name of a field path.
PROSE_FIELDS = frozenset({"prompt", "solution", "title", "source", "feedback"})
_WHY = {
    "\u2028": "a viewer breaks the line here and YAML does not",
    "\u2029": "a viewer breaks the line here and YAML does not",
    "\r": "a carriage return without a newline makes a terminal print the next line over this one",
    "\ufeff": "a byte-order mark may only start a file",
}


def character_problem(text: str) -> tuple[int, int, str] | None:
    """The first character of a template file's text that reads differently from what loads, as
    (line, column, why), both 1-based; None when there is none."""
    found = _FORBIDDEN.search(text, 1 if text.startswith("\ufeff") else 0)  # a BOM may start the file
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    char = found.group()[0]
    why = _WHY.get(char) or ("a bidirectional control makes text read in another order than it is stored"
                             if char in _BIDI else "control characters can clear or retitle a terminal")
    return line, column, f"character {describe(char)} is not allowed in a template file: {why}"


def describe(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: a character as a reviewer can look it up."""
    return f"U+{ord(char):04X} {unicodedata.name(char, 'CONTROL')}"


def ignorable_outside_prose(value: str, path: tuple[str, ...]) -> str | None:
    """Why ``value`` (a scalar at field ``path``) may not hold an invisible character, or None."""
    if path and path[-1] in PROSE_FIELDS:
        return None
    found = DEFAULT_IGNORABLE.search(value)
    if found is None:
        return None
    return (f"invisible character {describe(found.group())} is not allowed outside prose (prompt, solution, "
            "feedback): two names, options or expressions that look the same would differ")


# --- YAML 1.1 against YAML 1.2 core ---------------------------------------------------------------
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_CORE_SPECIAL = {**{word: True for word in ("true", "True", "TRUE")},
                 **{word: False for word in ("false", "False", "FALSE")},
                 **{word: None for word in ("", "~", "null", "Null", "NULL")}}
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_RESOLVER = yaml.resolver.Resolver()
_INT, _FLOAT, _BOOL, _NULL, _STR = (f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null", "str"))


def _core_value(text: str) -> object:
    """What YAML 1.2's core schema makes of a plain scalar (special floats are left to the loader)."""
    if text in _CORE_SPECIAL:
        return _CORE_SPECIAL[text]
    if _CORE_INT.fullmatch(text):
        return int(text, 8) if text.startswith("0o") else int(text, 0) if text.startswith("0x") else int(text)
    if _CORE_FLOAT.fullmatch(text):
        return float(text)
    return text


def ambiguous_scalar(event: yaml.ScalarEvent) -> str | None:
    """Why a plain scalar is refused: YAML 1.1 and 1.2 read it as different values.  A text that 1.1
    keeps as text and 1.2 reads as a float (``1e-3``) is not: quizzer reads such a text as the number
    where a number is meant, and as the text where text is."""
    if event.tag not in (None, "!") or not event.implicit[0] or len(event.value) > 100:
        return None  # quoted or tagged: typed as written; a long one is a number refused elsewhere, or text
    text = event.value
    tag = _RESOLVER.resolve(yaml.ScalarNode, text, event.implicit)
    if tag not in (_INT, _FLOAT, _BOOL, _NULL, _STR):
        return None  # a timestamp: a date where a date is never meant is refused by its field's type
    core = _core_value(text)
    if tag == _STR:
        if isinstance(core, int) and not isinstance(core, bool):
            return _ambiguity(text, "text", _shown(core))
        return None
    if tag == _FLOAT and text.lower().lstrip("+-") in (".inf", ".nan"):
        return None  # refused by the number rules of the loader
    try:
        old = _CONSTRUCTOR.construct_object(yaml.ScalarNode(tag, text))
    except (ValueError, OverflowError):
        return None  # reported, with its field, where the document is built
    if type(old) is type(core) and old == core:
        return None
    return _ambiguity(text, _shown(old), "text" if isinstance(core, str) else _shown(core))


def _shown(value: object) -> str:
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)


def _ambiguity(text: str, old: str, new: str) -> str:
    return (f"{text!r} is ambiguous: YAML 1.1 reads it as {old} and YAML 1.2 as {new}; "
            "write the value plainly (8, 90, true) or put text in quotes")
