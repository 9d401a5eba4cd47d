"""A student's commands: open the practice app (``practise``, and ``quizzer`` with no command), grade
typed answers (``grade``, one answer or a ``--batch`` file), recorded as the app records them, and
serve the app to web browsers (``serve``, whose server is ``quizzer.server``).

The functions are added to the command line in ``quizzer.cli``, with the arguments each ``takes``;
Textual, the bank, the study session and the web server (``quizzer.server``) are imported inside
each command.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quizzer.cli.parsing import Bounded, arg, between, takes
from quizzer.cli.shared import JSON, bank_session, check_filters, one_question
from quizzer.common.errors import UserError
from quizzer.common.untrusted import control_character, quoted
from quizzer.common.userfiles import MAX_SECONDS
from quizzer.templates import MAX_SEED

if TYPE_CHECKING:
    from quizzer.grading.parts import PartVerdict
    from quizzer.grading.verdict import Verdict
    from quizzer.learning.study import Study
    from quizzer.templates.schema import Template


def run_app(profile: str, topic: str | None = None, week: int | None = None, paper: str | None = None) -> None:
    from quizzer.tui.app import Filters, end_if_hung_up, make_app

    practice_app = make_app(profile=profile, filters=Filters(topic=topic, week=week, paper=paper))
    try:
        practice_app.run()
    finally:
        # However the app ended once its terminal was gone (Textual failing to write to it, before the app's own
        # check ended it), it ends as a hangup ends a program, not with an error no one can read.
        if sys.__stdin__ is not None:
            end_if_hung_up(sys.__stdin__.fileno())
    if practice_app.failure is not None:
        raise practice_app.failure


@takes(
    arg("--topic", help="Practise this topic id."),
    arg("--week", type=int, help="Practise this week."),
    arg("--paper", help="Practise the routed questions of this paper."),
    learner=True,
)
def practise(topic: str | None, week: int | None, paper: str | None, profile: str) -> None:
    """Open the practice app on the given selection.

    With no options: on the dashboard, as 'quizzer' alone does."""
    check_filters(topic=topic, paper=paper)
    run_app(profile, topic, week, paper)


@takes(
    arg("key", nargs="?", metavar="KEY", help="Question key (not with --batch)."),
    arg("--seed", type=between(0, MAX_SEED), help="The instance's seed."),
    arg("--answer", action="append", help="Your answer, typed as you would write it; a multi-part question takes "
                                          "one --answer per part, in order."),
    arg("--batch", type=Path, metavar="FILE", help="Grade every line of a CSV "
                                                   "(key,seed,answer[,learner,seconds,answered_at]) or JSON Lines "
                                                   "file; prints one JSON result per line."),
    JSON,
    arg("--dry-run", action="store_true", help="Grade without recording the attempt."),
    arg("--seconds", type=Bounded(float, 0, MAX_SECONDS), help="Time taken, recorded with the attempt."),
    learner=True,
)
def grade(key: str | None, seed: int | None, answer: list[str] | None, batch: Path | None, as_json: bool,
          dry_run: bool, seconds: float | None, profile: str) -> None:
    """Grade an answer (or a file of them) and record each attempt.

    Each attempt is recorded exactly as the app would record it."""
    if batch is not None:
        if key is not None or seed is not None or answer is not None or seconds is not None:
            raise UserError("--batch takes its keys, seeds, answers and times from the file", where="--batch")
        _grade_batch(batch, profile=profile, dry_run=dry_run)
        return
    control = next((found for text in answer or () if (found := control_character(text))), None)
    if control:  # the answer is stored as typed, and shown again in the app's history
        raise UserError(f"an answer may not hold a {control}", where="--answer")
    if key is None or seed is None or answer is None:
        missing = next(name for name, value in (("KEY", key), ("--seed", seed), ("--answer", answer)) if value is None)
        raise UserError(f"missing {missing} (or grade a file with --batch FILE)", where="grade")
    template, part = one_question(key)
    if template.parts and part is None and len(answer) == 1 and template.parts[0].id == template.key:
        part = 0  # the chain's key is its first part's routed ID (Q279): one answer grades that part alone
    if template.parts and (part is None or len(answer) > 1):
        result, verdicts = _grade_parts(template, seed, answer, profile=profile, dry_run=dry_run, seconds=seconds)
        _print_parts(result, verdicts, as_json=as_json)
        return
    if len(answer) != 1:
        raise UserError(f"{key} is one question: give one --answer", where="--answer")
    verdict = _grade_one(template, part, seed, answer[0], profile=profile, dry_run=dry_run, seconds=seconds)
    from quizzer.templates.parts import LABELS

    label = LABELS[part] if part is not None else None  # a part graded on its own, by its routed ID
    if as_json:
        print(json.dumps(verdict.to_json(key, seed, recorded=not dry_run) | ({"part": label} if label else {}),
                         indent=2, ensure_ascii=False))
        return
    from quizzer.text.mathtext import terminal_text

    if label:
        print(f"Part ({label}) of {template.key}:")

    if template.kind == "text":  # a recall card: the learner's own rating, then the model answer to compare with
        print(f"RATED {verdict.answered.upper()} (score {verdict.score:g}) — {verdict.feedback}.\n\nModel answer:\n")
        print(textwrap.indent(terminal_text(verdict.expected).strip("\n"), "  "))
        return
    print(f"{verdict.verdict.upper()} (score {verdict.score:g}) — "
          f"you answered {terminal_text(verdict.answered)}; expected {terminal_text(verdict.expected)}.")
    if verdict.note:
        print(terminal_text(verdict.note))


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
        raise UserError(f"could not read the answer: {verdict.feedback}", where=f"--answer {quoted(answer)}")
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
                 dry_run: bool, seconds: float | None) -> tuple[dict[str, Any], Sequence[PartVerdict]]:
    """A multi-part question's answers graded together (with follow-through) and recorded, one per part:
    the result as ``--json`` prints it, and each part's verdict."""
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
        if verdict.verdict.verdict == "invalid" and typed.strip():  # a typo is refused; a blank is a part left out
            raise UserError(f"could not read the answer to part ({verdict.label}): {verdict.verdict.feedback}",
                            where=f"--answer {typed!r}")
    answered = [(verdict, typed) for verdict, typed in zip(verdicts, answers, strict=True)
                if verdict.verdict.verdict != "invalid"]
    if not answered:
        raise UserError(f"every part is blank: answer at least one of {labels}", where="--answer")
    if not dry_run:
        with _study(profile) as study:
            study.record_parts(instance, answered, seconds)
    outcome, score = whole_outcome([(v.verdict.score, p.question.points) for v, p in zip(verdicts, instance.parts,
                                                                                          strict=True)])
    return {"key": template.key, "seed": seed, "verdict": outcome, "score": score, "points": instance.points,
            "earned": round(score * instance.points, 6), "recorded": not dry_run,
            "parts": [{"id": p.id, **v.to_json()} for v, p in zip(verdicts, instance.parts, strict=True)]}, verdicts


