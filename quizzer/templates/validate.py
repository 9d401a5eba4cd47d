"""Validation beyond structure: catalogue references, and test-rendering over many seeds.

A template passes only if, for every seed tried, it renders completely, its answer
is finite and of its kind's form, and no two misconceptions give the same answer (the
feedback could not tell them apart).  A misconception that gives the correct answer on a seed
is dropped for that seed by ``make_instance``: a right answer is never graded as a mistake; one that
does so on every seed tried is never diagnosed, and is refused.

A set of files is checked like a linter checks: every broken file is reported, each by its first
problem, and the templates are returned only if none is broken (``quizzer add`` adds all or none).
What each instance and the seeds together must satisfy is ``quizzer.templates.checks``; this module
loads the files, renders the seeds within the validation budget, and names where a problem is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.errors import FIELD_NAMED, TemplateError, TemplateErrors, did_you_mean
from quizzer.grading.budget import Budget, processor_time
from quizzer.templates import VALIDATION_SEEDS
from quizzer.templates.answerable import check_answerable
from quizzer.templates.catalog import Catalog, load_catalog, questions_dir
from quizzer.templates.checks import (
    check_answer_varies,
    check_choices_drawn,
    check_given_entries,
    check_instance,
    check_misconceptions_differ,
    fail,
    live_misconceptions,
)
from quizzer.templates.draw import template_where
from quizzer.templates.fair_draws import FairDraws
from quizzer.templates.formatting import show
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import SafeLoader, load_text, read_template_file
from quizzer.templates.parts import check_parts
from quizzer.templates.schema import Template
from quizzer.templates.schema_errors import line_of
from quizzer.templates.slip_coverage import SLIP_SEEDS, TemplateSlips, template_slips
from quizzer.templates.sources import template_files

DEFAULT_SEEDS = VALIDATION_SEEDS


@dataclass(frozen=True)
class LoadedTemplate:
    template: Template
    path: Path
    source: str
    slips: TemplateSlips | None = None  # the engine slips that change its answer (``validate_files(slips=True)``)


class InstanceCheck(Protocol):
    """A check from a layer above (the exporters' rendering: quizzer.export.renderable), made afresh for
    each template: called on every seed's instance, then ``finish``ed, inside the validation budget."""

    def __call__(self, instance: Instance) -> None: ...

    def finish(self) -> None: ...


def check_references(template: Template, catalog: Catalog) -> None:
    """Topics, misconception ids and routed keys must exist in the catalogue, and the week must be the first
    topic's."""
    for i, topic in enumerate(template.topics):
        if topic not in catalog.topics:
            fail(template, f"topics.{i}", f"unknown topic {topic!r}{did_you_mean(topic, catalog.topics)}")
    # The week is the primary topic's ('list', 'generate' and 'export --week' select by the week): a question
    # filed under another week would be missing where its topic is taught.  A secondary topic may come from
    # another week (the bundled Week 2 questions that use Week 1's softmax or encoder parameters).
    primary = catalog.topics[template.topics[0]]
    if template.week != primary.week:
        fail(template, "week", f"week {template.week} is not the week of its first topic {primary.id!r}, "
              f"which data/topics.yaml puts in week {primary.week}")
    used = [(f"misconceptions.{i}.id", m.id) for i, m in enumerate(template.misconceptions)]
    used += [(f"parts.{i}.misconceptions.{j}.id", m.id) for i, part in enumerate(template.parts or ())
             for j, m in enumerate(part.misconceptions)]
    used += [(f"choices.{i}.misconception", c.misconception) for i, c in enumerate(template.choices or [])
             if c.misconception]
    for field, misconception in used:
        if misconception not in catalog.misconceptions:
            fail(template, field, f"unknown misconception {misconception!r}"
                  f"{did_you_mean(misconception, catalog.misconceptions)} (see data/misconceptions.yaml)")
    routed = [("key", template.key)] if template.is_routed else []
    routed += [(f"parts.{i}.id", part.id) for i, part in enumerate(template.parts or ()) if part.id]
    for field, key in routed:
        if key not in catalog.records:
            fail(template, field, f"{key!r} is not a routed record in data/routing.yaml"
                  f"{did_you_mean(key, catalog.records)}")


def check_renders(template: Template, seeds: Iterable[int], check: InstanceCheck | None = None,
                  spent: ValidationSpend | None = None) -> int:
    """Render every seed and check each instance (and with ``check``), within the validation budget;
    returns how many seeds were rendered."""
    seeds = list(seeds)
    answers: set[str] = set()  # the true/false or choice answers drawn
    chosen: dict[str, set[str]] = {name: set() for name, spec in template.params.items() if spec.choice}
    live: dict[str, set[int]] = {}  # per misconceptions list: which ever differed from the answer
    given: dict[tuple[str, tuple[int, ...]], tuple[float, int]] = {}  # a given entry's value, and its first seed
    spent = spent or ValidationSpend(template, len(seeds))
    fair = FairDraws(template, len(seeds))  # what wrong answers earn on each draw (quizzer.templates.fair_draws)
    for seed in seeds:
        budget = Budget(fields=spent.fields)
        instance = None
        try:
            instance = make_instance(template, seed, budget)
            check_instance(instance)
            fair.check(instance)
        except TemplateError as exc:
            drawn = exc.drawn if instance is None else instance.values
            raise TemplateError(f"seed {seed}{_draw(template, drawn)}: {exc.message}",
                                where=template_where(template)) from None
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError, MemoryError) as exc:
            # A hostile file must never reach the user as a traceback; this is quizzer's fault, not the
            # author's, but the file is refused all the same, by name.
            raise TemplateError(f"seed {seed}: could not be rendered ({type(exc).__name__}: {exc}); "
                                "please report this file to quizzer's maintainers",
                                where=template_where(template)) from None
        answers.add(instance.answer_text)
        for name, values in chosen.items():
            values.add(show(instance.values[name]))
        for field, indices in live_misconceptions(instance):
            live.setdefault(field, set()).update(indices)
        check_given_entries(template, instance, seed, given)
        spent.add(budget)
        _check_usable(template, instance, check)  # after the seed's cost is counted: a costly file is refused as such
    check_answer_varies(template, answers, len(seeds))
    check_choices_drawn(template, chosen, len(seeds))
    check_misconceptions_differ(template, live, len(seeds))
    if check is not None:
        check.finish()
        spent.check_total("rendering for every export")
    fair.finish()
    return len(seeds)


