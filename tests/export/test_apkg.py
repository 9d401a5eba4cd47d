"""The Anki deck opens in Anki's own library, and exporting again updates instead of duplicating."""

from __future__ import annotations

import json
import re
from pathlib import Path

import genanki  # type: ignore[import-untyped]
import pytest

from tests.cli_runner import run

anki_collection = pytest.importorskip("anki.collection")
KEYS = ("--key", "2024T3_Q1_NA Q277", "--key", "practice/warmup-rate", "--key", "practice/ls-statements")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def export_deck(path: Path, *extra: str) -> None:
    code, _, err = run("export", *KEYS, "--seed", "3", "--format", "apkg", "-o", str(path), *extra)
    assert code == 0, err


def import_into(collection, path: Path) -> None:  # type: ignore[no-untyped-def]
    request = anki_collection.ImportAnkiPackageRequest(
        package_path=str(path),
        options=anki_collection.ImportAnkiPackageOptions(update_notes=1, update_notetypes=1, with_scheduling=False))
    collection.import_anki_package(request)


def test_deck_imports_into_anki_with_fields_tags_and_media(tmp_path: Path) -> None:
    deck = tmp_path / "deck.apkg"
    export_deck(deck)
    instances = {i["key"]: i for i in json.loads(run(
        "generate", *KEYS, "--seed", "3", "--format", "json", "--solutions")[1])}
    collection = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        import_into(collection, deck)
        note_ids = collection.find_notes("")
        assert len(note_ids) == 3 and collection.card_count() == 3
        notes = [collection.get_note(note_id) for note_id in note_ids]
        for note in notes:
            instance = instances[note["Key"]]
            assert note["Seed"] == "3" and note["Title"] == instance["title"]
            assert note["Prompt"] and note["Solution"] and note["Answer"]
            assert f"key::{instance['key'].replace(' ', '_')}" in note.tags
            assert f"week::{instance['week']}" in note.tags and all(" " not in tag for tag in note.tags)
        routed = next(note for note in notes if note["Key"] == "2024T3_Q1_NA Q277")
        assert "paper::2024T3_Q1_NA" in routed.tags and routed["Mistakes"]
        assert r"\(" in routed["Prompt"] and "$" not in routed["Prompt"]  # MathJax, not dollars
        warmup = next(note for note in notes if note["Key"] == "practice/warmup-rate")
        assert '<img src="quizzer-' in warmup["Solution"]
        media = Path(collection.media.dir())
        figures = [path for path in media.iterdir() if path.suffix == ".svg"]
        assert len(figures) == 1 and "<text" in figures[0].read_text(encoding="utf-8")
        deck_names = [d.name for d in collection.decks.all_names_and_ids()]
        assert "quizzer::3 chosen questions" in deck_names
    finally:
        collection.close()


def test_exporting_again_updates_the_same_notes(tmp_path: Path) -> None:
    first, second = tmp_path / "first.apkg", tmp_path / "second.apkg"
    export_deck(first)
    export_deck(second)
    collection = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        import_into(collection, first)
        guids = sorted(collection.get_note(n).guid for n in collection.find_notes(""))
        import_into(collection, second)
        assert sorted(collection.get_note(n).guid for n in collection.find_notes("")) == guids
        assert len(collection.models.all_names_and_ids()) == len(
            [m for m in collection.models.all_names_and_ids() if m.name != "quizzer question"]) + 1
    finally:
        collection.close()


def test_a_fresh_export_of_the_same_questions_updates_their_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unseeded exports draw new numbers each time: the notes follow the template, so they are replaced.

    Anki replaces a note only with a newer one, by its modification time in whole seconds (genanki
    stamps the export's time); a teacher's exports are minutes apart, a test's two are not, so each
    export here is stamped a minute after the last."""
    collection = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    write = genanki.Package.write_to_file
    try:
        for seed, stamp in (("3", 1_900_000_000.0), ("4", 1_900_000_060.0)):
            monkeypatch.setattr(genanki.Package, "write_to_file",
                                lambda package, file, timestamp=None, at=stamp: write(package, file, at))
            deck = tmp_path / f"deck-{seed}.apkg"
            code, _, err = run("export", *KEYS, "--seed", seed, "--format", "apkg", "-o", str(deck))
            assert code == 0, err
            import_into(collection, deck)
        notes = [collection.get_note(note_id) for note_id in collection.find_notes("")]
        assert len(notes) == 3 and {note["Seed"] for note in notes} == {"4"}
        figures = [name for note in notes for name in re.findall(r'<img src="([^"]+)"', note["Solution"])]
        assert len(figures) == 1 and (Path(collection.media.dir()) / figures[0]).exists()
    finally:
        collection.close()


def test_a_title_names_the_deck(tmp_path: Path) -> None:
    """Two quizzes of the same questions, titled apart, land in two decks (item 10 of issue 39)."""
    quiz_a, quiz_b = tmp_path / "a.apkg", tmp_path / "b.apkg"
    export_deck(quiz_a, "--title", "Quiz A")
    export_deck(quiz_b, "--title", "Quiz B")
    collection = anki_collection.Collection(str(tmp_path / "collection.anki2"))
    try:
        import_into(collection, quiz_a)
        import_into(collection, quiz_b)
        names = {d.name for d in collection.decks.all_names_and_ids()}
        assert {"quizzer::Quiz A", "quizzer::Quiz B"} <= names
    finally:
        collection.close()
