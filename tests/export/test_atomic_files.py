"""The atomic writer's hidden temporary files: a killed writer's is removed by the next write to the
same target; a live writer's is left alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from quizzer.common.files import write_checked
from tests.hang import HANG_SECONDS

# A writer that gets its locked temporary file beside TARGET, says so, then waits (or dies at once).
WRITER = """
import os, signal, sys
from pathlib import Path
from quizzer.common.files import _locked_temporary
_, temporary = _locked_temporary(Path(sys.argv[1]))
print(temporary, flush=True)
if sys.argv[2] == "die":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()
"""


def start_writer(target: Path, mode: str) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen([sys.executable, "-c", WRITER, str(target), mode], text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdout is not None
    return process, Path(process.stdout.readline().strip())


def test_the_next_write_removes_a_killed_writers_temporary_file_only(tmp_path: Path) -> None:
    target = tmp_path / "paper.md"
    dead, dead_temporary = start_writer(target, "die")
    dead.wait(timeout=HANG_SECONDS)
    live, live_temporary = start_writer(target, "wait")
    other = tmp_path / ".notes.md.abc.part"  # another target's: not this write's business
    other.write_bytes(b"")
    try:
        assert dead_temporary.name.startswith(".paper.md.") and dead_temporary.exists()
        write_checked(target, b"# paper\n", force=False)
        assert target.read_bytes() == b"# paper\n"
        assert not dead_temporary.exists()
        assert live_temporary.exists()  # still being written by a process that holds its lock
        assert other.exists()
    finally:
        live.communicate("", timeout=HANG_SECONDS)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([".notes.md.abc.part", live_temporary.name,
                                                                  "paper.md"])
