"""Validation beyond structure: catalogue references, and test-rendering over many seeds.

A template passes only if, for every seed tried, it renders completely, its answer
is finite and of its kind's form, and no two misconceptions give the same answer (the
feedback could not tell them apart).  A misconception that gives the correct answer on a seed
is dropped for that seed by ``make_instance``: a right answer is never graded as a mistake; one that
does so on every seed tried is never diagnosed, and is refused.

A set of files is checked like a linter checks: every broken file is reported, each by its first
problem, and the templates are returned only if none is broken (``quizzer add`` adds all or none).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.errors import FIELD_NAMED, TemplateError, TemplateErrors, did_you_mean
from quizzer.grading.budget import Budget, processor_time
from quizzer.grading.describe import describe
from quizzer.grading.match import values_match
from quizzer.grading.ordering import examined_pair_inverted
from quizzer.grading.tolerance import Precision, Tolerance
from quizzer.grading.verdict import grade
from quizzer.templates import VALIDATION_SEEDS
from quizzer.templates.catalog import Catalog, load_catalog, questions_dir
from quizzer.templates.draw import template_where, yaml_value
from quizzer.templates.formatting import show
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.loader import SafeLoader, load_text, read_template_file
from quizzer.templates.parts import check_parts, in_part
from quizzer.templates.schema import Template
from quizzer.templates.schema_errors import line_of
from quizzer.templates.sources import template_files

DEFAULT_SEEDS = VALIDATION_SEEDS


@dataclass(frozen=True)
class LoadedTemplate:
    template: Template
    path: Path
    source: str


def check_references(template: Template, catalog: Catalog) -> None:
    """Topics, misconception ids and routed keys must exist in the catalogue, and the week must be the first
    topic's."""
    for i, topic in enumerate(template.topics):
        if topic not in catalog.topics:
            _fail(template, f"topics.{i}", f"unknown topic {topic!r}{did_you_mean(topic, catalog.topics)}")
    # The week is the primary topic's ('list', 'generate' and 'export --week' select by the week): a question
    # filed under another week would be missing where its topic is taught.  A secondary topic may come from
    # another week (the bundled Week 2 questions that use Week 1's softmax or encoder parameters).
    primary = catalog.topics[template.topics[0]]
    if template.week != primary.week:
        _fail(template, "week", f"week {template.week} is not the week of its first topic {primary.id!r}, "
              f"which data/topics.yaml puts in week {primary.week}")
    used = [(f"misconceptions.{i}.id", m.id) for i, m in enumerate(template.misconceptions)]
    used += [(f"parts.{i}.misconceptions.{j}.id", m.id) for i, part in enumerate(template.parts or ())
             for j, m in enumerate(part.misconceptions)]
    used += [(f"choices.{i}.misconception", c.misconception) for i, c in enumerate(template.choices or [])
             if c.misconception]
    for field, misconception in used:
        if misconception not in catalog.misconceptions:
            _fail(template, field, f"unknown misconception {misconception!r}"
                  f"{did_you_mean(misconception, catalog.misconceptions)} (see data/misconceptions.yaml)")
    routed = [("key", template.key)] if template.is_routed else []
    routed += [(f"parts.{i}.id", part.id) for i, part in enumerate(template.parts or ()) if part.id]
    for field, key in routed:
        if key not in catalog.records:
            _fail(template, field, f"{key!r} is not a routed record in data/routing.yaml"
                  f"{did_you_mean(key, catalog.records)}")


def check_renders(template: Template, seeds: Iterable[int]) -> int:
    """Render every seed and check each instance, within the validation budget; returns how many seeds
    were rendered."""
    seeds = list(seeds)
    answers: set[str] = set()  # the true/false or choice answers drawn
    chosen: dict[str, set[str]] = {name: set() for name, spec in template.params.items() if spec.choice}
    live: dict[str, set[int]] = {}  # per misconceptions list: which ever differed from the answer
    given: dict[tuple[str, tuple[int, ...]], tuple[float, int]] = {}  # a given entry's value, and its first seed
    spent = ValidationSpend(template, len(seeds))
    for seed in seeds:
        budget = Budget(fields=spent.fields)
        instance = None
        try:
            instance = make_instance(template, seed, budget)
            check_instance(instance)
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
        for field, indices in _live_misconceptions(instance):
            live.setdefault(field, set()).update(indices)
        _check_given_entries(template, instance, seed, given)
        spent.add(budget)
    _check_answer_varies(template, answers, len(seeds))
    _check_choices_drawn(template, chosen, len(seeds))
    _check_misconceptions_differ(template, live, len(seeds))
    return len(seeds)


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

    def _projected(self, spent: float) -> Any:
        """``spent`` by the seeds rendered so far (not counting a canonical seed 0), scaled to all of them."""
        skipped = 1 if self.template.canonical else 0
        rendered, total = self.done - skipped, self.seeds - skipped
        return spent * total // rendered if rendered > 0 else 0

    def _refuse(self, what: str) -> None:
        costliest = max(self.fields, key=self.fields.__getitem__, default="answer")
        share = self.fields.get(costliest, 0) * 100 // max(self.cost, 1)
        _fail(self.template, costliest, f"too costly to validate: {what}; this field does {share} % of the work")


