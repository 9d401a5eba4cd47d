"""What the bank covers: templates per topic, paper and kind, routed records without a
template, and which catalogued misconceptions some template can diagnose.

Three figures measure the bank against the course's coverage goals (issue 21), and
``tests/report/test_coverage_goals.py`` holds them:

1. every topic of both weeks has at least ``TOPIC_GOAL`` templates;
2. every worked example and printed output in the notes (``data/worked_examples.yaml``) is
   reproduced by its template at seed 0;
3. every "Dangerous Misconception" box and ebook correction is a listed misconception of at
   least ``MISCONCEPTION_GOAL`` templates.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from quizzer.common.errors import TemplateError, UserError
from quizzer.templates.catalog import Catalog, SafeLoader, data_dir
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.parts import question_for
from quizzer.templates.schema import KINDS, Template

TOPIC_GOAL = 10
MISCONCEPTION_GOAL = 2
BOXES = ("dangerous", "ebook_correction")   # the notes' boxed misconceptions and labelled corrections
WORKED_EXAMPLES_FILE = "worked_examples.yaml"


@dataclass(frozen=True)
class WorkedExample:
    """One worked example or printed output of the notes, and how its template's seed 0 shows it."""

    id: str
    where: str
    template: str
    answer: Any = None        # the seed-0 answer, as the notes print it
    tolerance: float | None = None
    shows: str | None = None  # or: text the seed-0 question prints


@dataclass(frozen=True)
class Goals:
    """The three coverage figures."""

    thinnest_topic: tuple[str, int]                # (topic id, templates) of the least covered topic
    topics_at_goal: tuple[int, int]                # (topics with >= TOPIC_GOAL templates, topics)
    worked: tuple[int, int]                        # (examples reproduced at seed 0, examples listed)
    worked_missing: list[str]
    boxes: tuple[int, int]                         # (boxes in >= MISCONCEPTION_GOAL templates, boxes)
    boxes_short: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"thinnest_topic": list(self.thinnest_topic), "topics_at_goal": list(self.topics_at_goal),
                "worked_examples": {"reproduced": self.worked[0], "listed": self.worked[1],
                                    "missing": self.worked_missing},
                "misconception_boxes": {"covered": self.boxes[0], "listed": self.boxes[1],
                                        "short": self.boxes_short}}


@dataclass(frozen=True)
class Coverage:
    topics: dict[str, int]
    papers: dict[str, tuple[int, int]]  # paper -> (records with a template, routed records)
    kinds: dict[str, int]
    misconceptions: dict[str, list[str]]  # misconception id -> template keys that diagnose it
    missing_records: list[str]
    templates: int
    goals: Goals

    def to_json(self) -> dict[str, Any]:
        return {"templates": self.templates, "goals": self.goals.to_json(), "topics": self.topics,
                "papers": {p: {"covered": c, "routed": r} for p, (c, r) in self.papers.items()},
                "kinds": self.kinds, "misconceptions": self.misconceptions,
                "missing_records": self.missing_records}


def diagnosed(template: Template) -> set[str]:
    """The misconception ids a template's wrong answers or distractors record."""
    ids = {m.id for m in (*template.misconceptions, *(m for p in template.parts or () for m in p.misconceptions))}
    return ids | {c.misconception for c in template.choices or () if c.misconception}


def measure(templates: Iterable[Template], catalog: Catalog) -> Coverage:
    templates = list(templates)
    topics = Counter(topic for t in templates for topic in t.topics)
    keys = {key for t in templates for key in (t.key, *t.part_ids)}  # a part can be a routed record
    papers: dict[str, tuple[int, int]] = {}
    for record in catalog.records.values():
        covered, routed = papers.get(record.paper, (0, 0))
        papers[record.paper] = (covered + (record.id in keys), routed + 1)
    misconceptions: dict[str, list[str]] = {m: [] for m in catalog.misconceptions}
    for t in templates:
        for m in sorted(diagnosed(t)):
            misconceptions.setdefault(m, []).append(t.key)
    per_topic = {topic: topics[topic] for topic in catalog.topics}
    return Coverage(
        topics=per_topic,
        papers=dict(sorted(papers.items())),
        kinds={kind: sum(t.kind == kind for t in templates) for kind in KINDS},
        misconceptions=misconceptions,
        missing_records=sorted(set(catalog.records) - keys),
        templates=len(templates),
        goals=_goals(per_topic, misconceptions, catalog, {k: t for t in templates for k in (t.key, *t.part_ids)}),
    )


