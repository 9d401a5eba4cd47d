"""A teacher's commands: ``export`` (a randomized paper and answer sheet, an Anki deck, Moodle XML)
and ``report`` (the class's mastery, mistakes, hardest questions and who is behind).

The functions are added to the command line in ``quizzer.cli``, with the arguments each
``takes``; the exporters, the bank and the report are imported inside each command.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from quizzer.cli.parsing import arg, at_least, takes
from quizzer.cli.shared import SELECTION, bank_session, check_filters, note_repeats
from quizzer.common.errors import UserError

if TYPE_CHECKING:
    from quizzer.export.document import Layout, Section, Selection
    from quizzer.templates.instance import Instance


@takes(
    # No choices: the exporters check it (an unknown format is theirs to name, with the ones they write).
    arg("-f", "--format", dest="fmt", required=True, metavar="FORMAT",
        help="md, html, pdf, apkg, moodle, moodle-backup (a Moodle quiz, .mbz), qti or json."),
    *SELECTION,
    arg("--seed", type=at_least(0), help="Seed for the selection and the numbers (default: a fresh one)."),
    arg("-o", "--output", type=Path, metavar="PATH", help="File to write (md: plus NAME-answers.md)."),
    arg("--paper-only", action="store_true", help="Only the questions."),
    arg("--answers-only", action="store_true", help="Only the answer sheet."),
    arg("--force", action="store_true", help="Overwrite existing files."),
    arg("--versions", type=int, default=1, metavar="N",
        help="An exam of N versions: papers, key, grid and exam-key.csv (md, html, pdf); moodle and qti: one "
             "file, a random version per student (moodle-backup: a quiz with a random slot per question)."),
    arg("--secret", type=Path, metavar="FILE",
        help="The course secret (created if missing) that makes exam papers: a paper code, never a seed "
             "(default with --versions: course.secret beside the bank)."),
    arg("--shuffle-questions", action="store_true", help="Each version prints its questions in its own order."),
    arg("--vary-structure", action="store_true",
        help="Let a question's versions differ in what they ask, not only in numbers."),
    arg("--answer-sheets", action="store_true",
        help="An exam with answer sheets for `quizzer scan`, one per version, and their manifest (pdf; needs -o)."),
    arg("--paper-size", default="a4", help="a4 or letter (html, pdf)."),
    arg("--title", help="The paper's title (default: what it covers)."),
    arg("--instructions", type=Path, metavar="FILE",
        help="A Markdown file printed under the title (time allowed, rules…)."),
)
def export(fmt: str, key: list[str] | None, topic: str | None, week: int | None, paper: str | None, n: int | None,
           seed: int | None, output: Path | None, paper_only: bool, answers_only: bool, force: bool, versions: int,
           secret: Path | None, shuffle_questions: bool, vary_structure: bool, answer_sheets: bool, paper_size: str,
           title: str | None, instructions: Path | None) -> None:
    """Export papers with answers, Anki decks, Moodle XML or JSON.

    A randomized paper and its answer sheet (md, html, pdf), an Anki deck (apkg), Moodle XML, QTI or
    JSON."""
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

    if answer_sheets and (fmt != "pdf" or output is None or only):
        raise UserError("answer sheets are PDF, written beside the papers: give --format pdf and -o PATH "
                        "(without --paper-only / --answers-only)", where="--answer-sheets")
    exam = versions > 1 or secret is not None or answer_sheets
    check_versions(fmt, output, versions, exam)
    if (shuffle_questions or vary_structure) and not exam:
        raise UserError("--shuffle-questions and --vary-structure apply to an exam: add --versions N or --secret FILE")
    layout = read_layout(paper_size, title, instructions)
    if exam and only:
        raise UserError("an exam writes the papers and the teacher's key: drop --paper-only / --answers-only")
    selection = Selection(seed=secrets.randbelow(1_000_000) if seed is None else seed, keys=tuple(key or ()),
                          topic=topic, week=week, paper=paper, n=n)
    if exam and output is not None:
        _export_exam(selection, fmt=fmt, output=output, force=force, layout=layout, versions=versions, secret=secret,
                     shuffle=shuffle_questions, hold=not vary_structure, sheets=answer_sheets)
        return
    with bank_session() as session:
        check_filters(topic=topic, paper=paper)
        instances = choose_instances(session=session, keys=selection.keys, topic=topic, week=week, paper=paper,
                                     n=n, seed=selection.seed)
        note_repeats([instance.key for instance in instances])
    written = export_paper(instances, selection, fmt=fmt, output=output, only=only, force=force, layout=layout)
    if fmt == "moodle":
        _note_cloze_marks(instances, selection, fmt)
    sys.stdout.buffer.write(written.stdout)
    for path in written.paths:
        print(str(path))
    if written.paths and sys.stdout.isatty():
        from quizzer.export.document import regenerate_command

        print(f"{len(instances)} question(s), seed {selection.seed}; regenerate with: "
              f"{regenerate_command(selection, fmt, output.name if output else None, layout=layout)}")


def _export_exam(selection: Selection, *, fmt: str, output: Path, force: bool, layout: Layout, versions: int,
                 secret: Path | None, shuffle: bool, hold: bool, sheets: bool) -> None:
    """An exam: the versions from the course secret, then the papers (or LMS file), key, grid and CSV."""
    from quizzer.bank.location import database_url
    from quizzer.bank.store import get_template
    from quizzer.export.keygrid import differences
    from quizzer.export.papercode import default_secret_path, load_secret
    from quizzer.export.versions import export_exam, make_exam
    from quizzer.learning.selection import choose_instances

    secret_path = secret if secret is not None else default_secret_path(database_url())
    options = ("--secret", str(secret_path), *(["--shuffle-questions"] if shuffle else []),
               *([] if hold else ["--vary-structure"]))
    with bank_session() as session:
        check_filters(topic=selection.topic, paper=selection.paper)
        instances = choose_instances(session=session, keys=selection.keys, topic=selection.topic, week=selection.week,
                                     paper=selection.paper, n=selection.n, seed=selection.seed)
        note_repeats([instance.key for instance in instances])
        key, created = load_secret(secret_path)  # once the selection is known good: a bad one creates nothing
        if created:
            print(f"Created the course secret {secret_path}: keep it (and keep it from students); it maps every "
                  "paper code to its answers.", file=sys.stderr)
        made = make_exam(instances, lambda name: get_template(session=session, key=name), key, selection.seed,
                         versions, hold=hold, shuffle=shuffle)
    for path in export_exam(made, selection, fmt=fmt, output=output, force=force, layout=layout,
                            exam_options=options, sheets=sheets):
        print(str(path))
    print(differences(made), file=sys.stderr)
    if fmt == "moodle":
        _note_cloze_marks(list(made.versions[0].instances), selection, fmt)


def _note_cloze_marks(instances: list[Instance], selection: Selection, fmt: str) -> None:
    """Say which clozes Moodle marks out of another total than their points (whole-number blank weights)."""
    from quizzer.export.document import build_paper
    from quizzer.export.moodle import cloze_marks_differ

    differ = cloze_marks_differ(build_paper(instances, selection, fmt))
    if differ:
        print(f"Moodle marks {len(differ)} cloze question(s) out of their number of blanks, not their points "
              "(a blank's weight is a whole number); set each one's mark in the quiz (--format moodle-backup "
              "writes a quiz with every mark set): "
              + "; ".join(f"{name}: {points:g}, not {total}" for name, points, total in differ[:5])
              + (" …" if len(differ) > 5 else ""), file=sys.stderr)


@takes(
    arg("--paper", help="Only the routed questions of this paper."),
    arg("--topic", help="Only questions on this topic id."),
    arg("-f", "--format", dest="fmt", choices=("text", "md", "html", "json"), default="text", help="Output format."),
    arg("-o", "--output", type=Path, metavar="PATH", help="File to write (default: standard output)."),
    arg("--force", action="store_true", help="Overwrite the file if it exists."),
    arg("--results", type=Path, metavar="CSV",
        help="Instead of the bank: the item analysis of a class's results from another system "
             "(learner,question,score[,version][,answered_at])."),
)
def report(paper: str | None, topic: str | None, fmt: str, output: Path | None, force: bool,
           results: Path | None) -> None:
    """The teacher's report on every profile in the bank.

    Mastery by topic, frequent misconceptions, the hardest questions and the learners who are
    behind."""
    from quizzer.common.clock import utcnow
    from quizzer.common.files import check_targets, write_files

    if results is not None:
        _report_results(results, fmt, output, force, scoped=bool(paper or topic))
        return
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
    document = RENDERERS[fmt](result)
    if output is None:
        sys.stdout.write(document)
        return
    write_files([(output, document.encode("utf-8"))])
    print(f"Wrote the {fmt} report on {result.learners} learner(s) and {result.attempts} answer(s) "
          f"to {output}.")


def _report_results(results: Path, fmt: str, output: Path | None, force: bool, *, scoped: bool) -> None:
    """``report --results``: the item analysis of a results file, computed from the file alone."""
    from quizzer.common.files import check_targets, write_files
    from quizzer.reporting.items import analyse_items
    from quizzer.reporting.render import render_item_analysis
    from quizzer.reporting.results import read_results

    if scoped:
        raise UserError("--paper and --topic select the bank's questions, not a results file's", where="--results")
    if output is not None:
        check_targets([output], force=force)
    attempts, questions = read_results(results)
    learners = len({attempt.learner for attempt in attempts})
    title = f"Item analysis of {results.name}: {learners} learners, {len(questions)} questions"
    document = render_item_analysis(analyse_items(attempts, questions), fmt, title)
    if output is None:
        sys.stdout.write(document)
        return
    write_files([(output, document.encode("utf-8"))])
    print(f"Wrote the {fmt} item analysis of {learners} learner(s) to {output}.")
