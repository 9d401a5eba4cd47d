"""JSON: a versioned paper, ``{"format": "quizzer-paper", "version": 2, "seed": …, "questions": […]}``.

Each question is an instance as ``quizzer generate --format json`` prints it (that command keeps
its bare list).  ``paper.schema.json`` beside this module is the JSON Schema of the document; the
version goes up when a field changes meaning or goes away (new fields may appear without it).
"""

from __future__ import annotations

import json

from quizzer.export.document import Paper, Section

FORMAT = "quizzer-paper"
VERSION = 2  # 2: multi-part questions (kind 'parts', with their 'parts')


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    questions = [(question.whole or question.instance).to_json(solutions="answers" in sections)
                 for question in paper.each()]
    document = {"format": FORMAT, "version": VERSION, "seed": paper.selection.seed, "title": paper.title,
                "regenerate": paper.command, "total_points": sum(question["points"] for question in questions),
                "questions": questions}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()
