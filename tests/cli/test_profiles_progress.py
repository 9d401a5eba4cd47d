"""`--profile`, `quizzer profiles` and `quizzer progress export/import` through the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli_runner import run

KEY = "2024T3_Q1_NA Q277"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    return bundled_bank


def grade(*profile: str, answer: str = "18944000") -> None:
    code, _, err = run(*profile, "grade", KEY, "--seed", "0", "--answer", answer)
    assert code == 0, err


def listed() -> dict[str, dict[str, object]]:
    code, out, _ = run("profiles", "--json")
    assert code == 0
    return {item["name"]: item for item in json.loads(out)}


def test_attempts_go_to_the_option_then_the_environment_then_the_os_user(monkeypatch: pytest.MonkeyPatch) -> None:
    grade()
    grade("--profile", "ada")
    grade("--profile", "ada", answer="18981000")
    monkeypatch.setenv("QUIZZER_PROFILE", "bob")
    grade()
    profiles = listed()
    assert {name: item["attempts"] for name, item in profiles.items()} == {"ada": 2, "bob": 1, "marie": 1}
    assert [name for name, item in profiles.items() if item["current"]] == ["bob"]


def test_profiles_lists_and_marks_the_current_one() -> None:
    grade("--profile", "ada")
    code, out, _ = run("--profile", "ada", "profiles")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["PROFILE", "ATTEMPTS", "LAST", "ACTIVE"]
    assert lines[1].startswith("* ada ") and lines[1].split()[2] == "1" and len(lines) == 2
    code, out, _ = run("profiles")  # the current profile is the OS user's, not used yet
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("  ada ")
    assert lines[2].startswith("* marie ") and lines[2].endswith("not started yet")


def test_rename_keeps_the_attempts_and_refuses_an_existing_name() -> None:
    grade("--profile", "ada")
    grade("--profile", "bob")
    code, _, err = run("profiles", "rename", "ada", "bob")
    assert code == 2 and err == "quizzer: a profile called 'bob' already exists; choose another name\n"
    code, out, _ = run("profiles", "rename", "ada", "Ada Lovelace")
    assert code == 0 and out == "Renamed profile 'ada' to 'Ada Lovelace'.\n"
    assert {name: item["attempts"] for name, item in listed().items()} == {"Ada Lovelace": 1, "bob": 1}


@pytest.mark.parametrize("args, where", [
    (("--profile", "a/b", "list"), "--profile"),
    (("--profile", "", "list"), "--profile"),
    (("--profile", "x" * 41, "grade", KEY, "--seed", "0", "--answer", "1"), "--profile"),
    (("profiles", "rename", "marie", "bad:name"), "new profile name"),
    (("profiles", "rename", "nobody", "somebody"), None),
])
def test_bad_profile_names_are_one_line_and_exit_2(args: tuple[str, ...], where: str | None,
                                                   isolated_bank: Path) -> None:
    grade()
    before = isolated_bank.read_bytes()
    code, _, err = run(*args)
    assert code == 2 and err.startswith(f"quizzer: {where or 'no profile called'}") and err.count("\n") == 1
    assert isolated_bank.read_bytes() == before


def test_export_then_import_into_another_bank(isolated_bank: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other.sqlite"
    shutil.copyfile(isolated_bank, other)
    grade("--profile", "ada")
    grade("--profile", "ada", answer="18981000")
    file = tmp_path / "ada.json"
    code, out, _ = run("--profile", "ada", "progress", "export", str(file))
    # `quizzer grade` records as the app does: the attempts, and the question's review card.
    assert code == 0 and out == f"Exported 2 attempt(s) and 1 review state(s) of profile 'ada' to {file}.\n"
    document = json.loads(file.read_text())
    assert [a["verdict"] for a in document["attempts"]] == ["correct", "incorrect"]
    assert document["attempts"][1]["misconception"] == "counted_nonexistent_biases"

    monkeypatch.setenv("QUIZZER_DB", str(other))
    code, out, _ = run("progress", "import", str(file))
    assert code == 0 and out.startswith("Imported into profile 'marie' (exported from 'ada'): 2 attempt(s) added")
    code, out, _ = run("progress", "import", str(file))
    assert code == 0 and "0 attempt(s) added, 2 already present" in out
    code, out, _ = run("progress", "export", "-")
    assert code == 0 and json.loads(out)["attempts"] == document["attempts"]


def test_export_never_overwrites_without_force(tmp_path: Path) -> None:
    grade()
    file = tmp_path / "mine.json"
    file.write_text("keep me")
    code, _, err = run("progress", "export", str(file))
    assert code == 2 and err == f"quizzer: {file}: already exists; add --force to overwrite it\n"
    assert file.read_text() == "keep me"
    code, _, _ = run("progress", "export", str(file), "--force")
    assert code == 0 and json.loads(file.read_text())["profile"] == "marie"


def test_export_of_an_unknown_profile() -> None:
    code, _, err = run("--profile", "nobody", "progress", "export", "-")
    assert code == 2 and err == "quizzer: no profile called 'nobody'; see 'quizzer profiles'\n"


@pytest.mark.parametrize("content, message", [
    ("", "not valid JSON"),
    ('{"format": "quizzer-progress", "version": 7}', "progress format version 7 is not one this quizzer reads"),
    ('{"format": "quizzer-progress", "version": 1, "profile": "x"}', "exported_at: Field required"),
    ('{"format": "quizzer-progress", "version": 1, "profile": "x", "exported_at": "2026-01-01T00:00:00Z", '
     '"quizzer": "0.1.0", "reviews": [], "attempts": [{"template_key": "no/such", "seed": 1, "response": "1", '
     '"verdict": "correct", "score": 1, "misconception": null, "seconds": null, '
     '"created_at": "2026-01-01T00:00:00Z"}]}', "attempts.0.template_key: unknown question key 'no/such'"),
])
def test_a_bad_progress_file_changes_nothing(content: str, message: str, tmp_path: Path, isolated_bank: Path) -> None:
    grade()
    before = isolated_bank.read_bytes()
    file = tmp_path / "bad.json"
    file.write_text(content)
    code, _, err = run("progress", "import", str(file))
    assert code == 2 and err.startswith(f"quizzer: {file}: ") and message in err and err.count("\n") == 1
    assert isolated_bank.read_bytes() == before
    assert set(listed()) == {"marie"}


def test_import_of_a_missing_or_binary_file(tmp_path: Path) -> None:
    code, _, err = run("progress", "import", str(tmp_path / "nope.json"))
    assert code == 2 and err == f"quizzer: {tmp_path / 'nope.json'}: cannot read the file: No such file or directory\n"
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = run("progress", "import", str(tmp_path / "binary.json"))
    assert code == 2 and "cannot read the file: not UTF-8 text" in err
