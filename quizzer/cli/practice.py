"""A student's commands: open the practice app (``practise``, and ``quizzer`` with no command) and
grade typed answers (``grade``, one answer or a ``--batch`` file), recorded as the app records them.

The functions are registered on the app in ``quizzer.cli``; Textual, the bank and the study
session are imported inside each command.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from quizzer.cli.shared import bank_session, check_filters, one_question, read_text, reports_errors
from quizzer.common.errors import UserError
from quizzer.templates import MAX_SEED

if TYPE_CHECKING:
    from quizzer.grading.verdict import Verdict
    from quizzer.learning.study import Study
    from quizzer.templates.schema import Template


def run_app(profile: str, topic: str | None = None, week: int | None = None, paper: str | None = None) -> None:
    from quizzer.tui.app import Filters, make_app

    practice_app = make_app(profile=profile, filters=Filters(topic=topic, week=week, paper=paper))
    practice_app.run()
    if practice_app.failure is not None:
        raise practice_app.failure


@reports_errors
def practise(
    ctx: typer.Context,
    topic: Annotated[str | None, typer.Option(help="Practise this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Practise this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="Practise the routed questions of this paper.")] = None,
) -> None:
    """Open the practice app on the given selection (no options: the dashboard)."""
    check_filters(topic=topic, paper=paper)
    run_app(ctx.obj, topic, week, paper)


@reports_errors
def grade(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Argument(help="Question key (not with --batch).")] = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="The instance's seed.")] = None,
    answer: Annotated[list[str] | None, typer.Option(
        help="Your answer, typed as you would write it; a multi-part question takes one --answer per part, "
             "in order.")] = None,
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
    template, part = one_question(key)
    if template.parts and (part is None or len(answer) > 1):
        result = _grade_parts(template, seed, answer, profile=ctx.obj, dry_run=dry_run, seconds=seconds)
        _print_parts(result, as_json=as_json)
        return
    if len(answer) != 1:
        raise UserError(f"{key} is one question: give one --answer", where="--answer")
    verdict = _grade_one(template, part, seed, answer[0], profile=ctx.obj, dry_run=dry_run, seconds=seconds)
    if as_json:
        typer.echo(json.dumps(verdict.to_json(key, seed, recorded=not dry_run), indent=2, ensure_ascii=False))
        return
    from quizzer.text.mathtext import render_math

    typer.echo(f"{verdict.verdict.upper()} (score {verdict.score:g}) — "
               f"you answered {render_math(verdict.answered)}; expected {render_math(verdict.expected)}.")
    if verdict.feedback and verdict.feedback != verdict.verdict:  # a bare "correct" repeats the line above
        typer.echo(render_math(verdict.feedback))


def _grade_one(template: Template, part: int | None, seed: int, answer: str, *, profile: str, dry_run: bool,
               seconds: float | None) -> Verdict:
    """One answer (to a single question, or to one part of a multi-part question named by that part's
    routed ID) graded, and recorded through the study session as the app records it."""
    from quizzer.grading.verdict import grade as grade_answer
    from quizzer.templates.instance import make_instance

    whole = make_instance(template, seed)
    instance = whole.parts[part].question if part is not None else whole  # a part of a chain, on its own
    verdict = grade_answer(instance.spec, answer)
    if verdict.verdict == "invalid":
        raise UserError(f"could not read the answer: {verdict.feedback}", where=f"--answer {answer!r}")
    if dry_run:
        return verdict
    from quizzer.grading.parts import PartVerdict

    with _study(profile) as study:
        if part is None:
            study.record(instance, answer, verdict, seconds)
        else:
            study.record_parts(whole, [(PartVerdict(whole.parts[part].label, verdict), answer)], seconds)
    return verdict


@contextmanager
def _study(profile: str) -> Iterator[Study]:
    """The study session that records a graded answer, as the app records it.  The ORM is opened only
    now, after grading; a new profile is created in the answer's own transaction (a kill between the
    two must not leave a learner with no answer)."""
    from quizzer.bank.learners import ensure_learner
    from quizzer.learning.study import Study
    from quizzer.templates.catalog import load_catalog

    with bank_session() as session:
        yield Study(session, load_catalog(), ensure_learner(session=session, name=profile, commit=False))


def _grade_parts(template: Template, seed: int, answers: list[str], *, profile: str,
                 dry_run: bool, seconds: float | None) -> dict[str, Any]:
    """A multi-part question's answers graded together (with follow-through) and recorded, one per part."""
    from quizzer.grading.parts import whole_outcome
    from quizzer.templates.instance import make_instance
    from quizzer.templates.parts import grade_instance

    instance = make_instance(template, seed)
    labels = ", ".join(part.label for part in instance.parts)
    if len(answers) != len(instance.parts):
        raise UserError(f"{template.key} has {len(instance.parts)} parts ({labels}): give one --answer per part, "
                        f"in order (got {len(answers)})", where="--answer")
    verdicts = grade_instance(instance, answers)
    for verdict, typed in zip(verdicts, answers, strict=True):
        if verdict.verdict.verdict == "invalid":
            raise UserError(f"could not read the answer to part ({verdict.label}): {verdict.verdict.feedback}",
                            where=f"--answer {typed!r}")
    if not dry_run:
        with _study(profile) as study:
            study.record_parts(instance, list(zip(verdicts, answers, strict=True)), seconds)
    outcome, score = whole_outcome([(v.verdict.score, p.question.points) for v, p in zip(verdicts, instance.parts,
                                                                                          strict=True)])
    return {"key": template.key, "seed": seed, "verdict": outcome, "score": score, "points": instance.points,
            "earned": round(score * instance.points, 6), "recorded": not dry_run,
            "parts": [{"id": p.id, **v.to_json()} for v, p in zip(verdicts, instance.parts, strict=True)]}


def _print_parts(result: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    from quizzer.text.mathtext import render_math

    for part in result["parts"]:
        carried = " (right on your value)" if part["carried_forward"] else ""
        typer.echo(f"({part['part']}) {part['verdict'].upper()}{carried} (score {part['score']:g}) — you answered "
                   f"{render_math(part['reading'] or '')}; expected {render_math(part['expected'])}.")
        if part["feedback"] and part["feedback"] != part["verdict"]:
            typer.echo(f"    {render_math(part['feedback'])}")
    typer.echo(f"{result['verdict'].upper()}: {result['earned']:g} of {result['points']:g} marks.")


def _grade_batch(file: Path, *, profile: str, dry_run: bool) -> None:
    """JSON Lines out, one result per input line; exit status 2 when any line was bad."""
    from quizzer.learning.batch import BatchGrader, read_lines
    from quizzer.templates.catalog import load_catalog

    text = read_text(file)
    bad = False
    with bank_session() as session:
        grader = BatchGrader(session, load_catalog(), profile=profile, dry_run=dry_run)
        for result in grader.results(read_lines(text)):
            bad = bad or "error" in result
            sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")  # typer.echo flushes every line
        session.commit()
    sys.stdout.flush()
    if bad:
        raise typer.Exit(2)
