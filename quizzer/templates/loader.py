"""Read a template file safely and turn every problem into one line naming file, template and field."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.errors import TemplateError
from quizzer.common.untrusted import CONTROL
from quizzer.templates.characters import ambiguous_scalar, character_problem, ignorable_outside_prose
from quizzer.templates.schema import MAX_BOUND, Template
from quizzer.templates.schema_errors import describe_error, line_of

MAX_FILE_BYTES = 256 * 1024
# libyaml's safe loader when present (about 10x faster); the pure-Python one otherwise. Both are safe.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_YAML_DEPTH = 12
# All of one template's text (every string field, placeholders included) and its '{{ expression }}'s.
MAX_TEXT_CHARS = 50_000
MAX_PLACEHOLDERS = 200


def load_path(path: Path) -> Template:
    """Load and validate one template file (structure only; see validate.py for rendering)."""
    return load_text(read_template_file(path), where=str(path))


def read_template_file(path: Path) -> str:
    """A template file's text, read once (what is checked is what is stored), within the size limit."""
    where = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TemplateError(f"file is {size:,} bytes; a template may be at most {MAX_FILE_BYTES:,}", where=where)
        raw = path.read_bytes()
    except OSError as exc:
        raise TemplateError(f"cannot read file: {exc.strerror or exc}", where=where) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"not UTF-8 text (byte {exc.start})", where=where) from None


def load_text(text: str, *, where: str) -> Template:
    """Parse YAML (safe loader, no aliases, bounded depth) and validate it as a Template."""
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise TemplateError(f"template text is larger than {MAX_FILE_BYTES:,} bytes", where=where)
    unreadable = character_problem(text)  # before YAML reads it (a raw NUL would be a ReaderError)
    if unreadable:
        line, column, problem = unreadable
        raise TemplateError(problem, where=f"{where}:{line}:{column}")
    node, data = _parse_yaml(text, where)
    if not isinstance(data, dict):
        raise TemplateError("a template file must be a YAML mapping of fields (key:, title:, ...)", where=where)
    key = data.get("key") if isinstance(data.get("key"), str) else None
    try:
        template = msgspec.convert(data, Template, strict=False)  # lax as YAML is: "1e-3" is a number
    except msgspec.ValidationError as exc:
        raise TemplateError(describe_error(exc, data, node), where=_where(where, key)) from None
    _check_text(data, node, _where(where, key))
    return template


def _check_text(data: Any, root: yaml.Node, where: str) -> None:
    """Bound the work every instance does on text: every ``{{ }}`` is evaluated for every seed validated
    and every instance shown, and all text is scanned each time, so a file within the size limit could
    otherwise hold thousands of placeholders or 250 KB of prompts (the largest bundled template has
    about 50 placeholders in 4,000 characters)."""
    chars = placeholders = 0
    for path, text in _strings(data, ()):
        chars, placeholders = chars + len(text), placeholders + text.count("{{")
        if chars > MAX_TEXT_CHARS or placeholders > MAX_PLACEHOLDERS:
            problem = (f"more than {MAX_TEXT_CHARS:,} characters of text" if chars > MAX_TEXT_CHARS
                       else f"more than {MAX_PLACEHOLDERS} '{{{{ }}}}' placeholders")
            raise TemplateError(f"field {'.'.join(path)!r}: the template has {problem} in all "
                                f"(line {line_of(root, list(path))})", where=where)


