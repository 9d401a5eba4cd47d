"""Progress files: a learner's attempts and review states moved between two banks, field by field."""

from __future__ import annotations

import copy
import json
import random
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from quizzer.bank.learners import ensure_learner, find_learner
from quizzer.bank.models import Attempt, ReviewCard
from quizzer.common.errors import UserError
from quizzer.grading.describe import describe
from quizzer.learning.mastery import as_utc
from quizzer.learning.progress import export_progress, import_progress, read_document, write_document
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from tests.databases import bank_session
from tests.tui.conftest import START, FakeClock


@pytest.fixture
def two_banks(bundled_bank_file: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Two separate banks (two machines), each with the bundled questions."""
    here, there = tmp_path / "here.sqlite", tmp_path / "there.sqlite"
    shutil.copyfile(bundled_bank_file, here)
    shutil.copyfile(bundled_bank_file, there)
    return here, there


def practise(session: Session, name: str, answers: int, seed: int) -> None:
    """``answers`` graded answers by ``name``: right, wrong (with misconceptions), timed and not,
    on a clock that moves by odd amounts, so every stored field varies."""
    clock = FakeClock(START - timedelta(days=365))  # in the past: an import refuses attempts made in the future
    study = Study(session=session, catalog=load_catalog(), learner=ensure_learner(session=session, name=name),
                  clock=clock, rng=random.Random(seed))
    for number in range(answers):
        instance = study.next().instance
        seconds = None if number % 4 == 0 else 3.25 * number
        named = next((w for w in instance.spec.wrong_answers if w.id), None)
        if instance.kind == "text":
            study.submit(instance, ("again", "good", "easy")[number % 3], seconds)
        elif number % 3 == 0 and instance.kind in ("choice", "multi"):
            study.submit(instance, "a" if instance.answer_text != "a" else "b", seconds)
        elif number % 3 == 0 and named is not None:
            study.submit(instance, describe(instance.kind, named.value), seconds)
        else:
            study.submit(instance, instance.answer_text, seconds)
        clock.advance(hours=7, minutes=13, microseconds=number * 1013)


ATTEMPT_FIELDS = ("template_key", "seed", "response", "verdict", "score", "misconception", "seconds", "created_at")
CARD_FIELDS = ("template_key", "state_json", "due", "updated_at")


def progress_of(session: Session, name: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A learner's attempts and review cards, every stored field, times as aware UTC."""
    learner = find_learner(session=session, name=name)
    attempts = session.exec(select(Attempt).where(Attempt.learner_id == learner.id)
                            .order_by(col(Attempt.created_at), col(Attempt.id))).all()
    cards = session.exec(select(ReviewCard).where(ReviewCard.learner_id == learner.id)
                         .order_by(col(ReviewCard.template_key))).all()

    def fields(row: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
        return tuple(as_utc(getattr(row, n)) if n in ("created_at", "due", "updated_at") else getattr(row, n)
                     for n in names)
    return [fields(a, ATTEMPT_FIELDS) for a in attempts], [fields(c, CARD_FIELDS) for c in cards]


def exported(path: Path, name: str, file: Path) -> dict[str, Any]:
    with bank_session(path) as session:
        document = export_progress(session=session, learner=find_learner(session=session, name=name))
    write_document(document, file, force=False)
    return document


def imported(path: Path, file: Path, profile: str) -> Any:
    with bank_session(path) as session:
        report = import_progress(session=session, document=read_document(file.read_text(), where=str(file)),
                                 profile=profile, where=str(file))
        session.commit()
    return report


def test_round_trip_between_two_banks_is_lossless_and_idempotent(two_banks: tuple[Path, Path], tmp_path: Path) -> None:
    here, there = two_banks
    with bank_session(here) as session:
        practise(session, "ada", answers=30, seed=1)
        practise(session, "bob", answers=5, seed=2)  # someone else's progress stays behind
        original = progress_of(session, "ada")
    assert len(original[0]) >= 30 and len(original[1]) >= 5
    assert {a[3] for a in original[0]} >= {"correct", "incorrect"} and any(a[5] for a in original[0])
    file = tmp_path / "ada.json"
    document = exported(here, "ada", file)
    assert document["profile"] == "ada" and document["version"] == 2

    first = imported(there, file, "ada")
    assert (first.attempts_added, first.reviews_added) == (len(original[0]), len(original[1]))
    again = imported(there, file, "ada")
    assert (again.attempts_added, again.attempts_present, again.reviews_added, again.reviews_updated) == (
        0, len(original[0]), 0, 0)
    with bank_session(there) as session:
        assert progress_of(session, "ada") == original
        with pytest.raises(UserError):
            find_learner(session=session, name="bob")


def test_import_into_another_profile_merges_with_its_own_progress(two_banks: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    here, there = two_banks
    with bank_session(here) as session:
        practise(session, "ada", answers=6, seed=3)
    with bank_session(there) as session:
        practise(session, "ada-laptop", answers=4, seed=4)
        own = progress_of(session, "ada-laptop")
    file = tmp_path / "ada.json"
    exported(here, "ada", file)
    report = imported(there, file, "ada-laptop")
    assert report.profile == "ada-laptop" and report.source_profile == "ada"
    with bank_session(there) as session:
        attempts, _ = progress_of(session, "ada-laptop")
    assert len(attempts) == len(own[0]) + report.attempts_added and set(own[0]) <= set(attempts)


def test_a_more_recent_review_state_wins(two_banks: tuple[Path, Path], tmp_path: Path) -> None:
    here, there = two_banks
    with bank_session(here) as session:
        practise(session, "ada", answers=3, seed=5)
    file = tmp_path / "ada.json"
    document = exported(here, "ada", file)
    imported(there, file, "ada")
    newer = copy.deepcopy(document)
    review = newer["reviews"][0]
    review["updated_at"] = (datetime.fromisoformat(review["updated_at"]) + timedelta(days=3)).isoformat()
    review["due"] = (datetime.fromisoformat(review["due"]) + timedelta(days=9)).isoformat()
    older = copy.deepcopy(newer)
    older["reviews"][0]["updated_at"] = (datetime.fromisoformat(review["updated_at"]) - timedelta(days=30)).isoformat()
    write_document(newer, file, force=True)
    assert imported(there, file, "ada").reviews_updated == 1
    write_document(older, file, force=True)
    assert imported(there, file, "ada").reviews_updated == 0
    with bank_session(there) as session:
        _, cards = progress_of(session, "ada")
    card = next(c for c in cards if c[0] == review["template_key"])
    assert card[2] == datetime.fromisoformat(review["due"])


VALID = {"format": "quizzer-progress", "version": 1, "profile": "ada", "exported_at": "2026-05-01T10:00:00+00:00",
         "quizzer": "0.1.0",
         "attempts": [{"template_key": "practice/warmup-rate", "seed": 3, "response": "1", "verdict": "correct",
                       "score": 1.0, "misconception": None, "seconds": 4.5,
                       "created_at": "2026-05-01T09:00:00.000123+00:00"}],
         "reviews": []}


def broken(path: str, value: Any) -> str:
    """VALID with one field (a dotted path) replaced; the value ``...`` removes the field."""
    document = copy.deepcopy(VALID)
    *parents, last = path.split(".")
    target: Any = document
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return json.dumps(document)


@pytest.mark.parametrize("text, message", [
    ("{not json", "not valid JSON"),
    ("[]", "not a quizzer progress file"),
    (json.dumps({**VALID, "format": "anki"}), "not a quizzer progress file"),
    (json.dumps({**VALID, "version": 3}), "progress format version 3 is not one this quizzer reads (1, 2)"),
    (json.dumps({k: v for k, v in VALID.items() if k != "version"}), "progress format version None"),
    (broken("attempts.0.verdict", "invalid"), "attempts.0.verdict: Input should be 'correct'"),
    (broken("attempts.0.score", 1.5), "attempts.0.score: Input should be less than or equal to 1"),
    (broken("attempts.0.seed", "3"), "attempts.0.seed: Input should be a valid integer"),
    (broken("attempts.0.seed", -1), "attempts.0.seed: Input should be greater than or equal to 0"),
    (broken("attempts.0.created_at", "2026-05-01T09:00:00"), "attempts.0.created_at: Input should have timezone"),
    (broken("attempts.0.created_at", "yesterday"), "attempts.0.created_at: Input should be a valid datetime"),
    (broken("attempts.0.response", ...), "attempts.0.response: Field required"),
    (broken("attempts.0.extra", 1), "attempts.0.extra: Extra inputs are not permitted"),
    (broken("reviews", [{"template_key": "practice/warmup-rate", "state": {"due": "soon"},
                         "due": "2026-05-01T09:00:00+00:00", "updated_at": "2026-05-01T09:00:00+00:00"}]),
     "reviews.0.state: Value error, not a stored review state"),
])
def test_a_malformed_file_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(UserError) as caught:
        read_document(text, where="p.json")
    assert str(caught.value).startswith("p.json: ") and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_unknown_question_refuses_the_whole_file_and_changes_nothing(bundled_bank: Path) -> None:
    misspelt = {**VALID["attempts"][0], "template_key": "practice/warmup-rat"}
    document = {**VALID, "attempts": [*VALID["attempts"], misspelt]}
    with bank_session(bundled_bank) as session:
        with pytest.raises(UserError, match=r"attempts\.1\.template_key: unknown question key 'practice/warmup-rat' "
                                            r"\(did you mean 'practice/warmup-rate'\?\)"):
            import_progress(session=session, document=read_document(json.dumps(document), where="p.json"),
                            profile="ada", where="p.json")
        session.rollback()
        assert session.exec(select(Attempt)).all() == []
        with pytest.raises(UserError):
            find_learner(session=session, name="ada")


def test_write_refuses_to_overwrite_without_force_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    file = tmp_path / "p.json"
    file.write_text("precious")
    with pytest.raises(UserError, match="already exists; add --force to overwrite it"):
        write_document(VALID, file, force=False)
    assert file.read_text() == "precious"
    write_document(VALID, file, force=True)
    assert json.loads(file.read_text()) == VALID
    assert [p.name for p in tmp_path.iterdir()] == ["p.json"]
    with pytest.raises(UserError, match="cannot write: no directory"):
        write_document(VALID, tmp_path / "missing-dir" / "p.json", force=False)
