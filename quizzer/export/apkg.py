"""An Anki deck (genanki): one note per question instance, math in MathJax ``\\(…\\)``.

Front: the prompt (with its choices and any figure of the prompt).  Back: the answer, the worked
solution and the misconception notes.  Every id is stable, so exporting again updates the
notes already in a collection instead of adding copies: the model id is fixed, the deck id
follows the deck's name (one deck per selection), and each note's GUID follows its template key
alone, so a fresh export (new numbers) replaces the old note's numbers rather than adding a note.
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from html import escape
from pathlib import Path

from quizzer.export.document import Paper, Question, Section
from quizzer.export.richtext import to_html, to_html_inline

MODEL_NAME = "quizzer question"
FIELDS = ("Key", "Seed", "Title", "Prompt", "Answer", "Solution", "Mistakes")
CSS = """
.card { font-family: Charter, "Noto Serif", Georgia, serif; font-size: 18px; line-height: 1.45; text-align: left;
        max-width: 42em; margin: 0 auto; color: #1b1b1b; background: #fff; }
.nightMode .card, .night_mode .card { color: #e8e8e8; background: #1e1e1e; }
.title { font-weight: bold; font-size: 1.1em; margin-bottom: 0.2em; }
.meta { color: #777; font-size: 0.75em; margin-bottom: 0.8em; }
.choices { list-style: none; padding-left: 0.4em; }
.answer { border-left: 4px solid #1a56a8; padding: 0.3em 0.7em; margin: 0.6em 0; }
.mistakes { border-left: 4px solid #d49a00; padding: 0.1em 0.7em; margin-top: 0.8em; font-size: 0.95em; }
img { max-width: 100%; height: auto; }
pre { overflow-x: auto; }
"""
FRONT = ('<div class="title">{{Title}}</div><div class="meta">{{Key}} · seed {{Seed}}</div>{{Prompt}}')
BACK = ('{{FrontSide}}<hr id="answer"><div class="answer"><b>Answer:</b> {{Answer}}</div>{{Solution}}'
        '{{#Mistakes}}<div class="mistakes"><b>Common mistakes</b>{{Mistakes}}</div>{{/Mistakes}}')


def stable_id(name: str) -> int:
    """A 31-bit id from a name (Anki ids are 64-bit; genanki recommends this range)."""
    return (1 << 30) + int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") % (1 << 30)


def deck_name(paper: Paper) -> str:
    """``quizzer::TITLE`` with ``--title`` (Anki's ``::`` nests it under quizzer), else what it covers."""
    return f"quizzer::{paper.layout.title or paper.selection.describe()}"


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    import genanki  # type: ignore[import-untyped]  # genanki ships no type hints

    del sections  # a card always has its question on the front and its answer on the back
    model = genanki.Model(stable_id(MODEL_NAME), MODEL_NAME, fields=[{"name": name} for name in FIELDS],
                          templates=[{"name": "Question", "qfmt": FRONT, "afmt": BACK}], css=CSS)
    deck = genanki.Deck(stable_id(deck_name(paper)), deck_name(paper))
    with tempfile.TemporaryDirectory(prefix="quizzer-apkg-") as folder:
        media = _Media(Path(folder))
        for question in paper.each():
            instance = question.instance
            deck.add_note(genanki.Note(model=model, fields=_fields(question, media), tags=list(question.tags),
                                       guid=genanki.guid_for(instance.key)))
        buffer = io.BytesIO()
        genanki.Package(deck, media_files=media.files).write_to_file(buffer)
    return buffer.getvalue()


class _Media:
    """Figures as SVG files in the package's media (Anki shows SVG images; vectors stay sharp on any
    screen), named by their content: a re-export with new numbers brings a new file (Anki would rename
    one of the same name), an unchanged figure keeps its name."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.files: list[str] = []

    def figure(self, question: Question, where: str) -> str:
        instance = question.instance
        if instance.figure is None or instance.figure.where != where:
            return ""
        from quizzer.figures import draw

        svg = draw(instance.figure)
        name = f"quizzer-{hashlib.sha256(svg.encode()).hexdigest()[:16]}.svg"
        (self.folder / name).write_text(svg, encoding="utf-8")
        self.files.append(str(self.folder / name))
        return f'<div><img src="{name}"></div>'


def _fields(question: Question, media: _Media) -> list[str]:
    instance = question.instance
    choices = "".join(f"<li><b>({chr(97 + i)})</b> {_inline(choice)}</li>"
                      for i, choice in enumerate(instance.choices))
    listed = f'<ul class="choices">{choices}</ul>' if choices else ""
    prompt = _html(instance.prompt) + media.figure(question, "prompt") + listed
    accepted = f" <small>(accepted {escape(question.accepted)})</small>" if question.accepted else ""
    shown = question.sheet_answer
    answer = accepted + _html(shown) if question.answer_is_block else _inline(shown) + accepted
    mistakes = "".join(f"<li><b>{_inline(note.answer)}</b>: {_inline(note.feedback)}</li>" for note in question.notes)
    return [escape(instance.key), str(instance.seed), _inline(instance.title), prompt, answer,
            _html(instance.solution) + media.figure(question, "solution"), f"<ul>{mistakes}</ul>" if mistakes else ""]


def _html(markdown: str) -> str:
    return to_html(markdown, math="mathjax")


def _inline(markdown: str) -> str:
    return to_html_inline(markdown, math="mathjax")
