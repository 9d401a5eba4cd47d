"""Who is practising: the ``profiles`` group (list the profiles, ``rename`` one) and the
``progress`` group (``export`` the current profile's history to a JSON file, ``import`` one).

The functions are registered on the ``profiles`` and ``progress`` sub-apps in ``quizzer.cli``;
the bank and the progress file format are imported inside each command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from quizzer.cli.shared import bank_session, read_text, reports_errors


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
    document = read_document(read_text(file), where=where)
    with bank_session() as session:
        report = merge(session=session, document=document, profile=ctx.obj, where=where)
        session.commit()
    typer.echo(f"Imported into profile {report.profile!r} (exported from {report.source_profile!r}): "
               f"{report.summary()}.")


def _utc_text(moment: Any) -> str:
    from quizzer.learning.mastery import as_utc

    return str(as_utc(moment).isoformat())
