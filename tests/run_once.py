"""Work that a module's tests share, done once per test run instead of once per pytest-xdist worker.

A module-scoped fixture runs again in every worker that takes one of the module's tests, and with two
workers (``--dist worksteal`` or not) both usually do: the hostile-file corpora ran every command of
every file twice, ~2 minutes of a loaded run each.  :func:`once_per_run` computes the result in the
directory every worker's own directory is in, under a lock, and the workers that come later read it.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def run_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test run's temporary directory: under pytest-xdist, the one every worker's own is in."""
    directory = tmp_path_factory.getbasetemp()
    return directory.parent if "PYTEST_XDIST_WORKER" in os.environ else directory


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[Path], Any]) -> Any:
    """``compute(folder)``'s result (plain JSON data), computed by the first worker that asks, in a folder
    of its own that the result may name; the others wait on the lock, then read the result."""
    home = run_directory(tmp_path_factory) / name
    home.mkdir(exist_ok=True)
    result = home / "result.json"
    with (home / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not result.exists():
            folder = home / "work"
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left: not to be taken for a result
            folder.mkdir()
            writing = home / "result.json.part"
            writing.write_text(json.dumps(compute(folder)), encoding="utf-8")
            writing.replace(result)  # complete or absent
    return json.loads(result.read_text(encoding="utf-8"))