def _goals(per_topic: dict[str, int], users: dict[str, list[str]], catalog: Catalog,
           by_key: dict[str, Template]) -> Goals:
    thinnest = min(per_topic.items(), key=lambda item: item[1])
    examples = load_worked_examples()
    missing = [example.id for example in examples if not reproduced(example, by_key)]
    boxes = [m for m in catalog.misconceptions.values() if m.kind in BOXES]
    short = [m.id for m in boxes if len(users.get(m.id, [])) < MISCONCEPTION_GOAL]
    return Goals(thinnest, (sum(n >= TOPIC_GOAL for n in per_topic.values()), len(per_topic)),
                 (len(examples) - len(missing), len(examples)), missing, (len(boxes) - len(short), len(boxes)), short)


def load_worked_examples() -> list[WorkedExample]:
    """``data/worked_examples.yaml``: the notes' worked examples and printed outputs (none if absent)."""
    import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints

    path = data_dir() / WORKED_EXAMPLES_FILE
    if not path.exists():
        return []
    try:
        entries = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)["examples"]
        return [WorkedExample(**entry) for entry in entries]
    except (OSError, UnicodeDecodeError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise UserError(f"cannot read the worked examples: {exc}".splitlines()[0], where=str(path)) from None


def reproduced(example: WorkedExample, by_key: dict[str, Template]) -> bool:
    """Whether the example's template exists and its seed 0 gives the notes' value or prints its text."""
    template = by_key.get(example.template)
    if template is None:
        return False
    try:
        instance = question_for(make_instance(template, 0), example.template)  # a chain's part, when it names one
    except TemplateError:
        return False
    if example.shows is not None:
        printed = "\n".join((instance.prompt, instance.solution, instance.answer_text))
        return example.shows in printed.replace("{,}", ",")  # tex(4204032) prints 4{,}204{,}032 in maths
    return _same(instance, example.answer, example.tolerance)


def _same(instance: Instance, expected: Any, tolerance: float | None) -> bool:
    answer = instance.answer
    if tolerance is None:  # exact: counts and shapes (a size name compares as written)
        if isinstance(answer, (np.ndarray, tuple)):
            answer = np.asarray(answer).tolist() if isinstance(answer, np.ndarray) else list(answer)
        return bool(answer == expected)
    got_array, want_array = np.asarray(answer, dtype=float), np.asarray(expected, dtype=float)
    return got_array.shape == want_array.shape and bool(np.all(np.abs(got_array - want_array) <= tolerance))


def render_text(coverage: Coverage, catalog: Catalog) -> str:
    """The coverage report as aligned plain-text tables."""
    goals = coverage.goals
    thinnest, fewest = goals.thinnest_topic
    lines = [f"{coverage.templates} templates", "", "Coverage goals",
             f"  topics with >= {TOPIC_GOAL} templates       {goals.topics_at_goal[0]}/{goals.topics_at_goal[1]}"
             f"  (thinnest: {thinnest}, {fewest})",
             f"  worked examples reproduced at seed 0 {goals.worked[0]}/{goals.worked[1]}"
             + (f"  missing: {', '.join(goals.worked_missing)}" if goals.worked_missing else ""),
             f"  boxed misconceptions in >= {MISCONCEPTION_GOAL} templates {goals.boxes[0]}/{goals.boxes[1]}"
             + (f"  short: {', '.join(goals.boxes_short)}" if goals.boxes_short else ""),
             "", "Templates per topic"]
    for topic_id, count in coverage.topics.items():
        topic = catalog.topics[topic_id]
        lines.append(f"  W{topic.week}  {topic_id:<30} {count:>4}  {topic.name}")
    lines += ["", "Routed records with a template, per paper"]
    for paper, (covered, routed) in coverage.papers.items():
        lines.append(f"  {paper:<14} {covered:>3}/{routed:<3}{'' if covered == routed else '  incomplete'}")
    lines += ["", "Templates per kind", "  " + "  ".join(f"{k} {n}" for k, n in coverage.kinds.items())]
    lines += ["", "Misconceptions diagnosed (by how many templates)"]
    for kind in ("dangerous", "ebook_correction", "common_error"):
        for m in (m for m in catalog.misconceptions.values() if m.kind == kind):
            users = coverage.misconceptions.get(m.id, [])
            lines.append(f"  {kind:<16} {m.id:<42} {len(users):>3}{'  NOT COVERED' if not users else ''}")
    if coverage.missing_records:
        lines += ["", "Routed records without a template: " + ", ".join(coverage.missing_records)]
    return "\n".join(lines)
