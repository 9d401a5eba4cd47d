"""The question bank's commands: check templates (``validate``, ``verify``), add them (``add``),
browse the bank (``list``, ``topics``, ``coverage``, ``show``) and print randomized instances
(``generate``).

The functions are added to the command line in ``quizzer.cli``, with the arguments each
``takes``; the templates, the bank and the engine are imported inside each command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quizzer.cli.parsing import arg, at_least, between, takes
from quizzer.cli.shared import (
    JSON,
    SELECTION,
    bank_session,
    check_filters,
    note_repeats,
    one_question,
    validate_for_bank,
)
from quizzer.templates import VALIDATION_SEEDS

TEMPLATE_PATHS = arg("paths", nargs="*", type=Path, metavar="PATH",
                     help="Template files or directories (default: the bundled questions/).")
RENDER_SEEDS = arg("--seeds", type=between(1, 10_000), default=VALIDATION_SEEDS,
                   help="Seeds to test-render per template.")


# --- adding and checking templates -------------------------------------------------------------

@takes(
    TEMPLATE_PATHS,
    RENDER_SEEDS,
    arg("--all", dest="all_slips", action="store_true",
        help="Print the engine-slip coverage table (templates × slips that change the answer, listed vs "
             "discovered) instead of one line per template."),
)
def validate(paths: list[Path], seeds: int, all_slips: bool) -> None:
    """Check templates without writing anything.

    Checks their structure and references, renders them over test seeds, and says which engine slips
    change each answer."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.slip_coverage import coverage_table
    from quizzer.templates.sources import template_files

    files = template_files(paths or [questions_dir()])
    loaded = validate_for_bank(files, seeds)
    print(f"{len(loaded)} template(s) valid, each test-rendered over {seeds} seeds.")
    slips = [item.slips for item in loaded if item.slips is not None]  # each computed inside its budget
    if all_slips:
        print(coverage_table(slips))
    else:
        for row in slips:
            if row.alters:
                print(row.line())


