"""The ``quizzer`` command line.

Heavy modules (numpy, sqlmodel, the engine, torch) are imported inside the commands
that need them, so ``quizzer --help`` and ``quizzer --version`` stay fast.  Every
command reports bad input as one line on stderr with exit status 2.
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from quizzer import __version__
from quizzer.common.errors import UserError, did_you_mean
from quizzer.templates import MAX_SEED, VALIDATION_SEEDS

if TYPE_CHECKING:
    from sqlmodel import Session

    from quizzer.export.document import Section
    from quizzer.grading.verdict import Verdict

app = typer.Typer(
    name="quizzer",
    help="Exam revision for the Transformers course: randomized questions, graded at once, with worked solutions.",
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])


class Format(StrEnum):
    text = "text"
    md = "md"
    json = "json"


def reports_errors(command: F) -> F:
    """Turn a UserError into one line on stderr and exit status 2 (no traceback reaches a user)."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except UserError as exc:
            typer.echo(f"quizzer: {exc}", err=True)
            raise typer.Exit(2) from None
    return wrapper  # type: ignore[return-value]


@contextmanager
def bank_session() -> Iterator[Session]:
    """Open the bank, bring the bundled questions up to date, and yield a session."""
    from quizzer.bank.db import database_errors
    from quizzer.bank.ready import open_ready_bank

    with database_errors():
        engine, session = open_ready_bank()
        try:
            with session:
                yield session
        finally:
            engine.dispose()


def _version(value: bool) -> None:
    if value:
        typer.echo(f"quizzer {__version__}")
        raise typer.Exit()


@app.callback()
@reports_errors
def root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    profile: Annotated[str | None, typer.Option(
        "--profile", metavar="NAME",
        help="Whose progress: a learner profile (default: $QUIZZER_PROFILE, else your OS user name).")] = None,
) -> None:
    """Exam revision for the Transformers course. With no command: open the practice app."""
    from quizzer.common.profiles import current_profile_name

    ctx.obj = current_profile_name(profile)
    if ctx.invoked_subcommand is None:
        _run_app(ctx.obj)


def _run_app(profile: str, topic: str | None = None, week: int | None = None, paper: str | None = None) -> None:
    from quizzer.tui.app import Filters, make_app

    practice_app = make_app(profile=profile, filters=Filters(topic=topic, week=week, paper=paper))
    practice_app.run()
    if practice_app.failure is not None:
        raise practice_app.failure