def _check_usable(template: Template, instance: Instance, check: InstanceCheck | None) -> None:
    """The answer typed back as printed (``answerable``), and what ``check`` adds (every export's rendering)."""
    try:
        check_answerable(instance)
        if check is not None:
            check(instance)
    except TemplateError as exc:
        raise TemplateError(f"seed {instance.seed}{_draw(template, instance.values)}: {exc.message}",
                            where=template_where(template)) from None


def _draw(template: Template, values: dict[str, Any] | None) -> str:
    """' (B = 4, T = 16)': the parameters a seed drew, for an error on that seed, as many as fit a short line;
    an array by its entries when it has a few (the author recomputes the failing answer from them), else by its
    shape."""
    shown = []
    for name in template.params:
        if values is None or name not in values:
            return ""  # the draw itself failed: the field named says which parameter
        value = values[name]
        if isinstance(value, np.ndarray) and value.size > _DRAW_ENTRIES:
            shown.append(f"{name}: {'×'.join(map(str, value.shape))} array")
        else:
            shown.append(f"{name} = {show(value)}")
    text = ""
    for item in shown:
        if len(text) + len(item) > _DRAW_CHARS:
            text += ", …"
            break
        text = f"{text}, {item}" if text else item
    return f" ({text})" if text else ""


_DRAW_CHARS = 100
_DRAW_ENTRIES = 8  # an array of at most this many entries is written out


# --- the validation budget: all seeds of one template together ----------------------------------
# Each instance has its own budget (quizzer.grading.budget); these bound all seeds of a template, so a
# file whose every instance stays just under the instance limits is still refused in seconds, and
# early: the spend so far is projected over every seed after each one.  The bundled bank's costliest
# template spends about a tenth of each (SECURITY.md).
MAX_VALIDATION_COST = 3_000_000_000  # element operations (steps weighted as budget.STEP_WORK)
MAX_VALIDATION_CPU_SECONDS = 10.0  # processor time, so a busy machine does not refuse a good file
_PROJECT_AFTER_CPU_SECONDS = 1.0  # the first seeds warm caches: project from a second's worth of them
# A refused file costs at most what a valid one may, and the files after it are checked only to be
# reported (nothing will be written): so that a folder of many costly hostile files is not refused that
# many times as slowly, the rest of a run is left unchecked once the files refused so far have taken this
# much processor time together (SECURITY.md).
MAX_REFUSED_CPU_SECONDS = MAX_VALIDATION_CPU_SECONDS