def _strings(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for name, child in value.items():
            yield from _strings(child, (*path, str(name)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, (*path, str(index)))


def _where(path: str, key: str | None) -> str:
    """``FILE: template 'KEY'``; a key too long to read is cut short (it is refused anyway)."""
    if not key:
        return path
    return f"{path}: template {key!r}" if len(key) <= 100 else f"{path}: template {key[:100]!r}…"


def _parse_yaml(text: str, where: str) -> tuple[yaml.Node, Any]:
    _check_events(text, where)
    loader = SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise TemplateError("the file is empty", where=where)
        return node, loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise TemplateError(_yaml_problem(exc), where=_at(where, exc.problem_mark or exc.context_mark)) from None
    except yaml.YAMLError as exc:
        raise TemplateError(f"invalid YAML: {exc}", where=where) from None
    except (ValueError, OverflowError) as exc:  # a scalar YAML resolves but cannot build: 2024-13-45
        path, scalar = next(_unbuildable(SafeLoader(""), node, ()), ((), node))
        raise TemplateError(f"field {'.'.join(path)!r}: invalid YAML value: {str(exc).splitlines()[0]}",
                            where=_where(_at(where, scalar.start_mark), _stated_key(node))) from None
    finally:
        loader.dispose()


def _stated_key(root: yaml.Node) -> str | None:
    if isinstance(root, yaml.MappingNode):
        for key_node, value_node in root.value:
            if key_node.value == "key" and isinstance(value_node, yaml.ScalarNode):
                return str(value_node.value)
    return None


def _unbuildable(loader: Any, node: yaml.Node, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], yaml.Node]]:
    """The scalars under ``node`` that YAML cannot turn into values, with their field paths
    (``loader``: a fresh one, since the one that failed remembers the half-built document)."""
    if isinstance(node, yaml.ScalarNode):
        try:
            loader.construct_object(node)
        except (ValueError, OverflowError):
            yield path, node
    elif isinstance(node, yaml.SequenceNode):
        for index, child in enumerate(node.value):
            yield from _unbuildable(loader, child, (*path, str(index)))
    elif isinstance(node, yaml.MappingNode):
        for key_node, child in node.value:
            yield from _unbuildable(loader, child, (*path, str(key_node.value)))


# The only tags a template may carry: YAML's own plain-data types.  Everything else
# (!!python/object, !!python/name, custom tags) is refused before anything is built.
_DATA_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "seq", "map")}
_LONG_INTEGER = re.compile(r"[-+]?[0-9_]{1000,}")  # Python will not even convert 4300+ digits
# Every mapping key in a template is a field or a name (a parameter, a derived value): plain ASCII,
# so no space, newline, invisible character or look-alike letter can make two keys that read the
# same differ, or a key read differently from what it is.
FIELD_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_RESOLVER = yaml.resolver.Resolver()  # how YAML types a plain scalar: 'true' is a bool, '1' an int
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


class _Frame(msgspec.Struct):
    """One open mapping or sequence while walking the YAML events: where it is and what comes next."""

    path: tuple[str, ...]
    mapping: bool
    slot: str | int = 0  # the current key (mapping) or index (sequence)
    expecting_key: bool = True
    lines: dict[str, int] = msgspec.field(default_factory=dict)  # a mapping's keys so far, with their lines


def _check_events(text: str, where: str) -> None:
    """Refuse aliases (billion-laughs expansion), deep nesting, tags that build objects, keys that
    are not plain names or come twice, and numbers that are not finite or absurdly large, before
    anything is built; the message names the template, the field and (for a key) its line."""
    stack: list[_Frame] = []
    key: str | None = None
    documents = 0
    try:
        for event in yaml.parse(text, Loader=SafeLoader):
            documents += isinstance(event, yaml.DocumentStartEvent)
            path = _node_path(stack)
            if isinstance(event, yaml.ScalarEvent) and path == ("key",):
                key = event.value
            is_key = bool(stack) and stack[-1].mapping and stack[-1].expecting_key \
                and isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent))
            problem = _event_problem(event, len(stack), documents) \
                or (_key_problem(event, stack[-1]) if is_key else None) \
                or (_scalar_problem(event, path) if isinstance(event, yaml.ScalarEvent) else None)
            if problem:
                named = (*path, event.value) if is_key and isinstance(event, yaml.ScalarEvent) else path
                raise TemplateError(f"field {'.'.join(named) or '(top level)'!r}: {problem}",
                                    where=_where(_at(where, event.start_mark), key))
            _advance(stack, event, path)
    except yaml.MarkedYAMLError as exc:  # broken syntax: the line says where, better than a field
        raise TemplateError(_yaml_problem(exc),
                            where=_where(_at(where, exc.problem_mark or exc.context_mark), key)) from None


def _event_problem(event: yaml.Event, depth: int, documents: int) -> str | None:
    if isinstance(event, yaml.DocumentStartEvent) and documents > 1:
        return "a template file holds one YAML document; '---' starts another, which would be ignored"
    if isinstance(event, yaml.AliasEvent):
        return "YAML aliases ('*name') are not allowed in templates"
    if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)) and depth >= MAX_YAML_DEPTH:
        return f"YAML nests deeper than {MAX_YAML_DEPTH} levels"
    tag = getattr(event, "tag", None)
    if tag is not None and tag not in _DATA_TAGS and tag != "!":
        shown = tag.replace("tag:yaml.org,2002:", "!!")
        return f"YAML tag {shown} is not allowed: templates are plain data and never run code"
    if isinstance(event, yaml.ScalarEvent):
        # Text reaches a terminal (escape sequences could clear it, retitle it or write the clipboard) and a
        # reviewer (bidirectional controls make a prompt read differently from what it says).
        control = CONTROL.search(event.value)
        if control:
            return f"control character U+{ord(control.group()):04X} is not allowed in a template's text"
        return _number_problem(event)
    return None


