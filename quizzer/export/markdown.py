"""GitHub-flavoured Markdown with ``$…$`` math: the templates' own text, arranged as a paper.

Figures are SVG files written beside the paper (``paper.md`` → ``paper-figure-3.svg``) and linked
from it; on standard output (no ``-o``) there is no file to link, so a figure is named instead.
"""

from __future__ import annotations

from quizzer.export.document import CommonWrongAnswer, Paper, Question, Section, marks


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    parts = [_SECTIONS[section](paper) for section in sections]
    return ("\n---\n\n".join(parts)).encode()


def render_key(papers: list[Paper]) -> bytes:
    """One answer key for every version: each version's answer sheet, one after another."""
    return ("\n---\n\n".join(_answers(paper) for paper in papers)).encode()


def _paper(paper: Paper) -> str:
    instructions = f"{paper.layout.instructions.strip()}\n\n" if paper.layout.instructions.strip() else ""
    stamp = f"{paper.totals} · paper code **{paper.code}**\n\n" if paper.exam else _stamp(paper)
    # The candidate box, as on the printed papers: a line to write on for each.
    candidate = (f"Name: {_LINE * 24}  Student ID: {_LINE * 12}  Score: {_LINE * 6} / {paper.total_points:g}\n\n")
    return (f"# {paper.title}\n\n{stamp}{instructions}{candidate}"
            + "".join(_question(paper, question) for question in paper.each()))


def _answers(paper: Paper) -> str:
    code = f"Paper code **{paper.code}** · " if paper.exam else ""
    return f"# Answer sheet — {paper.title}\n\n{code}{_stamp(paper)}" + "".join(_answer(paper, question)
                                                                                for question in paper.each())


def _stamp(paper: Paper) -> str:
    return f"{paper.totals} · seed {paper.selection.seed} · regenerate with `{paper.command}`\n\n"


def attachments(paper: Paper) -> list[tuple[str, bytes]]:
    """The figures the paper and its answer sheet link to: (file name beside the paper, SVG)."""
    from quizzer.figures import draw

    return [(_figure_name(paper, question), draw(question.instance.figure).encode())
            for question in paper.questions if question.instance.figure is not None and paper.output]


def _figure_name(paper: Paper, question: Question) -> str:
    stem = (paper.output or "paper").rsplit(".", 1)[0]
    return f"{stem}-figure-{paper.version}{question.number}.svg"


def _figure(paper: Paper, question: Question, where: str) -> str:
    figure = question.instance.figure
    if figure is None or figure.where != where:
        return ""
    if paper.output is None:
        return f"*(Figure: export with `-o FILE` to get it as {_figure_name(paper, question)}.)*"
    return f"![Figure for question {question.number}]({_figure_name(paper, question)})"


def _question(paper: Paper, question: Question) -> str:
    instance = question.instance
    lines = [_heading(question, meta=not paper.exam), "", instance.prompt.strip(), "",
             _figure(paper, question, "prompt"), ""]
    lines += [f"- ({chr(97 + i)}) {choice}" for i, choice in enumerate(instance.choices)]
    # Room to write the answer: ruled lines (escaped underscores: a bare "___" would be a horizontal rule).
    lines += ["", "*Your answer:*", "", *([_LINE * 60 + "\n"] * ANSWER_LINES.get(instance.kind, DEFAULT_ANSWER_LINES))]
    return "\n".join(lines).rstrip() + "\n\n"


_LINE = "\\_"  # an underscore Markdown prints as one
ANSWER_LINES = {"choice": 1, "multi": 1, "bool": 1, "shape": 2, "text": 8}
DEFAULT_ANSWER_LINES = 5


def _answer(paper: Paper, question: Question) -> str:
    accepted = f" (accepted {question.accepted})" if question.accepted else ""
    gap = "\n\n" if question.answer_is_block else " "  # a list after the label would not be a list
    # A note after a block answer would read as part of its last line: before the block, it reads as the answer's.
    shown = f"{accepted}{gap}{question.sheet_answer.strip()}" if question.answer_is_block else \
        f"{gap}{question.sheet_answer.strip()}{accepted}"
    lines = [_heading(question), "", f"**Answer:**{shown}", "",
             "**Worked solution.**", "", question.instance.solution.strip(), "", _figure(paper, question, "solution"),
             ""]
    if question.wrong_answers:
        lines += ["**Common wrong answers.**", ""]
        lines += [f"- {_wrong_answer(wrong)}" for wrong in question.wrong_answers]
    return "\n".join(lines).rstrip() + "\n\n"


def _wrong_answer(wrong: CommonWrongAnswer) -> str:
    mistake = f"*mistake:* **{wrong.mistake}.** " if wrong.mistake else ""
    return f"{wrong.answer} — {mistake}{wrong.feedback}"


def _heading(question: Question, meta: bool = True) -> str:
    """The question's number, title and marks; where it came from (key and seed) only where ``meta``."""
    instance = question.instance
    title = f"## {question.number}. {instance.title} [{marks(instance.points)}]"
    return f"{title}\n\n`{instance.key}` · seed {instance.seed}" if meta else title


_SECTIONS = {"paper": _paper, "answers": _answers}
