"""What a killed test run leaves behind, found and removed by the next run.

A run stopped by SIGKILL (or a closed terminal) never reaches its finalizers: its PostgreSQL
databases stay on the server and its temporary directory, SQLite banks included, stays on disk.
Both are named after the process that made them, so the next run removes those whose process no
longer exists, and never touches a live run's (another worker's, or another checkout's).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

LOCK = ".lock"  # pytest writes its process id into this file of each run's numbered temporary directory


def process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_killed_runs(root: Path, current: Path) -> list[Path]:
    """Remove the temporary directories under ``root`` (``pytest-of-USER``) of runs whose process is
    gone without cleaning up; returns them.  A directory without a lock, or with a live owner, stays."""
    removed = []
    for run in root.glob("pytest-*"):
        lock = run / LOCK
        if run == current or not lock.is_file():
            continue
        try:
            pid = int(lock.read_text().strip() or 0)
        except (OSError, ValueError):
            continue
        if not process_alive(pid):
            shutil.rmtree(run, ignore_errors=True)
            removed.append(run)
    return removed