@takes(
    TEMPLATE_PATHS,
    arg("--seeds", type=between(1, 10_000), default=20, help="Seeds to recompute per template."),
)
def verify(paths: list[Path], seeds: int) -> None:
    """Recompute every answer with NumPy and with PyTorch.

    Both engine backends compute every answer of every template over the seeds; any disagreement
    fails."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.sources import template_files
    from quizzer.templates.validate import validate_files
    from quizzer.templates.verify import verify_templates

    loaded = validate_files(template_files(paths or [questions_dir()]), seeds=1)
    report = verify_templates((item.template for item in loaded), seeds=seeds)
    print(f"{report.templates} template(s), {report.instances} instances, {report.values} computed values: "
          "NumPy and PyTorch agree.")


@takes(
    arg("files", nargs="+", type=Path, metavar="PATH", help="Template YAML files (or directories) to add or update."),
    RENDER_SEEDS,
)
def add(files: list[Path], seeds: int) -> None:
    """Validate templates, then insert or update them in the bank.

    All files or none: every check is validate's, so a file is added exactly when 'quizzer validate'
    calls it valid."""
    from quizzer.bank.store import import_templates
    from quizzer.templates.sources import template_files

    loaded = validate_for_bank(template_files(files), seeds)
    with bank_session() as session:
        report = import_templates(session=session, loaded=loaded)
        session.commit()
    print(f"{report.summary()}.")


# --- browsing -----------------------------------------------------------------------------------

@takes(
    arg("--topic", help="Only templates on this topic id."),
    arg("--week", type=int, help="Only templates of this week."),
    arg("--paper", help="Only routed records of this paper, e.g. 2024T3_Q1_NA."),
    JSON,
)
def list_templates(topic: str | None, week: int | None, paper: str | None, as_json: bool) -> None:
    """List the questions in the bank."""
    from quizzer.bank.store import part_keys, select_templates, template_topics

    with bank_session() as session:
        check_filters(topic=topic, paper=paper)
        rows = select_templates(session=session, topic=topic, week=week, paper=paper)
        links = template_topics(session=session)
        parts: dict[str, list[str]] = {}  # a chain's other routed IDs, carried by its parts
        for part_id, (key, _) in part_keys(session=session).items():
            parts.setdefault(key, []).append(part_id)
    items: list[dict[str, Any]] = [  # JSON objects
        {"key": r.key, "title": r.title, "week": r.week, "kind": r.kind, "difficulty": r.difficulty,
         "paper": r.paper, "topics": links.get(r.key, []), "part_ids": parts.get(r.key, [])} for r in rows]
    if as_json:
        print(json.dumps(items, indent=2, ensure_ascii=False))
        return
    width = max((len(item["key"]) for item in items), default=3)
    for item in items:
        also = f"  (parts: {', '.join(item['part_ids'])})" if item["part_ids"] else ""
        print(f"{item['key']:<{width}}  W{item['week']}  {item['kind']:<10}  {item['title']}{also}")
    print(f"{len(items)} question(s).")


@takes(JSON)
def topics(as_json: bool) -> None:
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
        print(json.dumps(items, indent=2, ensure_ascii=False))
        return
    for item in items:
        print(f"W{item['week']}  {item['id']:<30} {item['templates']:>3}  {item['name']}")


@takes(JSON)
def coverage(as_json: bool) -> None:
    """What the bank covers: per topic, paper and kind.

    Also which misconceptions it can diagnose."""
    from quizzer.bank.store import all_templates
    from quizzer.reporting.coverage import measure, render_text
    from quizzer.templates.catalog import load_catalog

    catalog = load_catalog()
    with bank_session() as session:
        report = measure(all_templates(session=session), catalog)
    print(json.dumps(report.to_json(), indent=2) if as_json else render_text(report, catalog))


@takes(
    arg("key", metavar="KEY", help="Question key, e.g. '2024T3_Q1_NA Q277'."),
    arg("--seed", type=at_least(0), default=0, help="Instance seed (0 = the notes' canonical numbers)."),
)
def show(key: str, seed: int) -> None:
    """Show a question with its answer and worked solution.

    One instance of it, drawn with the seed; a part's routed ID shows the question it is part of."""
    from quizzer.templates.instance import make_instance
    from quizzer.templates.render import render_instance

    template, part = one_question(key)
    instance = make_instance(template, seed)
    if part is not None:
        print(f"{key} is part ({instance.parts[part].label}) of {template.key}:\n")
    print(render_instance(instance, fmt="text", solutions=True))


# --- printing instances -------------------------------------------------------------------------

@takes(
    *SELECTION,
    arg("--seed", type=at_least(0), default=1, help="Seed for the selection and the instances."),
    arg("--solutions", action="store_true", help="Include answers and worked solutions."),
    arg("--format", dest="fmt", choices=("text", "md", "json"), default="text", help="Output format."),
)
def generate(key: list[str] | None, topic: str | None, week: int | None, paper: str | None, n: int | None,
             seed: int, solutions: bool, fmt: str) -> None:
    """Generate randomized instances of questions.

    The same options and seed always give the same questions."""
    from quizzer.bank.readonly import current_templates
    from quizzer.learning.selection import choose_instances, instances_of
    from quizzer.templates.render import render_instance, render_json

    by_key_only = topic is None and week is None and paper is None
    templates = current_templates(key) if key and by_key_only else None  # None: the ORM path (see one_question)
    if templates is not None:  # in the order given with -k, as export keeps it
        given = list(key or ())
        templates.sort(key=lambda template: given.index(template.key) if template.key in given else len(given))
        instances = instances_of(templates, n=n, seed=seed)
    else:
        with bank_session() as session:
            check_filters(topic=topic, paper=paper)
            instances = choose_instances(session=session, keys=key or (), topic=topic, week=week, paper=paper,
                                         n=n, seed=seed)
    note_repeats([instance.key for instance in instances])
    if fmt == "json":
        print(render_json(instances, solutions=solutions))
        return
    for number, instance in enumerate(instances, 1):
        print(render_instance(instance, fmt=fmt, solutions=solutions, number=number))
