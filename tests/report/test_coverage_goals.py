"""The bank meets the course's coverage goals, and the three figures can fail."""

from __future__ import annotations

import dataclasses

from quizzer.reporting.coverage import (
    MISCONCEPTION_GOAL,
    TOPIC_GOAL,
    load_worked_examples,
    measure,
    render_text,
    reproduced,
)
from quizzer.templates.catalog import load_catalog
from tests.bundled_templates import bundled


def test_the_bundled_bank_meets_all_three_goals() -> None:
    catalog = load_catalog()
    goals = measure(bundled().values(), catalog).goals
    assert goals.thinnest_topic[1] >= TOPIC_GOAL, goals.thinnest_topic
    assert goals.topics_at_goal == (len(catalog.topics), len(catalog.topics))
    assert goals.worked[1] >= 40 and goals.worked_missing == []              # every example listed is reproduced
    assert goals.boxes == (12, 12) and goals.boxes_short == []              # 10 boxes + 2 ebook corrections
    text = render_text(measure(bundled().values(), catalog), catalog)
    assert f"topics with >= {TOPIC_GOAL} templates       16/16" in text
    assert f"boxed misconceptions in >= {MISCONCEPTION_GOAL} templates 12/12" in text


def test_every_week_and_code_block_of_the_notes_is_listed() -> None:
    where = " ".join(example.where for example in load_worked_examples())
    for block in ("§5.1", "§5.2", "§5.3", "§5.4", "§5.5", "§6", "code 01", "code 02", "code 03", "code 04",
                  "code 05", "code 06", "code 07", "code 08", "Week 2 §2", "Week 2 §3", "Week 2 §5", "Week 2 §6"):
        assert block in where, block


def test_a_wrong_value_or_a_missing_template_is_not_counted_as_reproduced() -> None:
    templates = bundled()
    example = next(e for e in load_worked_examples() if e.id == "w2-s3-six-layers")
    assert reproduced(example, templates)
    assert not reproduced(dataclasses.replace(example, answer=25_224_191), templates)
    assert not reproduced(dataclasses.replace(example, template="practice/no-such-template"), templates)
    shown = next(e for e in load_worked_examples() if e.shows)
    assert not reproduced(dataclasses.replace(shown, shows="a text no question prints"), templates)


def test_dropping_templates_lowers_the_figures() -> None:
    catalog = load_catalog()
    fewer = [t for t in bundled().values() if "seq2seq_bottleneck" not in t.topics]
    goals = measure(fewer, catalog).goals
    assert goals.thinnest_topic == ("seq2seq_bottleneck", 0)
    assert goals.boxes[0] < 12 and "seq2seq_two_rnns" in goals.boxes_short