def _scalar_problem(event: yaml.ScalarEvent, path: tuple[str, ...]) -> str | None:
    """A value that reads differently from what loads (characters.py): invisible outside prose, or typed
    one way by YAML 1.1 and another by YAML 1.2."""
    return ignorable_outside_prose(event.value, path) or ambiguous_scalar(event)


def _scalar_tag(event: yaml.ScalarEvent) -> str:
    """The type YAML gives a scalar: its explicit tag, else what its plain text resolves to."""
    if event.tag not in (None, "!"):
        return str(event.tag)
    if not event.implicit[0]:  # quoted: a string
        return "tag:yaml.org,2002:str"
    return str(_RESOLVER.resolve(yaml.ScalarNode, event.value, event.implicit))


def _number_problem(event: yaml.ScalarEvent) -> str | None:
    """Numbers are finite and within ±MAX_BOUND, where every integer is also an exact float."""
    tag = _scalar_tag(event)
    if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        return None
    if _LONG_INTEGER.fullmatch(event.value):
        return f"a number with {len(event.value):,} digits is too large"
    build = _CONSTRUCTOR.construct_yaml_int if tag.endswith("int") else _CONSTRUCTOR.construct_yaml_float
    try:
        value = build(yaml.ScalarNode(tag, event.value))
    except (ValueError, OverflowError):
        return None  # reported, with its field, where the document is built
    if isinstance(value, float) and not math.isfinite(value):
        return f"{event.value!r} is not allowed: every number in a template must be finite"
    if abs(value) > MAX_BOUND:
        shown = event.value if len(event.value) <= 30 else f"{event.value[:30]}… ({len(event.value):,} characters)"
        return f"{shown} is too large: numbers in a template are at most {MAX_BOUND:,} in size"
    return None


def _key_problem(event: yaml.Event, mapping: _Frame) -> str | None:
    """A mapping key is a plain ASCII name (as YAML types it: a string) and appears once."""
    if not isinstance(event, yaml.ScalarEvent):
        return ("a field name must be a plain name, not a list or a mapping "
                "(a text that starts with '{' or '[' needs quotes)")
    name = event.value
    if not FIELD_NAME.fullmatch(name) or _scalar_tag(event) != "tag:yaml.org,2002:str":
        odd = next((ch for ch in name if not (ch.isascii() and (ch.isalnum() or ch == "_"))), None)
        detail = f" (it contains U+{ord(odd):04X} {unicodedata.name(odd, 'a control character')})" if odd else ""
        return (f"a field name must be 1 to 64 ASCII letters, digits and '_', starting with a letter "
                f"(text, not a number or true/false){detail}")
    if name in mapping.lines:
        return (f"appears twice in the same mapping (first on line {mapping.lines[name]}); "
                "YAML would silently keep only the second")
    mapping.lines[name] = event.start_mark.line + 1
    return None


def _node_path(stack: list[_Frame]) -> tuple[str, ...]:
    """The field path of the node an event starts (a mapping's keys belong to the mapping)."""
    if not stack:
        return ()
    top = stack[-1]
    return top.path if top.mapping and top.expecting_key else (*top.path, str(top.slot))


def _advance(stack: list[_Frame], event: yaml.Event, path: tuple[str, ...]) -> None:
    """Update the open collections after one event."""
    if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
        stack.append(_Frame(path, mapping=isinstance(event, yaml.MappingStartEvent)))
        return
    if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
        stack.pop()
    elif not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
        return  # stream and document events are not nodes
    if not stack:
        return
    top = stack[-1]
    if not top.mapping:
        top.slot = int(top.slot) + 1
    elif top.expecting_key:
        top.slot, top.expecting_key = (event.value if isinstance(event, yaml.ScalarEvent) else "?"), False
    else:
        top.expecting_key = True


def _yaml_problem(exc: yaml.MarkedYAMLError) -> str:
    problem = exc.problem or "invalid YAML"
    if "nesting depth" in problem:  # libyaml's own limit, reached before ours on absurd nesting
        return f"YAML nests deeper than {MAX_YAML_DEPTH} levels"
    return f"invalid YAML: {problem}"


def _at(where: str, mark: Any) -> str:
    return f"{where}:{mark.line + 1}" if mark is not None else where
