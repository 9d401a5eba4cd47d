"""The real clients the export tests hand files to: Chromium, poppler, Moodle's answer matching.

A client that is not installed skips its test on a developer's machine, but fails it under CI
(``CI`` set): ``.ci/run`` installs them, so a skip there would hide a missing install step.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.hang import HANG_SECONDS

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync")


def require(tool: str) -> str:
    """The path of ``tool``; skip without it, or fail under CI."""
    path = shutil.which(tool)
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{tool} is not installed: .ci/run installs it (apt-get install -y chromium poppler-utils)")
    pytest.skip(f"{tool} is not installed")


def chromium(page: Path, profile: Path, *args: str) -> str:
    """Load ``page`` in headless Chromium with console logging on; its log (stderr)."""
    done = subprocess.run([require("chromium"), *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                           "--enable-logging=stderr", "--v=0", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=HANG_SECONDS, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def console_messages(log: str) -> list[str]:
    """What the page wrote to its console (errors included), from Chromium's log."""
    return [line for line in log.splitlines() if ":CONSOLE" in line]


def pdf_text(path: Path, *args: str) -> str:
    return subprocess.run([require("pdftotext"), *args, str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def pdf_pages(path: Path, folder: Path, resolution: int = 40) -> list[Path]:
    """Every page of ``path`` as a greyscale PGM image (for layout checks)."""
    subprocess.run([require("pdftoppm"), "-gray", "-r", str(resolution), str(path), str(folder / "page")],
                   check=True, capture_output=True)
    return sorted(folder.glob("page*.pgm"))


def read_pgm(path: Path) -> tuple[int, int, bytes]:
    """(width, height, pixels) of a binary PGM (P5) image, one byte per pixel."""
    data = path.read_bytes()
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    assert header, f"{path} is not a binary PGM"
    width, height = int(header[1]), int(header[2])
    return width, height, data[header.end():header.end() + width * height]


def moodle_shortanswer_matches(pattern: str, response: str, *, ignore_case: bool) -> bool:
    """Moodle's own rule (qtype_shortanswer_question::compare_string_with_wildcard), in Python:
    a run of unescaped ``*`` matches anything; ``\\*`` is a literal star."""
    bits = re.split(r"(?<!\\)\*+", pattern)
    regexp = "^" + ".*".join(re.escape(bit.replace("\\*", "*")) for bit in bits) + "$"
    return re.match(regexp, response.strip(), re.IGNORECASE if ignore_case else 0) is not None
