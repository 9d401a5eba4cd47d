"""Who is practising: the ``profiles`` group (list the profiles, ``rename`` one) and the
``progress`` group (``export`` the current profile's history to a JSON file, ``import`` one).

The functions are added to the ``profiles`` and ``progress`` groups of the command line in
``quizzer.cli``, with the arguments each ``takes``; the bank and the progress file format are
imported inside each command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quizzer.cli.parsing import arg, takes
from quizzer.cli.shared import JSON, bank_session


@takes(JSON, learner=True)
def profiles(as_json: bool, profile: str) -> None:
    """List the profiles in the bank with their attempts and last activity; * marks the current one."""
    from quizzer.bank.learners import list_learners

    with bank_session() as session:
        learners = list_learners(session=session)
    if as_json:
        rows = [{"name": learner.name, "attempts": learner.attempts, "current": learner.name == profile,
                 "last_active": learner.last_active and _utc_text(learner.last_active),
                 "created_at": _utc_text(learner.created_at)} for learner in learners]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    width = max([len(learner.name) for learner in learners] + [len(profile), 7])
    print(f"  {'PROFILE':<{width}}  ATTEMPTS  LAST ACTIVE")
    for learner in learners:
        last = f"{learner.last_active.astimezone():%Y-%m-%d %H:%M}" if learner.last_active else "never"
        print(f"{'*' if learner.name == profile else ' '} {learner.name:<{width}}  {learner.attempts:>8}  {last}")
    if profile not in {learner.name for learner in learners}:
        print(f"* {profile:<{width}}  {0:>8}  not started yet")


@takes(
    arg("old", metavar="OLD", help="The profile's current name."),
    arg("new", metavar="NEW", help="Its new name (not one that exists)."),
)
def rename_profile(old: str, new: str) -> None:
    """Rename a profile; its attempts and reviews go with it."""
    from quizzer.bank.learners import rename_learner

    with bank_session() as session:
        learner = rename_learner(session=session, old=old, new=new)
        session.commit()
    print(f"Renamed profile {old!r} to {learner.name!r}.")


@takes(
    arg("file", type=Path, metavar="FILE", help="The JSON file to write ('-': standard output)."),
    arg("--force", action="store_true", help="Overwrite the file if it exists."),
    learner=True,
)
def export_progress(file: Path, force: bool, profile: str) -> None:
    """Write the current profile's progress to a JSON file.

    Its attempts and review states."""
    from quizzer.bank.learners import find_learner
    from quizzer.learning.progress import document_text, write_document
    from quizzer.learning.progress import export_progress as export

    with bank_session() as session:
        document = export(session=session, learner=find_learner(session=session, name=profile))
    if str(file) == "-":
        print(document_text(document, where="-"))
        return
    write_document(document, file, force=force)
    print(f"Exported {len(document['attempts'])} attempt(s) and {len(document['reviews'])} review state(s) "
          f"of profile {profile!r} to {file}.")


@takes(
    arg("file", type=Path, metavar="FILE", help="A file written by 'quizzer progress export' ('-': standard input)."),
    learner=True,
)
def import_progress(file: Path, profile: str) -> None:
    """Add a progress file to the current profile.

    Its attempts and review states: all or nothing, and importing the same file again adds nothing."""
    from quizzer.common.userfiles import read_bounded
    from quizzer.learning.progress import MAX_PROGRESS_BYTES, read_document
    from quizzer.learning.progress import import_progress as merge

    where = "<stdin>" if str(file) == "-" else str(file)
    document = read_document(read_bounded(file, limit=MAX_PROGRESS_BYTES, what="a progress file"), where=where)
    with bank_session() as session:
        report = merge(session=session, document=document, profile=profile, where=where)
        session.commit()
    print(f"Imported into profile {report.profile!r} (exported from {report.source_profile!r}): "
          f"{report.summary()}.")


def _utc_text(moment: Any) -> str:
    from quizzer.learning.mastery import as_utc

    return str(as_utc(moment).isoformat())
