"""A template that does not fit the schema, described in one line an author can act on:
``field 'params.n.int': must be at most 9007199254740992 (line 7)``.

msgspec stops at the first error and says it as ``Expected `int` <= 3 - at `$.difficulty```; this
module turns the path into field names (finding the key of a mapping entry, which msgspec writes as
``[...]``), the message into plain words, adds a did-you-mean for a misspelt field and the line in
the file.  Only ``loader`` calls it, and only for a file that is refused.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import msgspec
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.errors import did_you_mean
from quizzer.templates.schema import FieldProblem, Template


def describe_error(exc: msgspec.ValidationError, data: dict[str, Any], root: yaml.Node) -> str:
    """Describe msgspec's error as 'field X: message (line N)', in plain words, with a did-you-mean
    for a misspelt field name."""
    found = _ERROR.fullmatch(str(exc))
    message, where = (found.group("message"), found.group("path")) if found else (str(exc), "")
    loc = _path_of(where, data, exc)
    if isinstance(exc.__cause__, FieldProblem):  # a __post_init__ named the field it refuses
        loc += exc.__cause__.at
    unknown, missing = _UNKNOWN.fullmatch(message), _MISSING.fullmatch(message)
    if unknown:
        message = f"unknown field {unknown.group(1)!r}{did_you_mean(unknown.group(1), _fields_at(loc))}"
        loc.append(unknown.group(1))
    elif missing:
        message = "is required"
        loc.append(missing.group(1))
    else:
        message = next((words(matched, loc) for pattern, words in _MESSAGES
                        if (matched := pattern.fullmatch(message))), message)
    line = line_of(root, loc)
    return f"field {'.'.join(loc) or '(top level)'!r}: {message}" + (f" (line {line})" if line else "")


_ERROR = re.compile(r"(?P<message>.*) - at `\$(?P<path>.*)`", re.DOTALL)
_SEGMENT = re.compile(r"\.(?P<name>\w+)|\[(?P<index>\d+|\.\.\.)\]")


def _path_of(where: str, data: dict[str, Any], exc: msgspec.ValidationError) -> list[str]:
    """The path of msgspec's '$.params[...].int[0]' as field names and indexes.  msgspec writes
    '[...]' for a mapping's key; the key is found by checking the mapping's entries one at a time."""
    loc: list[str] = []
    for segment in _SEGMENT.finditer(where):
        name, index = segment.group("name"), segment.group("index")
        if index == "...":
            loc.append(_failing_key(data, loc, str(exc)))
        else:
            loc.append(name or index)
    return loc


def _failing_key(data: dict[str, Any], loc: list[str], error: str) -> str:
    """The first key of the mapping at ``loc`` whose entry alone gives the same error ('…' if none)."""
    try:
        mapping = _value_at(data, loc)
    except (LookupError, TypeError, ValueError):  # the path does not lead through the data: say no key
        return "…"
    for key, value in mapping.items() if isinstance(mapping, dict) else ():
        try:
            msgspec.convert(_replaced(data, loc, {key: value}), Template, strict=False)
        except msgspec.ValidationError as exc:
            if str(exc) == error:
                return str(key)
    return "…"


def _value_at(data: Any, loc: list[str]) -> Any:
    for part in loc:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _replaced(data: Any, loc: list[str], value: Any) -> Any:
    """A copy of ``data`` with the value at ``loc`` replaced (copies along the path only)."""
    if not loc:
        return value
    head, *rest = loc
    if isinstance(data, list):
        copy = list(data)
        copy[int(head)] = _replaced(data[int(head)], rest, value)
        return copy
    return {**data, head: _replaced(data[head], rest, value)}


# msgspec's messages, said as an author reads them.
_TYPE_WORDS = {"int": "a whole number", "float": "a number", "str": "text", "bool": "true/false",
               "null": "nothing", "array": "a list", "object": "a mapping of fields"}
_COMPARISON_WORDS = {">=": "at least", "<=": "at most", ">": "greater than", "<": "less than"}
_LENGTH_UNITS = {"str": "characters", "array": "items", "object": "entries"}


def _types(names: str) -> str:
    """msgspec's ``str | int | float | null`` as ``text, a number or nothing``."""
    given = [name.strip() for name in names.split("|")]
    if "float" in given and "int" in given:  # a whole number is a number
        given.remove("int")
    words = [_TYPE_WORDS.get(name, name) for name in given]
    return " or ".join(filter(None, [", ".join(words[:-1]), words[-1]]))


