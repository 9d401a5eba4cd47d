"""Instances as text for a terminal or as Markdown, with or without answers and solutions."""

from __future__ import annotations

import json
from collections.abc import Sequence

from quizzer.templates.instance import Instance
from quizzer.text.mathtext import terminal_text


def render_instance(instance: Instance, *, fmt: str = "text", solutions: bool = False,
                    number: int | None = None) -> str:
    """One question as ``text`` (math converted to Unicode, bold marks dropped) or ``md`` (GitHub Markdown
    with ``$…$`` math)."""
    math = terminal_text if fmt == "text" else _identity
    label = f"{number}. " if number is not None else ""
    if fmt == "md":
        lines = [f"### {label}{instance.title}", "", f"`{instance.key}` · seed {instance.seed}", ""]
    else:
        lines = [f"{label}{instance.title}  [{instance.key} · seed {instance.seed}]", ""]
    lines += [math(instance.prompt).rstrip(), ""]
    lines += [f"{'- ' if fmt == 'md' else '  '}({chr(97 + i)}) {math(text)}" for i, text in enumerate(instance.choices)]
    if instance.choices:
        lines.append("")
    for part in instance.parts:  # one after another, each with its routed ID and marks
        routed = f" [{part.id}]" if part.id else ""
        lines += [f"{'**' if fmt == 'md' else '  '}({part.label}){'**' if fmt == 'md' else ''}{routed} "
                  f"{math(part.question.prompt).rstrip()}  ({part.question.points:g} marks)", ""]
    if solutions:
        bold = "**" if fmt == "md" else ""
        lines += [f"{bold}Answer:{bold} {math(instance.answer_text)}", "", f"{bold}Solution.{bold}",
                  math(instance.solution).rstrip(), ""]
    return "\n".join(lines)


def _identity(text: str) -> str:
    return text


def render_json(instances: Sequence[Instance], *, solutions: bool) -> str:
    """Instances as the JSON list ``generate --format json`` prints (``export --format json`` wraps them)."""
    return json.dumps([instance.to_json(solutions=solutions) for instance in instances], indent=2, ensure_ascii=False)