class ValidationSpend:
    """What the seeds rendered so far cost, projected over all of them.  Seed 0 of a template with
    ``canonical`` values draws the notes' own numbers (often the largest: the variance experiment's
    13.6 M draws), so it counts once, unprojected."""

    def __init__(self, template: Template, seeds: int):
        self.template, self.seeds, self.done = template, seeds, 0
        self.fields: dict[str, int] = {}
        self.first_cost, self.cost, self.first_cpu = 0, 0, 0.0
        self.started = processor_time()  # remembered: the first seed's budget starts from it

    def add(self, budget: Budget) -> None:
        self.done += 1
        self.cost += budget.cost()
        cpu = processor_time() - self.started
        if self.done == 1 and self.template.canonical:
            self.first_cost, self.first_cpu = self.cost, cpu
        projected_cost = int(self.first_cost + self._projected(self.cost - self.first_cost))
        if projected_cost > MAX_VALIDATION_COST:
            self._refuse(f"{self.seeds} seeds would cost about {projected_cost:,} element operations "
                         f"(limit {MAX_VALIDATION_COST:,})")
        projected_cpu = self.first_cpu + self._projected(cpu - self.first_cpu)
        if cpu > MAX_VALIDATION_CPU_SECONDS or (cpu > _PROJECT_AFTER_CPU_SECONDS
                                                  and projected_cpu > MAX_VALIDATION_CPU_SECONDS):
            self._refuse(f"{self.seeds} seeds would take about {projected_cpu:.0f} s of processor time "
                         f"(limit {MAX_VALIDATION_CPU_SECONDS:g} s)")

    def check_total(self, what: str) -> None:
        """After the work that follows the seeds (the exports' typesetting, the slip report): the processor
        time so far, against the same limit."""
        cpu = processor_time() - self.started
        if cpu > MAX_VALIDATION_CPU_SECONDS:
            fail(self.template, "answer", f"too costly to validate: the seeds and {what} took {cpu:.0f} s of "
                 f"processor time (limit {MAX_VALIDATION_CPU_SECONDS:g} s)")

    def _projected(self, spent: float) -> Any:
        """``spent`` by the seeds rendered so far (not counting a canonical seed 0), scaled to all of them."""
        skipped = 1 if self.template.canonical else 0
        rendered, total = self.done - skipped, self.seeds - skipped
        return spent * total // rendered if rendered > 0 else 0

    def _refuse(self, what: str) -> None:
        costliest = max(self.fields, key=self.fields.__getitem__, default="answer")
        share = self.fields.get(costliest, 0) * 100 // max(self.cost, 1)
        fail(self.template, costliest, f"too costly to validate: {what}; this field does {share} % of the work")


def validate_files(paths: Iterable[Path], *, seeds: int = DEFAULT_SEEDS,
                   check: Callable[[], InstanceCheck] | None = None, slips: bool = False) -> list[LoadedTemplate]:
    """Load, cross-check and test-render a set of files; all must pass or nothing is returned.
    ``quizzer validate`` and ``quizzer add`` both come here, with the same ``check`` (a fresh one per
    template) and ``slips`` (the engine-slip report, computed inside each template's budget), so a file is
    valid exactly when it would be added.  Every broken file is reported, by its first problem: one is
    raised as itself, several together as :class:`TemplateErrors`, in the order of the files."""
    loaded: list[LoadedTemplate] = []
    problems: list[TemplateError] = []
    first_file: dict[str, Path] = {}
    bundled = bundled_files()  # a scan of the bundled directory: once, not once per file
    paths = list(paths)
    refused_cpu = 0.0  # processor time the refused files took, together
    for index, path in enumerate(paths):
        if refused_cpu > MAX_REFUSED_CPU_SECONDS:
            problems.append(_not_checked(paths[index:], len(problems), refused_cpu))
            break
        started = processor_time()
        try:
            loaded.append(_validate_file(path, seeds, first_file, bundled, check=check() if check else None,
                                         slips=slips))
        except TemplateError as exc:
            problems.append(exc)
            refused_cpu += processor_time() - started
    if len(problems) > 1:
        raise TemplateErrors(problems)
    if problems:
        raise problems[0]
    return loaded