# What is true on every seed tried is judged only over this many seeds or more (``quizzer verify`` and the
# bundled bank's import render one: a misconception may well give the right answer on seed 0).
MIN_SEEDS_TO_JUDGE = 20


def _check_answer_varies(template: Template, answers: set[str], count: int) -> None:
    """A true/false or single-choice answer that is the same on every seed can be learned by position."""
    if template.kind not in ("bool", "choice") or template.conceptual or len(answers) > 1 \
            or count < MIN_SEEDS_TO_JUDGE:
        return
    (answer,) = answers
    _fail(template, "answer", f"the answer is {answer!r} on every one of {count} seeds, so it can be learned by "
          "position: let the numbers decide it, or declare 'conceptual: true' if it is a fact that never varies")


def _check_choices_drawn(template: Template, chosen: dict[str, set[str]], count: int) -> None:
    """A value of a ``choice`` parameter that ``require`` rules out on every draw is never asked about (a teacher
    wrote ``require: [bias]`` over ``bias: {choice: [true, false]}`` and believed both were practised).

    Judged over twenty seeds per value or more: a value the rules leave half its share of the draws is then
    missed on fewer than one validation in 20,000, so one never drawn is ruled out, or as good as."""
    for name, values in chosen.items():
        options = template.params[name].choice or []
        if count < max(MIN_SEEDS_TO_JUDGE, 20 * len(options)):
            continue
        for i, option in enumerate(options):
            if show(yaml_value(option)) not in values:
                _fail(template, f"params.{name}.choice.{i}",
                      f"{name} = {show(option)} is never drawn in {count} seeds: 'require' rules it out; drop it "
                      "from the choices, or loosen the rule that refuses it")


def _check_given_entries(template: Template, instance: Instance, seed: int,
                         seen: dict[tuple[str, tuple[int, ...]], tuple[float, int]]) -> None:
    """An entry the prompt gives away (``given_entries``: a blocked key's 0, a BOS id) is the same whatever
    the numbers drawn; one that changes with them is worked out, and listing it would take its credit away."""
    questions = [("given_entries", instance)] + [
        (f"parts.{i}.given_entries", part.question) for i, part in enumerate(instance.parts)]
    for field, question in questions:
        if question.spec.given is None:
            continue
        answer = np.asarray(question.answer, dtype=float)
        for index in map(tuple, np.argwhere(question.spec.given)):
            value = float(answer[index])
            first, first_seed = seen.setdefault((field, index), (value, seed))
            if abs(value - first) > 1e-12 * max(1.0, abs(first)):
                entry = ", ".join(str(i + 1) for i in index)
                _fail(template, field, f"entry {entry} is {value:.6g} on seed {seed} and {first:.6g} on seed "
                      f"{first_seed}: an entry given away is the same whatever the numbers drawn (list only the "
                      "entries the prompt fixes, such as a blocked key's weight 0)")


def _live_misconceptions(instance: Instance) -> list[tuple[str, tuple[int, ...]]]:
    """Each list of misconceptions (by field) with the indices of those that differ from the answer here."""
    return [("misconceptions", instance.live_misconceptions)] + [
        (f"parts.{i}.misconceptions", part.question.live_misconceptions) for i, part in enumerate(instance.parts)]


def _check_misconceptions_differ(template: Template, live: dict[str, set[int]], count: int) -> None:
    """``make_instance`` drops a misconception on a seed where it gives the correct answer; one that does on
    every seed is never diagnosed: a learner making that mistake is simply right."""
    if count < MIN_SEEDS_TO_JUDGE:
        return
    lists = [("misconceptions", template.misconceptions)]
    lists += [(f"parts.{i}.misconceptions", part.misconceptions) for i, part in enumerate(template.parts or ())]
    for field, misconceptions in lists:
        for i, misconception in enumerate(misconceptions):
            if i not in live.get(field, ()):
                _fail(template, f"{field}.{i}", f"{misconception.id!r} gives the correct answer on every one of the "
                      f"{count} seeds tried, so it is dropped on each and never diagnosed: compute the answer the "
                      "mistake gives, or remove it")