def _print_parts(result: dict[str, Any], verdicts: Sequence[PartVerdict], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    from quizzer.text.mathtext import terminal_text

    for part in verdicts:
        verdict, carried = part.verdict, f" ({part.on_their_value})" if part.carried_forward else ""
        if verdict.verdict == "invalid":  # left blank: no marks, nothing carried forward, not recorded
            print(f"({part.label}) LEFT BLANK (score 0) — expected {terminal_text(verdict.expected)}.")
            continue
        print(f"({part.label}) {verdict.verdict.upper()}{carried} (score {verdict.score:.3g}) — you answered "
              f"{terminal_text(verdict.reading or '')}; expected {terminal_text(verdict.expected)}.")
        if verdict.note:
            print(f"    {terminal_text(verdict.note)}")
    print(f"{result['verdict'].upper()}: {result['earned']:g} of {result['points']:g} marks.")


def _grade_batch(file: Path, *, profile: str, dry_run: bool) -> None:
    """JSON Lines out, one result per input line; exit status 2 when any line was bad."""
    from quizzer.common.userfiles import read_bounded
    from quizzer.learning.batch import MAX_BATCH_BYTES, BatchGrader, read_lines
    from quizzer.templates.catalog import load_catalog

    lines = read_lines(read_bounded(file, limit=MAX_BATCH_BYTES, what="a batch file"), where=str(file))
    with bank_session() as session:
        grader = BatchGrader(session, load_catalog(), profile=profile, dry_run=dry_run)
        results = list(grader.results(lines))
        session.commit()  # before anything is printed: no line says "recorded" that is not in the bank
    for result in results:
        print(json.dumps(result, ensure_ascii=False))
    if any("error" in result for result in results):
        sys.exit(2)


@takes(
    arg("--host", default="127.0.0.1", help="Address to listen on (anything but loopback needs a sign-in or a token)."),
    arg("--port", type=between(1, 65535), default=8000, help="Port to listen on."),
    arg("--profile", dest="profile_option", metavar="NAME",
        help="The one profile of a server on a bank without accounts (default: as for the app)."),
    arg("--token", help="Token a browser must present (?token=…), for a single user's server on a bank without "
                        "accounts; generated when listening beyond loopback."),
    arg("--max-sessions", type=between(1, 100_000), metavar="N",
        help="App sessions at once; beyond it a new browser is told the server is full (default: as many as "
             "three quarters of this machine's memory holds, and 25 per core)."),
    learner=True,
)
def serve(host: str, port: int, profile_option: str | None, token: str | None, max_sessions: int | None,
          profile: str) -> None:
    """Serve the practice app to web browsers.

    One app process per browser session, on the same bank. With accounts in the bank ('quizzer
    accounts'), every learner signs in as themselves; without, every session is --profile's."""
    from quizzer.common.profiles import current_profile_name
    from quizzer.server.app import serve_app

    serve_app(host=host, port=port, token=token, max_sessions=max_sessions,
              profile=current_profile_name(profile_option) if profile_option is not None else profile)
