"""``quizzer export --versions N``: N papers of the same questions, each with its own numbers and
choice order, plus one answer key for all of them and a CSV of version → seed.

Beside ``-o paper.pdf`` it writes ``paper-A.pdf``, ``paper-B.pdf``, … (the questions only, the
version's code on every page), ``paper-key.pdf`` (each version's answer sheet: answers, marks and
common wrong answers) and ``paper-versions.csv``.  Version A keeps the paper's seed; the others'
seeds are derived from it, so the same command writes the same files, byte for byte.
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path

from quizzer.common.errors import UserError
from quizzer.common.files import check_targets, write_files
from quizzer.export.document import PLAIN, Layout, Paper, Selection, build_paper
from quizzer.templates.instance import Instance, make_instance
from quizzer.templates.schema import Template

VERSION_FORMATS = ("md", "html", "pdf")
MAX_VERSIONS = 200


def check_versions(fmt: str, output: Path | None, versions: int) -> None:
    if versions < 1 or versions > MAX_VERSIONS:
        raise UserError(f"must be between 1 and {MAX_VERSIONS}, got {versions}", where="--versions")
    if versions > 1 and fmt not in VERSION_FORMATS:
        raise UserError(f"it applies to {', '.join(VERSION_FORMATS)}, not {fmt}", where="--versions")
    if versions > 1 and output is None:
        raise UserError("it writes several files: give -o PATH", where="--versions")


def version_code(index: int) -> str:
    """A, B, …, Z, AA, AB, …: short enough for every page's corner."""
    code = ""
    index += 1
    while index:
        index, letter = divmod(index - 1, 26)
        code = chr(65 + letter) + code
    return code


def version_seed(seed: int, index: int) -> int:
    """Version A uses the paper's seed; the others a seed derived from (seed, index)."""
    if index == 0:
        return seed
    digest = hashlib.sha256(f"quizzer-version\x00{seed}\x00{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 1_000_000


def version_instances(instances: Sequence[Instance], template: Callable[[str], Template], seed: int,
                      count: int) -> list[list[Instance]]:
    """The same questions for each version, instantiated with that version's seed (a repeated template
    keeps its offset: seed+1, seed+2, … as in the paper)."""
    return [[make_instance(template(instance.key), instance.seed - seed + version_seed(seed, index))
             for instance in instances] for index in range(count)]


def export_versions(versions: list[list[Instance]], selection: Selection, *, fmt: str, output: Path,
                    force: bool = False, layout: Layout = PLAIN, sheets: bool = False) -> tuple[Path, ...]:
    """Render and write every version's paper, the answer key and the CSV (and with ``sheets``, the answer
    sheets and their manifest: :mod:`quizzer.export.sheets`); the paths written."""
    from quizzer.export import FORMATS

    module = importlib.import_module(f"quizzer.export.{FORMATS[fmt].module}")
    stem, suffix = output.stem, output.suffix or f".{fmt}"
    papers = [build_paper(instances, selection, fmt, output=output.name, version=version_code(index),
                          versions=len(versions), layout=layout) for index, instances in enumerate(versions)]
    files = [(output.with_name(f"{stem}-{paper.version}{suffix}"), module.render(paper, ("paper",)))
             for paper in papers]
    files.append((output.with_name(f"{stem}-key{suffix}"), module.render_key(papers)))
    attachments: Callable[[Paper], list[tuple[str, bytes]]] = getattr(module, "attachments", lambda _: [])
    files += [(output.with_name(name), content) for paper in papers for name, content in attachments(paper)]
    files.append((output.with_name(f"{stem}-versions.csv"), _csv(papers)))
    if sheets:
        from quizzer.export.sheets import sheet_files

        files += sheet_files(papers, output)
    check_targets([path for path, _ in files], force=force)
    write_files(files)
    return tuple(path for path, _ in files)


def _csv(papers: list[Paper]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["version", "seed", "questions", "regenerate"])
    for paper in papers:
        seed = paper.questions[0].instance.seed if paper.questions else paper.selection.seed
        keys = " | ".join(f"{q.instance.key}@{q.instance.seed}" for q in paper.questions)
        writer.writerow([paper.version, seed, keys, paper.command])
    return buffer.getvalue().encode()