def _number(text: str) -> str:
    value = float(text)
    return f"{int(value):,}" if value.is_integer() else text


def _choices(loc: list[str]) -> str:
    allowed = typing.get_args(_type_at(loc))
    return f"; one of {', '.join(map(repr, allowed))}" if allowed else ""


_UNKNOWN = re.compile(r"Object contains unknown field `(.*)`", re.DOTALL)
_MISSING = re.compile(r"Object missing required field `(.*)`", re.DOTALL)
_MESSAGES: list[tuple[re.Pattern[str], Callable[[re.Match[str], list[str]], str]]] = [
    (re.compile(r"Expected `(.*)`, got `(.*)`"),
     lambda m, loc: f"expected {_types(m.group(1))}, got {_types(m.group(2))}"),
    (re.compile(r"Expected `(\w+)` (>=|<=|>|<) (\S+)"),
     lambda m, loc: f"must be {_COMPARISON_WORDS[m.group(2)]} {_number(m.group(3))}"),
    (re.compile(r"Expected `(\w+)` of length (>=|<=) (\d+)"),
     lambda m, loc: f"must have {_COMPARISON_WORDS[m.group(2)]} {m.group(3)} {_LENGTH_UNITS.get(m.group(1), 'items')}"),
    (re.compile(r"Invalid enum value (.*)", re.DOTALL), lambda m, loc: f"{m.group(1)} is not allowed{_choices(loc)}"),
]


def _type_at(loc: list[str]) -> Any:
    """The declared type at a path below Template (through structs, lists, tuples, mappings and
    optional or union types), or None where the path leaves the schema."""
    kind: Any = Template
    for part in loc:
        kind = _step(kind, part)
        if kind is None:
            return None
    return _bare(kind, lambda _: True)


def _step(kind: Any, part: str) -> Any:
    if part.isdigit():
        container = _bare(kind, lambda t: typing.get_origin(t) in (list, tuple))
        args = typing.get_args(container) if container is not None else ()
        if typing.get_origin(container) is tuple and args:
            return args[min(int(part), len(args) - 1)]
        return args[0] if args else None
    struct = _bare(kind, lambda t: isinstance(t, type) and issubclass(t, msgspec.Struct))
    if struct is not None:
        names = dict(zip(struct.__struct_encode_fields__, struct.__struct_fields__, strict=True))
        return typing.get_type_hints(struct, include_extras=True).get(names.get(part, ""))
    mapping = _bare(kind, lambda t: typing.get_origin(t) is dict)
    return typing.get_args(mapping)[1] if mapping is not None else None


def _bare(kind: Any, wanted: Callable[[Any], bool]) -> Any:
    """``kind`` without Annotated's metadata; of a union, the first member that is ``wanted``."""
    while typing.get_origin(kind) is Annotated:
        kind = typing.get_args(kind)[0]
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        return next((_bare(member, wanted) for member in typing.get_args(kind)
                     if _bare(member, wanted) is not None), None)
    return kind if wanted(kind) else None


def _fields_at(loc: list[str]) -> list[str]:
    """The field names of the struct at a path, as a template writes them."""
    struct = _bare(_type_at(loc), lambda t: isinstance(t, type) and issubclass(t, msgspec.Struct))
    return list(struct.__struct_encode_fields__) if struct is not None else []


def line_of(root: yaml.Node, loc: list[str], *, exact: bool = False) -> int | None:
    """The 1-based line of the YAML node at a field path, as deep as it resolves (``exact``: None unless
    it resolves all the way)."""
    node = root
    line: int = root.start_mark.line + 1  # a yaml.Mark's 0-based line
    for part in loc:
        child = next(_children(node, part), None)
        if child is None:
            return None if exact else line
        node, line = child, child.start_mark.line + 1
    return line


def _children(node: yaml.Node, part: str) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if str(key_node.value) == part:
                yield key_node if isinstance(value_node, yaml.ScalarNode) and value_node.value == "" else value_node
    elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
        yield node.value[int(part)]
