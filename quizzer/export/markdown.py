"""GitHub-flavoured Markdown with ``$…$`` math: the templates' own text, arranged as a paper."""

from __future__ import annotations

from quizzer.export.document import CommonWrongAnswer, Paper, Question, Section


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    parts = [_SECTIONS[section](paper) for section in sections]
    return ("\n---\n\n".join(parts)).encode()


def _paper(paper: Paper) -> str:
    return _header(f"# {paper.title}", paper) + "".join(_question(question) for question in paper.each())


def _answers(paper: Paper) -> str:
    return _header(f"# Answer sheet — {paper.title}", paper) + "".join(_answer(question) for question in paper.each())


def _header(title: str, paper: Paper) -> str:
    return f"{title}\n\nSeed {paper.selection.seed} · regenerate with `{paper.command}`\n\n"


def _question(question: Question) -> str:
    instance = question.instance
    lines = [_heading(question), "", instance.prompt.strip(), ""]
    lines += [f"- ({chr(97 + i)}) {choice}" for i, choice in enumerate(instance.choices)]
    return "\n".join(lines).rstrip() + "\n\n"


def _answer(question: Question) -> str:
    accepted = f" (accepted {question.accepted})" if question.accepted else ""
    lines = [_heading(question), "", f"**Answer:** {question.sheet_answer.strip()}{accepted}", "",
             "**Worked solution.**", "", question.instance.solution.strip(), ""]
    if question.wrong_answers:
        lines += ["**Common wrong answers.**", ""]
        lines += [f"- {_wrong_answer(wrong)}" for wrong in question.wrong_answers]
    return "\n".join(lines).rstrip() + "\n\n"


def _wrong_answer(wrong: CommonWrongAnswer) -> str:
    mistake = f"*mistake:* **{wrong.mistake}.** " if wrong.mistake else ""
    return f"{wrong.answer} — {mistake}{wrong.feedback}"


def _heading(question: Question) -> str:
    instance = question.instance
    return f"## {question.number}. {instance.title}\n\n`{instance.key}` · seed {instance.seed}"


_SECTIONS = {"paper": _paper, "answers": _answers}