def _validate_file(path: Path, seeds: int, first_file: dict[str, Path], bundled: dict[str, Path], *,
                   check: InstanceCheck | None, slips: bool) -> LoadedTemplate:
    """One file, checked as far as its first problem (raised, naming file, template and field); its keys
    are remembered in ``first_file``, so a later file taking one of them is the duplicate."""
    source = read_template_file(path)
    template = load_text(source, where=str(path))
    where = f"{path}: template {template.key!r}"
    for key in (template.key, *template.part_ids):  # a part's routed ID is as much the file's as its key
        if key in first_file:
            raise TemplateError(f"duplicate key: also defined in {first_file[key]}"
                                + (f" (as {key!r})" if key != template.key else ""), where=where)
        first_file[key] = path
    try:
        check_not_bundled(template, path, bundled)
        check_references(template, load_catalog())
        check_parts(template)
        spent = ValidationSpend(template, seeds)
        check_renders(template, range(seeds), check, spent)
        report = template_slips(template, range(min(seeds, SLIP_SEEDS)),
                                tick=lambda: spent.check_total("the engine-slip report")) if slips else None
    except TemplateError as exc:
        raise TemplateError(_with_line(exc.message, source),
                            where=f"{path}: {exc.where}" if exc.where else where) from None
    return LoadedTemplate(template, path, source, report)


def _with_line(message: str, source: str) -> str:
    """``message`` with the line of the field it names in the file, as the loader's own errors give it
    ("... (line 12)"); a part's own fields are named from the top of the file ('parts.1.answer', in_part)."""
    field = FIELD_NAMED.search(message)
    if field is None or "(line " in message:
        return message
    line = line_of(yaml.compose(source, Loader=SafeLoader), (field[1] + field[2]).split("."), exact=True)
    return f"{message} (line {line})" if line else message


def _not_checked(rest: list[Path], refused: int, cpu: float) -> TemplateError:
    more = f" (nor {len(rest) - 1} more file(s) after it)" if len(rest) > 1 else ""
    return TemplateError(f"not checked{more}: the {refused} file(s) refused so far took {cpu:.1f} s of processor "
                         f"time together (limit {MAX_REFUSED_CPU_SECONDS:g} s); fix them and validate again",
                         where=str(rest[0]))


def check_not_bundled(template: Template, path: Path, bundled: dict[str, Path]) -> None:
    """A bundled question cannot be replaced by another file: the bundled file is re-imported whenever
    it differs from the bank, which would silently undo the change at the next start."""
    owner = bundled.get(template.key)
    if owner is not None and owner.resolve() != path.resolve():
        fail(template, "key", f"{template.key!r} is a bundled question ({owner}); give your version a key of "
              "its own, e.g. 'practice/my-…', or edit the bundled file")


def bundled_files() -> dict[str, Path]:
    """The bundled questions by key: each file's top-level ``key:`` (some 50 ms for all of them, so
    they are read again only when a file changes)."""
    directory = questions_dir()
    files = template_files([directory]) if directory.is_dir() else []
    return _keys_of(tuple((path, path.stat().st_mtime_ns, path.stat().st_size) for path in files))


@functools.lru_cache(maxsize=4)
def _keys_of(files: tuple[tuple[Path, int, int], ...]) -> dict[str, Path]:
    return {key: path for path, _, _ in files if (key := _stated_key(path)) is not None}


def _stated_key(path: Path) -> str | None:
    """The value of a file's top-level ``key:``, read from the YAML events without building anything."""
    depth, field = 0, None  # field: the top-level key whose value comes next
    try:
        for event in yaml.parse(path.read_text(encoding="utf-8"), Loader=SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                field = None if depth == 1 else field  # a nested value ended: a key comes next
            elif isinstance(event, yaml.ScalarEvent) and depth == 1:
                if field == "key":
                    return str(event.value)
                field = event.value if field is None else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None  # not a template: refused on its own when it is validated
    return None
