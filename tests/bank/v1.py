"""Version-1 banks built from the DDL quizzer 0.1.0 created (fixtures/schema_v1.sql), never from
today's models, filled with attempts and review cards as v1 stored them."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from quizzer.learning.review import Rating, new_state, review

REPO = Path(__file__).resolve().parents[2]
V1_SCHEMA = Path(__file__).with_name("fixtures") / "schema_v1.sql"
KEYS = ("2024T3_Q1_NA Q277", "practice/warmup-rate", "practice/teacher-forcing-inputs")
START = datetime(2026, 3, 2, 8, 15, 30, 123456, tzinfo=UTC)


def stored(moment: datetime) -> str:
    """A datetime as SQLAlchemy stores it in SQLite: naive UTC text with microseconds."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def build_v1_bank(path: Path, *, attempts: int = 40, seed: int = 3) -> None:
    """A WAL-mode v1 bank holding three real templates, ``attempts`` attempts and a review card
    per template."""
    rng = random.Random(seed)
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(V1_SCHEMA.read_text(encoding="utf-8"))
        for key in KEYS:
            source = _source_of(key)
            db.execute("INSERT INTO template VALUES (?, ?, 1, 'integer', 1, NULL, ?, ?, ?, ?, ?)",
                       (key, f"title of {key}", source, hashlib.sha256(source.encode()).hexdigest(),
                        f"questions/{key}.yaml", stored(START), stored(START)))
        for number in range(attempts):
            verdict = rng.choice(["correct", "incorrect", "partial"])
            db.execute("INSERT INTO attempt (template_key, seed, response, verdict, score, misconception, seconds, "
                       "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (rng.choice(KEYS), rng.randrange(1_000_000), f"{rng.random():.6g} ✓ 'quoted'", verdict,
                        {"correct": 1.0, "incorrect": 0.0, "partial": 0.5}[verdict],
                        "counted_tied_weights_twice" if verdict == "incorrect" else None,
                        rng.choice([None, round(rng.uniform(1, 300), 3)]),
                        stored(START + timedelta(minutes=37 * number, microseconds=number))))
        for number, key in enumerate(KEYS):
            at = START + timedelta(days=number)
            state = review(new_state(at), Rating.Good, at)
            db.execute("INSERT INTO reviewcard VALUES (?, ?, ?, ?)",
                       (key, state.to_json(), stored(state.due), stored(at)))
        db.commit()


def _source_of(key: str) -> str:
    """The bundled YAML of ``key``, so a later bundled import finds the template unchanged."""
    for path in sorted((REPO / "questions").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if f"key: {key}\n" in text or f"key: '{key}'\n" in text or f'key: "{key}"\n' in text:
            return text
    raise LookupError(key)


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    """Rows straight from the file with the sqlite3 module (no quizzer code in between)."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute(query).fetchall()
