"""Each topic's exam weight: how many of the routed exam records are about it.

The objective (``quizzer.learning.plan.forecast``) weighs a topic by how many marks of an exam it
carries.  The notes' routing table (``data/routing.yaml``) says that for Week 2: a record routed to
two topics counts for both.  Week 1's routing did not survive, so each Week 1 topic gets the
**stated default**: the mean count of the Week 2 topics (69 routings over 8 topics: 8.6 records),
i.e. the two weeks weigh alike, topic for topic.

A teacher who knows better writes a YAML file of ``topic_id: weight`` (numbers ≥ 0; a topic not
listed keeps its weight above) and points ``QUIZZER_EXAM_WEIGHTS`` at it.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints

from quizzer.common.errors import UserError, did_you_mean
from quizzer.common.userfiles import read_bounded
from quizzer.templates.catalog import Catalog

WEIGHTS_ENV = "QUIZZER_EXAM_WEIGHTS"
MAX_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class ExamWeights:
    """Weight per topic id, and where each came from (``routed``, ``default`` or the override file)."""

    weights: Mapping[str, float]
    source: Mapping[str, str]

    def share(self, topic: str) -> float:
        """The topic's share of the exam's marks (0 for a topic not weighed)."""
        total = sum(self.weights.values())
        return self.weights.get(topic, 0.0) / total if total > 0 else 0.0


def exam_weights(catalog: Catalog, override: Path | None = None) -> ExamWeights:
    """The weights of every topic of the catalogue (``override``: default ``$QUIZZER_EXAM_WEIGHTS``)."""
    counts = Counter(topic for record in catalog.records.values() for topic in record.topics)
    routed_weeks = {catalog.topics[t].week for t in counts if t in catalog.topics}
    by_week: dict[int, list[str]] = {}
    for topic in catalog.topics.values():
        by_week.setdefault(topic.week, []).append(topic.id)
    routed_topics = [t for week in routed_weeks for t in by_week[week]]
    default = sum(counts[t] for t in routed_topics) / len(routed_topics) if routed_topics else 1.0
    weights: dict[str, float] = {}
    source: dict[str, str] = {}
    for topic in catalog.topics.values():
        if topic.week in routed_weeks:
            weights[topic.id], source[topic.id] = float(counts[topic.id]), "routed"
        else:
            weights[topic.id], source[topic.id] = round(default, 1), "default"
    path = override if override is not None else _env_path()
    if path is not None:
        for topic_id, weight in read_override(path, catalog).items():
            weights[topic_id], source[topic_id] = weight, str(path)
    return ExamWeights(weights, source)


def _env_path() -> Path | None:
    value = os.environ.get(WEIGHTS_ENV)
    return Path(value) if value else None


def read_override(path: Path, catalog: Catalog) -> dict[str, float]:
    """A teacher's weights file, checked whole: one line saying what and where on any problem."""
    text = read_bounded(path, limit=MAX_FILE_BYTES, what="the exam weights file")
    try:
        _check_flat(text, path)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        where = f"{path}:{line + 1}" if line is not None else str(path)
        raise UserError("not a YAML mapping of topic: weight", where=where) from None
    if not isinstance(data, dict) or not data:
        raise UserError("expected a YAML mapping of topic: weight, e.g. 'softmax: 4'", where=str(path))
    weights = {}
    for topic, weight in data.items():
        if not isinstance(topic, str) or topic not in catalog.topics:
            raise UserError(f"unknown topic {topic!r}{did_you_mean(str(topic), list(catalog.topics))}",
                            where=str(path))
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight) or weight < 0:
            raise UserError(f"the weight of {topic} must be a number ≥ 0, got {weight!r}", where=str(path))
        weights[topic] = float(weight)
    if not any(weights.values()) and set(weights) == set(catalog.topics):
        raise UserError("every weight is 0: nothing would be worth practising", where=str(path))
    return weights


def _check_flat(text: str, path: Path) -> None:
    """Refuse, from the parser's events alone, what is not one flat mapping of plain scalars: PyYAML
    builds nested collections recursively, so 30,000 brackets in 64 KiB would end in a RecursionError,
    and an alias or a tag has no place in a file of numbers."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
        nested = depth > 1
        if nested or isinstance(event, yaml.AliasEvent) or getattr(event, "tag", None) not in (None, "!"):
            problem = "a weight is one number, not a list or mapping" if nested else "no aliases or tags here"
            raise UserError(f"not a flat YAML mapping of topic: weight ({problem})",
                            where=f"{path}:{event.start_mark.line + 1}")
