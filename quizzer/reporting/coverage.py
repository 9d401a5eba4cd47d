"""What the bank covers: templates per topic, paper and kind, routed records without a
template, and which catalogued misconceptions some template can diagnose."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from quizzer.templates.catalog import Catalog
from quizzer.templates.schema import KINDS, Template


@dataclass(frozen=True)
class Coverage:
    topics: dict[str, int]
    papers: dict[str, tuple[int, int]]  # paper -> (records with a template, routed records)
    kinds: dict[str, int]
    misconceptions: dict[str, list[str]]  # misconception id -> template keys that diagnose it
    missing_records: list[str]
    templates: int

    def to_json(self) -> dict[str, Any]:
        return {"templates": self.templates, "topics": self.topics,
                "papers": {p: {"covered": c, "routed": r} for p, (c, r) in self.papers.items()},
                "kinds": self.kinds, "misconceptions": self.misconceptions,
                "missing_records": self.missing_records}


def diagnosed(template: Template) -> set[str]:
    """The misconception ids a template's wrong answers or distractors record."""
    ids = {m.id for m in template.misconceptions}
    return ids | {c.misconception for c in template.choices or () if c.misconception}


def measure(templates: Iterable[Template], catalog: Catalog) -> Coverage:
    templates = list(templates)
    topics = Counter(topic for t in templates for topic in t.topics)
    keys = {t.key for t in templates}
    papers: dict[str, tuple[int, int]] = {}
    for record in catalog.records.values():
        covered, routed = papers.get(record.paper, (0, 0))
        papers[record.paper] = (covered + (record.id in keys), routed + 1)
    misconceptions: dict[str, list[str]] = {m: [] for m in catalog.misconceptions}
    for t in templates:
        for m in sorted(diagnosed(t)):
            misconceptions.setdefault(m, []).append(t.key)
    return Coverage(
        topics={topic: topics[topic] for topic in catalog.topics},
        papers=dict(sorted(papers.items())),
        kinds={kind: sum(t.kind == kind for t in templates) for kind in KINDS},
        misconceptions=misconceptions,
        missing_records=sorted(set(catalog.records) - keys),
        templates=len(templates),
    )


def render_text(coverage: Coverage, catalog: Catalog) -> str:
    """The coverage report as aligned plain-text tables."""
    lines = [f"{coverage.templates} templates", "", "Templates per topic"]
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
