"""Template files on disk: finding them and fingerprinting their text (standard library only).

The bank keeps each template's SHA-256 (``content_hash``); a bundled file whose hash is not in
the bank is new or changed.  Both the ORM's import of the bundled questions and the bank's
light read path (``quizzer.bank.readonly``) ask :func:`changed_files`, so they agree on when a
bank is current.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from quizzer.common.errors import TemplateError


def template_files(paths: Iterable[Path]) -> list[Path]:
    """Expand directories into their ``*.yaml``/``*.yml`` files, sorted; a missing path is an error."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():  # in Path order (by parts), as Path.rglob would list them
            files += [Path(name) for name in sorted(_yaml_files(str(path)), key=lambda name: name.split(os.sep))]
        elif path.is_file():
            files.append(path)
        else:
            raise TemplateError("no such file or directory", where=str(path))
    return files


def _yaml_files(directory: str) -> Iterator[str]:
    """Every YAML file under ``directory``, by ``os.scandir`` (every bank open lists the questions to see
    whether they changed: Path.rglob took four times as long)."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.is_dir():
                yield from _yaml_files(entry.path)
            elif entry.name.endswith((".yaml", ".yml")) and entry.is_file():
                yield entry.path


def content_hash(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def files_stat(directory: Path) -> str:
    """A SHA-256 over every template file's path, size and modification time, from ``stat`` alone
    (no file is read): a file written since gets another time, so another fingerprint."""
    digest = hashlib.sha256()
    for path in template_files([directory]):
        stat = path.stat()
        digest.update(f"{path.relative_to(directory)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def changed_files(directory: Path, known: Collection[str]) -> list[Path]:
    """The template files under ``directory`` whose content hash is not among ``known``."""
    return [path for path in template_files([directory]) if content_hash(path.read_text(encoding="utf-8")) not in known]
