"""JSON: the instances exactly as ``quizzer generate --format json`` prints them."""

from __future__ import annotations

from quizzer.export.document import Paper, Section
from quizzer.templates.render import render_json


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    instances = [question.instance for question in paper.each()]
    return (render_json(instances, solutions="answers" in sections) + "\n").encode()
