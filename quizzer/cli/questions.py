"""The question bank's commands: check templates (``validate``, ``verify``), add them (``add``),
browse the bank (``list``, ``topics``, ``coverage``, ``show``) and print randomized instances
(``generate``).

The functions are registered on the app in ``quizzer.cli``; the templates, the bank and the
engine are imported inside each command.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from quizzer.cli.shared import bank_session, check_filters, one_question, reports_errors
from quizzer.templates import VALIDATION_SEEDS


class Format(StrEnum):
    text = "text"
    md = "md"
    json = "json"


# --- adding and checking templates -------------------------------------------------------------

@reports_errors
def validate(
    paths: Annotated[list[Path] | None,
                     typer.Argument(help="Template files or directories (default: the bundled questions/).")] = None,
    seeds: Annotated[int, typer.Option(min=1, max=10_000,
                                       help="Seeds to test-render per template.")] = VALIDATION_SEEDS,
    all_slips: Annotated[bool, typer.Option("--all", help="Print the engine-slip coverage table (templates × slips "
                                                          "that change the answer, listed vs discovered) instead of "
                                                          "one line per template.")] = False,
) -> None:
    """Check templates without writing anything: structure, references, test renders, and which
    engine slips change each answer."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.slip_coverage import coverage_table, template_slips
    from quizzer.templates.sources import template_files
    from quizzer.templates.validate import validate_files

    files = template_files(paths or [questions_dir()])
    loaded = validate_files(files, seeds=seeds)
    typer.echo(f"{len(loaded)} template(s) valid, each test-rendered over {seeds} seeds.")
    slips = [template_slips(item.template) for item in loaded]
    if all_slips:
        typer.echo(coverage_table(slips))
    else:
        for row in slips:
            if row.alters:
                typer.echo(row.line())


@reports_errors
def verify(
    paths: Annotated[list[Path] | None,
                     typer.Argument(help="Template files or directories (default: the bundled questions/).")] = None,
    seeds: Annotated[int, typer.Option(min=1, max=10_000, help="Seeds to recompute per template.")] = 20,
) -> None:
    """Recompute every answer with the NumPy and the PyTorch engine backends; fail on any disagreement."""
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.sources import template_files
    from quizzer.templates.validate import validate_files
    from quizzer.templates.verify import verify_templates

    loaded = validate_files(template_files(paths or [questions_dir()]), seeds=1)
    report = verify_templates((item.template for item in loaded), seeds=seeds)
    typer.echo(f"{report.templates} template(s), {report.instances} instances, {report.values} computed values: "
               "NumPy and PyTorch agree.")


@reports_errors
def add(
    files: Annotated[list[Path], typer.Argument(help="Template YAML files (or directories) to add or update.")],
    seeds: Annotated[int, typer.Option(min=1, max=10_000,
                                       help="Seeds to test-render per template.")] = VALIDATION_SEEDS,
) -> None:
    """Validate templates, then insert or update them in the bank: all files or none (every check is
    ``validate``'s: a file is added exactly when ``quizzer validate`` calls it valid)."""
    from quizzer.bank.store import import_templates
    from quizzer.templates.sources import template_files
    from quizzer.templates.validate import validate_files

    loaded = validate_files(template_files(files), seeds=seeds)
    with bank_session() as session:
        report = import_templates(session=session, loaded=loaded)
        session.commit()
    typer.echo(f"{report.summary()}.")


# --- browsing -----------------------------------------------------------------------------------

@reports_errors
def list_templates(
    topic: Annotated[str | None, typer.Option(help="Only templates on this topic id.")] = None,
    week: Annotated[int | None, typer.Option(help="Only templates of this week.")] = None,
    paper: Annotated[str | None, typer.Option(help="Only routed records of this paper, e.g. 2024T3_Q1_NA.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
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
        typer.echo(json.dumps(items, indent=2, ensure_ascii=False))
        return
    width = max((len(item["key"]) for item in items), default=3)
    for item in items:
        also = f"  (parts: {', '.join(item['part_ids'])})" if item["part_ids"] else ""
        typer.echo(f"{item['key']:<{width}}  W{item['week']}  {item['kind']:<10}  {item['title']}{also}")
    typer.echo(f"{len(items)} question(s).")


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


@reports_errors
def show(
    key: Annotated[str, typer.Argument(help="Question key, e.g. '2024T3_Q1_NA Q277'.")],
    seed: Annotated[int, typer.Option(min=0, help="Instance seed (0 = the notes' canonical numbers).")] = 0,
) -> None:
    """Show one instance of a question with its answer and worked solution (a part's routed ID: the
    question it is part of)."""
    from quizzer.templates.instance import make_instance
    from quizzer.templates.render import render_instance

    template, part = one_question(key)
    instance = make_instance(template, seed)
    if part is not None:
        typer.echo(f"{key} is part ({instance.parts[part].label}) of {template.key}:\n")
    typer.echo(render_instance(instance, fmt="text", solutions=True))


# --- printing instances -------------------------------------------------------------------------

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
    from quizzer.bank.readonly import current_templates
    from quizzer.learning.selection import choose_instances, instances_of
    from quizzer.templates.render import render_instance, render_json

    by_key_only = topic is None and week is None and paper is None
    templates = current_templates(key) if key and by_key_only else None  # None: the ORM path (see one_question)
    if templates is not None:
        instances = instances_of(templates, n=n, seed=seed)
    else:
        with bank_session() as session:
            check_filters(topic=topic, paper=paper)
            instances = choose_instances(session=session, keys=key or (), topic=topic, week=week, paper=paper,
                                         n=n, seed=seed)
    if fmt is Format.json:
        typer.echo(render_json(instances, solutions=solutions))
        return
    for number, instance in enumerate(instances, 1):
        typer.echo(render_instance(instance, fmt=fmt.value, solutions=solutions, number=number))