@app.command()
@reports_errors
def practise(
    ctx: typer.Context,
    topic: Annotated[str | None, typer.Option(help="Practise this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Practise this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="Practise the routed questions of this paper.")] = None,
) -> None:
    """Open the practice app on the given selection (no options: the dashboard)."""
    _check_filters(topic=topic, paper=paper)
    _run_app(ctx.obj, topic, week, paper)


# --- adding and checking templates -------------------------------------------------------------

@app.command()
@reports_errors
def validate(
    paths: Annotated[list[Path] | None,
                     typer.Argument(help="Template files or directories (default: the bundled questions/).")] = None,
    seeds: Annotated[int, typer.Option(min=1, max=10_000,
                                       help="Seeds to test-render per template.")] = VALIDATION_SEEDS,
) -> None:
    """Check templates without writing anything: structure, references, and test renders."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.validate import template_files, validate_files

    files = template_files(paths or [questions_dir()])
    loaded = validate_files(files, seeds=seeds)
    typer.echo(f"{len(loaded)} template(s) valid, each test-rendered over {seeds} seeds.")


@app.command()
@reports_errors
def verify(
    paths: Annotated[list[Path] | None,
                     typer.Argument(help="Template files or directories (default: the bundled questions/).")] = None,
    seeds: Annotated[int, typer.Option(min=1, max=10_000, help="Seeds to recompute per template.")] = 20,
) -> None:
    """Recompute every answer with the NumPy and the PyTorch engine backends; fail on any disagreement."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.validate import template_files, validate_files
    from quizzer.templates.verify import verify_templates

    loaded = validate_files(template_files(paths or [questions_dir()]), seeds=1)
    report = verify_templates((item.template for item in loaded), seeds=seeds)
    typer.echo(f"{report.templates} template(s), {report.instances} instances, {report.values} computed values: "
               "NumPy and PyTorch agree.")


@app.command()
@reports_errors
def add(
    files: Annotated[list[Path], typer.Argument(help="Template YAML files (or directories) to add or update.")],
    seeds: Annotated[int, typer.Option(min=1, max=10_000,
                                       help="Seeds to test-render per template.")] = VALIDATION_SEEDS,
) -> None:
    """Validate templates, then insert or update them in the bank: all files or none."""
    from quizzer.bank.store import import_templates
    from quizzer.templates.validate import template_files, validate_files

    loaded = validate_files(template_files(files), seeds=seeds)
    with bank_session() as session:
        _refuse_bundled_keys(session, loaded)
        report = import_templates(session=session, loaded=loaded)
        session.commit()
    typer.echo(f"{report.summary()}.")


def _refuse_bundled_keys(session: Session, loaded: list[Any]) -> None:
    """A bundled question cannot be replaced with `add`: the bundled file is re-imported whenever it
    differs from the bank, which would silently undo the change at the next start."""
    from quizzer.bank.models import Template
    from quizzer.templates.catalog import questions_dir

    bundled = questions_dir().resolve()
    for item in loaded:
        row = session.get(Template, item.template.key)
        if row is not None and Path(row.file).resolve().is_relative_to(bundled) \
                and Path(item.path).resolve() != Path(row.file).resolve():
            raise UserError(f"template {item.template.key!r} is a bundled question ({row.file}); give your version "
                            "a key of its own, e.g. 'practice/my-…', or edit the bundled file", where=str(item.path))


# --- browsing -----------------------------------------------------------------------------------

@app.command("list")
@reports_errors
def list_templates(
    topic: Annotated[str | None, typer.Option(help="Only templates on this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Only templates of this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="Only routed records of this paper, e.g. 2024T3_Q1_NA.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the questions in the bank."""
    from quizzer.bank.store import select_templates, template_topics

    with bank_session() as session:
        _check_filters(topic=topic, paper=paper)
        rows = select_templates(session=session, topic=topic, week=week, paper=paper)
        links = template_topics(session=session)
    items: list[dict[str, Any]] = [  # JSON objects
        {"key": r.key, "title": r.title, "week": r.week, "kind": r.kind, "difficulty": r.difficulty,
         "paper": r.paper, "topics": links.get(r.key, [])} for r in rows]
    if as_json:
        typer.echo(json.dumps(items, indent=2, ensure_ascii=False))
        return
    width = max((len(item["key"]) for item in items), default=3)
    for item in items:
        typer.echo(f"{item['key']:<{width}}  W{item['week']}  {item['kind']:<10}  {item['title']}")
    typer.echo(f"{len(items)} question(s).")


@app.command()
@reports_errors
def topics(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the course topics with how many questions each has."""
    from quizzer.bank.store import template_topics
    from quizzer.templates.catalog import load_catalog

    catalog = load_catalog()
    with bank_session() as session:
        links = template_topics(session=session)
    counts = {t.id: 0 for t in catalog.topics.values()}
    for topic_ids in links.values():
        for topic_id in topic_ids:
            counts[topic_id] = counts.get(topic_id, 0) + 1
    items = [{"id": t.id, "name": t.name, "week": t.week, "section": t.section, "pages": t.pages,
              "prerequisites": list(t.prerequisites), "templates": counts[t.id]} for t in catalog.topics.values()]
    if as_json:
        typer.echo(json.dumps(items, indent=2, ensure_ascii=False))
        return
    for item in items:
        typer.echo(f"W{item['week']}  {item['id']:<30} {item['templates']:>3}  {item['name']}")


@app.command()
@reports_errors
def coverage(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """What the bank covers: per topic, paper and kind, and which misconceptions it can diagnose."""
    from quizzer.bank.store import all_templates
    from quizzer.reporting.coverage import measure, render_text
    from quizzer.templates.catalog import load_catalog

    catalog = load_catalog()
    with bank_session() as session:
        report = measure(all_templates(session=session), catalog)
    typer.echo(json.dumps(report.to_json(), indent=2) if as_json else render_text(report, catalog))


@app.command()
@reports_errors
def show(
    key: Annotated[str, typer.Argument(help="Question key, e.g. '2024T3_Q1_NA Q277'.")],
    seed: Annotated[int, typer.Option(min=0, help="Instance seed (0 = the notes' canonical numbers).")] = 0,
) -> None:
    """Show one instance of a question with its answer and worked solution."""
    from quizzer.templates.instance import make_instance
    from quizzer.templates.render import render_instance

    with bank_session() as session:
        instance = make_instance(_template(session, key), seed)
    typer.echo(render_instance(instance, fmt="text", solutions=True))


# --- practising ---------------------------------------------------------------------------------

@app.command()
@reports_errors
def generate(
    key: Annotated[list[str] | None, typer.Option("--key", "-k", help="A question key (repeatable).")] = None,
    topic: Annotated[str | None, typer.Option(help="Questions on this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Questions of this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="The routed questions of this paper.")] = None,
    n: Annotated[int | None,
                 typer.Option("-n", min=1, max=1000, help="How many questions (default: all selected).")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed for the selection and the instances.")] = 1,
    solutions: Annotated[bool, typer.Option("--solutions", help="Include answers and worked solutions.")] = False,
    fmt: Annotated[Format, typer.Option("--format", help="Output format.")] = Format.text,
) -> None:
    """Generate randomized instances; the same options and seed always give the same questions."""
    from quizzer.learning.selection import choose_instances
    from quizzer.templates.render import render_instance, render_json

    with bank_session() as session:
        _check_filters(topic=topic, paper=paper)
        instances = choose_instances(session=session, keys=key or (), topic=topic, week=week, paper=paper,
                                     n=n, seed=seed)
    if fmt is Format.json:
        typer.echo(render_json(instances, solutions=solutions))
        return
    for number, instance in enumerate(instances, 1):
        typer.echo(render_instance(instance, fmt=fmt.value, solutions=solutions, number=number))


@app.command()
@reports_errors
def export(
    fmt: Annotated[str, typer.Option("--format", "-f", help="md, html, pdf, apkg, moodle or json.")],
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
) -> None:
    """Export a randomized paper and its answer sheet (md, html, pdf), an Anki deck, Moodle XML or JSON."""
    import secrets

    from quizzer.export import check_request
    from quizzer.export import export as export_paper
    from quizzer.export.document import Selection
    from quizzer.learning.selection import choose_instances

    if paper_only and answers_only:
        raise UserError("choose one of --paper-only and --answers-only")
    only: Section | None = "paper" if paper_only else "answers" if answers_only else None
    check_request(fmt, output, only)
    selection = Selection(seed=secrets.randbelow(1_000_000) if seed is None else seed, keys=tuple(key or ()),
                          topic=topic, week=week, paper=paper, n=n)
    with bank_session() as session:
        _check_filters(topic=topic, paper=paper)
        instances = choose_instances(session=session, keys=selection.keys, topic=topic, week=week, paper=paper,
                                     n=n, seed=selection.seed)
    written = export_paper(instances, selection, fmt=fmt, output=output, only=only, force=force)
    sys.stdout.buffer.write(written.stdout)
    for path in written.paths:
        typer.echo(str(path))
    if written.paths and sys.stdout.isatty():
        typer.echo(f"{len(instances)} question(s), seed {selection.seed}; regenerate with: "
                   f"{shlex.join(['quizzer', 'export', *selection.options(), '--format', fmt])}")


@app.command()
@reports_errors
def grade(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Argument(help="Question key (not with --batch).")] = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="The instance's seed.")] = None,
    answer: Annotated[str | None, typer.Option(help="Your answer, typed as you would write it.")] = None,
    batch: Annotated[Path | None, typer.Option(
        "--batch", help="Grade every line of a CSV (key,seed,answer[,learner,seconds]) or JSON Lines file; "
                        "prints one JSON result per line.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Grade without recording the attempt.")] = False,
    seconds: Annotated[float | None, typer.Option(min=0, help="Time taken, recorded with the attempt.")] = None,
) -> None:
    """Grade an answer (or a file of answers) and record each attempt, exactly as the app would."""
    if batch is not None:
        if key is not None or seed is not None or answer is not None or seconds is not None:
            raise UserError("--batch takes its keys, seeds, answers and times from the file", where="--batch")
        _grade_batch(batch, profile=ctx.obj, dry_run=dry_run)
        return
    if key is None or seed is None or answer is None:
        missing = next(name for name, value in (("KEY", key), ("--seed", seed), ("--answer", answer)) if value is None)
        raise UserError(f"missing {missing} (or grade a file with --batch FILE)", where="grade")
    from quizzer.learning.batch import verdict_json

    verdict = _grade_one(key, seed, answer, profile=ctx.obj, dry_run=dry_run, seconds=seconds)
    if as_json:
        typer.echo(json.dumps(verdict_json(key, seed, verdict, recorded=not dry_run), indent=2, ensure_ascii=False))
        return
    from quizzer.text.mathtext import render_math

    typer.echo(f"{verdict.verdict.upper()} (score {verdict.score:g}) — "
               f"you answered {render_math(verdict.reading or '')}; expected {render_math(verdict.expected)}.")
    if verdict.feedback:
        typer.echo(render_math(verdict.feedback))


def _grade_one(key: str, seed: int, answer: str, *, profile: str, dry_run: bool, seconds: float | None) -> Verdict:
    """One answer graded, and recorded through the study session as the app records it."""
    from quizzer.bank.learners import ensure_learner
    from quizzer.grading.verdict import grade as grade_answer
    from quizzer.learning.study import Study
    from quizzer.templates.catalog import load_catalog
    from quizzer.templates.instance import make_instance

    with bank_session() as session:
        instance = make_instance(_template(session, key), seed)
        verdict = grade_answer(instance.spec, answer)
        if verdict.verdict == "invalid":
            raise UserError(f"could not read the answer: {verdict.feedback}", where=f"--answer {answer!r}")
        if not dry_run:
            study = Study(session, load_catalog(), ensure_learner(session=session, name=profile))
            verdict, _ = study.answer(instance, answer, seconds)
    return verdict


def _grade_batch(file: Path, *, profile: str, dry_run: bool) -> None:
    """JSON Lines out, one result per input line; exit status 2 when any line was bad."""
    from quizzer.learning.batch import BatchGrader, read_lines
    from quizzer.templates.catalog import load_catalog

    text = _read_text(file)
    bad = False
    with bank_session() as session:
        grader = BatchGrader(session, load_catalog(), profile=profile, dry_run=dry_run)
        for result in grader.results(read_lines(text)):
            bad = bad or "error" in result
            typer.echo(json.dumps(result, ensure_ascii=False))
        session.commit()
    if bad:
        raise typer.Exit(2)


# --- the teacher's report -----------------------------------------------------------------------

class ReportFormat(StrEnum):
    text = "text"
    md = "md"
    html = "html"
    json = "json"


@app.command()
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

    _check_filters(topic=topic, paper=paper)
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


# --- profiles and progress ---------------------------------------------------------------------

profiles_app = typer.Typer(help="Learner profiles: whose attempts and reviews these are.", rich_markup_mode=None)
progress_app = typer.Typer(help="Move a learner's progress between banks as a JSON file.", rich_markup_mode=None)
app.add_typer(profiles_app, name="profiles")
app.add_typer(progress_app, name="progress")


@profiles_app.callback(invoke_without_command=True)
@reports_errors
def profiles(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """List the profiles in the bank with their attempts and last activity; * marks the current one."""
    from quizzer.bank.learners import list_learners

    if ctx.invoked_subcommand is not None:
        return
    with bank_session() as session:
        learners = list_learners(session=session)
    if as_json:
        rows = [{"name": learner.name, "attempts": learner.attempts, "current": learner.name == ctx.obj,
                 "last_active": learner.last_active and _utc_text(learner.last_active),
                 "created_at": _utc_text(learner.created_at)} for learner in learners]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max([len(learner.name) for learner in learners] + [len(ctx.obj), 7])
    typer.echo(f"  {'PROFILE':<{width}}  ATTEMPTS  LAST ACTIVE")
    for learner in learners:
        last = f"{learner.last_active.astimezone():%Y-%m-%d %H:%M}" if learner.last_active else "never"
        typer.echo(f"{'*' if learner.name == ctx.obj else ' '} {learner.name:<{width}}  {learner.attempts:>8}  {last}")
    if ctx.obj not in {learner.name for learner in learners}:
        typer.echo(f"* {ctx.obj:<{width}}  {0:>8}  not started yet")


@profiles_app.command("rename")
@reports_errors
def rename_profile(
    old: Annotated[str, typer.Argument(help="The profile's current name.")],
    new: Annotated[str, typer.Argument(help="Its new name (not one that exists).")],
) -> None:
    """Rename a profile; its attempts and reviews go with it."""
    from quizzer.bank.learners import rename_learner

    with bank_session() as session:
        learner = rename_learner(session=session, old=old, new=new)
        session.commit()
    typer.echo(f"Renamed profile {old!r} to {learner.name!r}.")


@progress_app.command("export")
@reports_errors
def export_progress(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="The JSON file to write ('-': standard output).")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite the file if it exists.")] = False,
) -> None:
    """Write the current profile's attempts and review states to a JSON file."""
    from quizzer.bank.learners import find_learner
    from quizzer.learning.progress import export_progress as export
    from quizzer.learning.progress import write_document

    with bank_session() as session:
        document = export(session=session, learner=find_learner(session=session, name=ctx.obj))
    if str(file) == "-":
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    write_document(document, file, force=force)
    typer.echo(f"Exported {len(document['attempts'])} attempt(s) and {len(document['reviews'])} review state(s) "
               f"of profile {ctx.obj!r} to {file}.")


@progress_app.command("import")
@reports_errors
def import_progress(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A file written by 'quizzer progress export' ('-': standard input).")],
) -> None:
    """Add a progress file's attempts and review states to the current profile: all or nothing,
    and importing the same file again adds nothing."""
    from quizzer.learning.progress import import_progress as merge
    from quizzer.learning.progress import read_document

    where = "<stdin>" if str(file) == "-" else str(file)
    document = read_document(_read_text(file), where=where)
    with bank_session() as session:
        report = merge(session=session, document=document, profile=ctx.obj, where=where)
        session.commit()
    typer.echo(f"Imported into profile {report.profile!r} (exported from {report.source_profile!r}): "
               f"{report.summary()}.")


# --- helpers ------------------------------------------------------------------------------------

def _read_text(file: Path) -> str:
    """A UTF-8 file's text ('-': standard input), or a UserError naming it."""
    try:
        return sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"cannot read the file: {reason}", where=str(file)) from None


def _utc_text(moment: Any) -> str:
    from quizzer.learning.mastery import as_utc

    return str(as_utc(moment).isoformat())


def _template(session: Session, key: str) -> Any:
    from quizzer.bank.store import get_template

    return get_template(session=session, key=key)


def _check_filters(*, topic: str | None, paper: str | None) -> None:
    """Unknown topic or paper ids are bad input, not an empty result."""
    from quizzer.templates.catalog import load_catalog

    catalog = load_catalog()
    if topic and topic not in catalog.topics:
        hint = did_you_mean(topic, catalog.topics) or "; see 'quizzer topics'"
        raise UserError(f"unknown topic {topic!r}{hint}", where="--topic")
    if paper and paper not in catalog.papers:
        hint = did_you_mean(paper, catalog.papers) or f"; papers: {', '.join(catalog.papers)}"
        raise UserError(f"unknown paper {paper!r}{hint}", where="--paper")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: usage errors become one line and exit status 2."""
    from typer._click.exceptions import ClickException

    try:
        # Without standalone mode, typer.Exit(code) comes back as a return value.
        code = app(args=argv, prog_name="quizzer", standalone_mode=False)
    except ClickException as exc:
        typer.echo(f"quizzer: {exc.format_message()} (see 'quizzer --help')", err=True)
        sys.exit(exc.exit_code if exc.exit_code != 1 else 2)
    except UserError as exc:
        typer.echo(f"quizzer: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
