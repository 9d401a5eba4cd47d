"""Bad input to ``quizzer export``: one line, exit 2, nothing written or changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import quizzer.common.files
import quizzer.export
import quizzer.export.markdown
from quizzer.common.errors import UserError
from tests.cli_runner import run

SELECTION = ("--topic", "causal_self_attention", "-n", "2", "--seed", "1")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An empty directory for the exported files (tmp_path itself holds the bank)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def failed(*args: str) -> str:
    """Run a command that must fail as bad input; return its one-line message."""
    code, out, err = run(*args)
    assert code == 2, out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quizzer: ")
    return lines[0]


@pytest.mark.parametrize(("args", "message"), [
    (("--format", "docx"), "unknown format 'docx'"),
    (("--topic", "nope", "--format", "md"), "unknown topic 'nope'"),
    (("--key", "practice/no-such-question", "--format", "md"), "practice/no-such-question"),
    (("--topic", "causal_self_attention", "--week", "1", "--format", "md"), "no questions match"),
    (("--format", "pdf"), "give -o PATH"),
    (("--format", "apkg", "--paper-only", "-o", "x.apkg"), "--paper-only and --answers-only apply to"),
    (("--format", "md", "--paper-only", "--answers-only"), "choose one of"),
])
def test_bad_selection_or_options(args: tuple[str, ...], message: str) -> None:
    assert message in failed("export", *args)


def test_unwritable_path(tmp_path: Path) -> None:
    assert "no directory" in failed("export", *SELECTION, "--format", "md", "-o", str(tmp_path / "missing" / "p.md"))
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        assert "not writable" in failed("export", *SELECTION, "--format", "md", "-o", str(locked / "p.md"))
    finally:
        locked.chmod(0o700)


def test_a_write_the_system_refuses_names_the_file_and_leaves_nothing() -> None:
    """Runs as root too (unlike the permission-bit test above): /proc accepts no new files from anyone,
    so the checks pass and the write itself fails."""
    assert os.path.isdir("/proc") and not os.path.exists("/proc/quizzer-paper.md")
    message = failed("export", *SELECTION, "--format", "md", "-o", "/proc/quizzer-paper.md")
    assert message.startswith("quizzer: /proc/quizzer-paper.md: cannot write:")
    assert not [name for name in os.listdir("/proc") if "quizzer-paper" in name]


def test_existing_file_needs_force(tmp_path: Path) -> None:
    target = tmp_path / "paper.html"
    target.write_text("keep me")
    assert "--force" in failed("export", *SELECTION, "--format", "html", "-o", str(target))
    assert target.read_text() == "keep me"
    code, _, _ = run("export", *SELECTION, "--format", "html", "-o", str(target), "--force")
    assert code == 0 and target.read_text().startswith("<!DOCTYPE html>")


def test_existing_answer_sheet_also_needs_force(out: Path) -> None:
    (out / "paper-answers.md").write_text("old answers")
    assert "paper-answers.md" in failed("export", *SELECTION, "--format", "md", "-o", str(out / "paper.md"))
    assert sorted(p.name for p in out.iterdir()) == ["paper-answers.md"]


def test_a_failure_while_rendering_writes_nothing(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(paper: object, question: object) -> str:
        raise UserError("template 'x': field 'solution': cannot render")

    monkeypatch.setattr(quizzer.export.markdown, "_answer", broken)  # the paper renders, the answer sheet fails
    assert "cannot render" in failed("export", *SELECTION, "--format", "md", "-o", str(out / "paper.md"))
    assert list(out.iterdir()) == []


def test_a_failure_while_writing_leaves_no_partial_file(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fdopen = os.fdopen
    opened = []

    class DiskFull:
        """A file handle whose disk fills up on the second file."""

        def __init__(self, handle):  # type: ignore[no-untyped-def]
            self.handle = handle

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(self.handle, name)  # flush, fileno: a real handle's

        def write(self, data: bytes) -> int:
            if len(opened) == 2:
                self.handle.write(data[: len(data) // 2])
                raise OSError(28, "No space left on device", self.handle.name)
            return self.handle.write(data)

    def fdopen(descriptor: int, mode: str = "r"):  # type: ignore[no-untyped-def]
        opened.append(descriptor)
        return DiskFull(real_fdopen(descriptor, mode))

    monkeypatch.setattr(quizzer.common.files.os, "fdopen", fdopen)
    message = failed("export", *SELECTION, "--format", "md", "-o", str(out / "paper.md"))
    assert "No space left on device" in message
    assert list(out.iterdir()) == []


def test_written_files_get_the_usual_permissions_not_the_temporary_files(out: Path) -> None:
    """Files are written to a private temporary first (0600); the result must be readable like any new file."""
    previous = os.umask(0o022)
    try:
        code, _, err = run("export", *SELECTION, "--format", "md", "-o", str(out / "paper.md"))
    finally:
        os.umask(previous)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["paper-answers.md", "paper.md"]
    assert {oct(p.stat().st_mode & 0o777) for p in out.iterdir()} == {oct(0o644)}
