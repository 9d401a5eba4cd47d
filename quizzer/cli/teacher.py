"""A teacher's commands: ``export`` (a randomized paper and answer sheet, an Anki deck, Moodle XML)
and ``report`` (the class's mastery, mistakes, hardest questions and who is behind).

The functions are registered on the app in ``quizzer.cli``; the exporters, the bank and the
report are imported inside each command.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from quizzer.cli.shared import bank_session, check_filters, reports_errors
from quizzer.common.errors import UserError

if TYPE_CHECKING:
    from quizzer.export.document import Section


@reports_errors
def export(
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, html, pdf, apkg, moodle, qti or json.")],
    key: Annotated[list[str] | None, typer.Option("--key", "-k", help="A question key (repeatable).")] = None,
    topic: Annotated[str | None, typer.Option(help="Questions on this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Questions of this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="The routed questions of this paper.")] = None,
    n: Annotated[int | None, typer.Option(
        "-n", min=1, max=1000, help="How many questions (default: all selected).")] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, help="Seed for the selection and the numbers (default: a fresh one).")] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="File to write (md: plus NAME-answers.md).")] = None,
    paper_only: Annotated[bool, typer.Option("--paper-only", help="Only the questions.")] = False,
    answers_only: Annotated[bool, typer.Option("--answers-only", help="Only the answer sheet.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    versions: Annotated[int, typer.Option(
        "--versions", help="N papers with different numbers and choice order, one answer key, a CSV (md, html, pdf)."
    )] = 1,
    paper_size: Annotated[str, typer.Option("--paper-size", help="a4 or letter (html, pdf).")] = "a4",
    title: Annotated[str | None, typer.Option("--title", help="The paper's title (default: what it covers).")] = None,
    instructions: Annotated[Path | None, typer.Option(
        "--instructions", help="A Markdown file printed under the title (time allowed, rules…).")] = None,
) -> None:
    """Export a randomized paper and its answer sheet (md, html, pdf), an Anki deck, Moodle XML or JSON."""
    import secrets

    from quizzer.export import check_request, read_layout
    from quizzer.export import export as export_paper
    from quizzer.export.document import Selection
    from quizzer.learning.selection import choose_instances

    if paper_only and answers_only:
        raise UserError("choose one of --paper-only and --answers-only")
    only: Section | None = "paper" if paper_only else "answers" if answers_only else None
    check_request(fmt, output, only)
    from quizzer.export.versions import check_versions

    check_versions(fmt, output, versions)
    layout = read_layout(paper_size, title, instructions)
    if versions > 1 and only:
        raise UserError("--versions writes the papers and one answer key: drop --paper-only / --answers-only")
    selection = Selection(seed=secrets.randbelow(1_000_000) if seed is None else seed, keys=tuple(key or ()),
                          topic=topic, week=week, paper=paper, n=n)
    with bank_session() as session:
        check_filters(topic=topic, paper=paper)
        instances = choose_instances(session=session, keys=selection.keys, topic=topic, week=week, paper=paper,
                                     n=n, seed=selection.seed)
        if versions > 1:
            from quizzer.bank.store import get_template
            from quizzer.export.versions import export_versions, version_instances

            every = version_instances(instances, lambda key: get_template(session=session, key=key), selection.seed,
                                      versions)
    if versions > 1 and output is not None:
        for path in export_versions(every, selection, fmt=fmt, output=output, force=force, layout=layout):
            typer.echo(str(path))
        return
    written = export_paper(instances, selection, fmt=fmt, output=output, only=only, force=force, layout=layout)
    sys.stdout.buffer.write(written.stdout)
    for path in written.paths:
        typer.echo(str(path))
    if written.paths and sys.stdout.isatty():
        from quizzer.export.document import regenerate_command

        typer.echo(f"{len(instances)} question(s), seed {selection.seed}; regenerate with: "
                   f"{regenerate_command(selection, fmt, output.name if output else None, layout=layout)}")


class ReportFormat(StrEnum):
    text = "text"
    md = "md"
    html = "html"
    json = "json"


@reports_errors
def report(
    paper: Annotated[str | None, typer.Option(help="Only the routed questions of this paper.")] = None,
    topic: Annotated[str | None, typer.Option(help="Only questions on this topic id.")] = None,
    fmt: Annotated[ReportFormat, typer.Option("--format", "-f", help="Output format.")] = ReportFormat.text,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="File to write (default: standard output).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the file if it exists.")] = False,
) -> None:
    """The teacher's report on every profile in the bank: mastery by topic, frequent misconceptions,
    the hardest questions and the learners who are behind."""
    from quizzer.common.clock import utcnow
    from quizzer.common.files import check_targets, write_files
    from quizzer.reporting.queries import load_class
    from quizzer.reporting.render import RENDERERS
    from quizzer.reporting.report import build_report, require_answers
    from quizzer.templates.catalog import load_catalog

    check_filters(topic=topic, paper=paper)
    if output is not None:
        check_targets([output], force=force)  # before the work, not after it
    with bank_session() as session:
        data = load_class(session=session, paper=paper, topic=topic)
    require_answers(data, paper=paper, topic=topic)
    result = build_report(data.attempts, data.learners, data.templates, load_catalog(), now=utcnow(),
                          paper=paper, topic=topic)
    document = RENDERERS[fmt.value](result)
    if output is None:
        typer.echo(document, nl=False)
        return
    write_files([(output, document.encode("utf-8"))])
    typer.echo(f"Wrote the {fmt.value} report on {result.learners} learner(s) and {result.attempts} answer(s) "
               f"to {output}.")