def check_instance(instance: Instance) -> None:
    """One rendered instance (interpolation is already complete, or rendering would have failed)."""
    for index, part in enumerate(instance.parts):  # each part is a question of its own, checked as one
        try:
            check_instance(part.question)
        except TemplateError as exc:
            raise in_part(exc, index) from None
    if len(set(instance.choices)) != len(instance.choices):
        raise TemplateError("field 'choices': two choices render to the same text")
    if instance.kind in ("choice", "multi"):
        return  # misconceptions there name distractors, which the schema keeps apart from correct choices
    spec = instance.spec
    _check_tolerance_within_precision(spec.tolerance, spec.precision)
    # Typed as the learner would, each mistake is graded back as itself (one per live misconception, in order).
    for mistake, index in zip(instance.mistakes, instance.live_misconceptions, strict=True):
        if mistake.id is not None and (got := grade(spec, mistake.answer_text).misconception) != mistake.id:
            raise TemplateError(f"field 'misconceptions.{index}' ({mistake.id}): its answer typed as printed "
                                f"({mistake.answer_text}) is graded as {got or 'no misconception'}, so a learner "
                                "making it would not hear about it")
    for i, wrong in enumerate(spec.wrong_answers):  # those giving the correct answer were dropped for this seed
        if spec.kind == "order" and examined_pair_inverted(wrong.value, spec.expected, spec.must_precede) is None:
            field = f"misconceptions.{instance.live_misconceptions[i]}"
            kept = grade(spec, describe("order", wrong.value)).score
            raise TemplateError(f"field {field!r} ({wrong.id}): this order inverts no pair listed under "
                                f"'must_precede', so the mistake keeps {kept:.0%} of the marks: list the pair of "
                                "steps it puts the wrong way round")
        for other in spec.wrong_answers[i + 1:]:
            if np.shape(wrong.value) == np.shape(other.value) and values_match(
                    spec.kind, wrong.value, other.value, spec.tolerance):
                field = f"misconceptions.{instance.live_misconceptions[i]}"  # in the file, not among those kept
                raise TemplateError(f"field {field!r} ({wrong.id}): gives the same answer as "
                                    f"{other.id}, so feedback could not tell them apart")


# A tolerance may accept this many units of the last digit the prompt asks for (the bundled bank's widest is 5):
# wider, the question asks for digits that do not count ("Give 4 decimals" with abs: 0.5 marked 0.01 right for
# 0.4442, and the mistakes it lists were refused as "gives the correct answer", blaming them).
MAX_TOLERANCE_UNITS = 10


def _check_tolerance_within_precision(tolerance: Tolerance, asked: Precision | None) -> None:
    if asked is None:
        return
    if asked.unit == "decimals":
        field, given, unit = "tolerance.abs", tolerance.abs, 10.0 ** -asked.digits
    else:  # relative to a number whose first figure is 1, the least a unit of its last figure can be
        field, given, unit = "tolerance.rel", tolerance.rel, 10.0 ** -(asked.digits - 1)
    if given is not None and given > MAX_TOLERANCE_UNITS * unit * (1 + 1e-9):
        raise TemplateError(f"field {field!r}: {given:g} accepts answers {given / unit:,.0f} units of the last "
                            f"digit away, where the prompt asks for {asked.name()}: give at most "
                            f"{MAX_TOLERANCE_UNITS * unit:g}, or ask for fewer digits")


def validate_files(paths: Iterable[Path], *, seeds: int = DEFAULT_SEEDS) -> list[LoadedTemplate]:
    """Load, cross-check and test-render a set of files; all must pass or nothing is returned.
    ``quizzer validate`` and ``quizzer add`` both come here, so a file is valid exactly when
    it would be added.  Every broken file is reported, by its first problem: one is raised as
    itself, several together as :class:`TemplateErrors`, in the order of the files."""
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
            loaded.append(_validate_file(path, seeds, first_file, bundled))
        except TemplateError as exc:
            problems.append(exc)
            refused_cpu += processor_time() - started
    if len(problems) > 1:
        raise TemplateErrors(problems)
    if problems:
        raise problems[0]
    return loaded


def _validate_file(path: Path, seeds: int, first_file: dict[str, Path], bundled: dict[str, Path]) -> LoadedTemplate:
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
        check_renders(template, range(seeds))
    except TemplateError as exc:
        raise TemplateError(_with_line(exc.message, source),
                            where=f"{path}: {exc.where}" if exc.where else where) from None
    return LoadedTemplate(template, path, source)


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
        _fail(template, "key", f"{template.key!r} is a bundled question ({owner}); give your version a key of "
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


def _fail(template: Template, field: str, message: str) -> None:
    raise TemplateError(f"field {field!r}: {message}", where=template_where(template))
