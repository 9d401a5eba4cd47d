"""The course catalogue: topics, routed exam records and misconceptions from ``data/``.

These YAML files are project data, read once per process with the safe loader (libyaml's
when installed: parsing them in pure Python took a third of a second at every start).
:func:`catalog_digest` fingerprints the files without parsing them, so the bank can tell
that its copy of the catalogue is current without reading the YAML at all.
Locations can be overridden with ``QUIZZER_DATA_DIR`` and ``QUIZZER_QUESTIONS_DIR``
(tests point them at temporary copies).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any

import msgspec
import yaml  # type: ignore[import-untyped]  # PyYAML ships no type hints (types-PyYAML is not a dependency)

from quizzer.common.errors import UserError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CATALOG_FILES = ("topics.yaml", "routing.yaml", "misconceptions.yaml")
# libyaml's safe loader when present (several times faster); the pure-Python one otherwise. Both are safe.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def data_dir() -> Path:
    return Path(os.environ.get("QUIZZER_DATA_DIR") or PROJECT_ROOT / "data")


def questions_dir() -> Path:
    return Path(os.environ.get("QUIZZER_QUESTIONS_DIR") or PROJECT_ROOT / "questions")


class Topic(msgspec.Struct, frozen=True):
    id: str
    name: str
    week: int
    section: str
    pages: str | None
    summary: str
    prerequisites: tuple[str, ...]


class Record(msgspec.Struct, frozen=True):
    """A routed exam record: ``2024T3_Q1_NA Q277`` is question Q277 of paper 2024T3_Q1_NA."""

    id: str
    paper: str
    question: str
    topics: tuple[str, ...]


class PaperInfo(msgspec.Struct, frozen=True):
    """A routed paper: ``2025T2_ET_FN`` is a 2025 term-2 paper with the codes ET and FN (whose meaning the
    notes never state, so they are shown as they are)."""

    id: str
    year: int
    term: str

    @property
    def title(self) -> str:
        """`2025 T2 · ET/FN`: the year and term a student knows a paper by, then its codes."""
        codes = self.id.split("_")[1:]
        return f"{self.year} {self.term}" + (f" · {'/'.join(codes)}" if codes else "")


class MisconceptionInfo(msgspec.Struct, frozen=True):
    id: str
    title: str
    claim: str
    correction: str
    topics: tuple[str, ...]
    source: str
    kind: str


class Catalog(msgspec.Struct, frozen=True):
    topics: dict[str, Topic]
    records: dict[str, Record]
    misconceptions: dict[str, MisconceptionInfo]
    digest: str  # catalog_digest() of the files it was read from
    paper_info: dict[str, PaperInfo] = {}

    @property
    def papers(self) -> list[str]:
        return sorted({record.paper for record in self.records.values()})


def _read_sources() -> dict[str, bytes]:
    sources = {}
    for name in CATALOG_FILES:
        path = data_dir() / name
        try:
            sources[name] = path.read_bytes()
        except OSError as exc:
            raise UserError(f"cannot read the course catalogue: {exc.strerror or exc}", where=str(path)) from None
    return sources


def _digest(sources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name, content in sources.items():
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def catalog_digest() -> str:
    """A SHA-256 over the catalogue files' names and bytes, read now (equal digests, equal catalogues)."""
    return _digest(_read_sources())


def _parse(name: str, content: bytes) -> dict[str, Any]:
    path = data_dir() / name
    try:
        data = yaml.load(content.decode("utf-8"), Loader=SafeLoader)
    except UnicodeDecodeError:
        raise UserError("the course catalogue is not UTF-8 text", where=str(path)) from None
    except yaml.YAMLError as exc:
        raise UserError(f"invalid YAML in the course catalogue: {exc}".splitlines()[0], where=str(path)) from None
    if not isinstance(data, dict):
        raise UserError("expected a YAML mapping", where=str(path))
    return data


@functools.cache
def load_catalog() -> Catalog:
    """Read ``topics.yaml``, ``routing.yaml`` and ``misconceptions.yaml`` (cached per process)."""
    sources = _read_sources()
    data = {name: _parse(name, content) for name, content in sources.items()}
    try:
        topics = {t["id"]: Topic(t["id"], t["name"], int(t["week"]), t["section"], t.get("pages"),
                                 t.get("summary", ""), tuple(t.get("prerequisites") or ()))
                  for t in data["topics.yaml"]["topics"]}
        records = {r["id"]: Record(r["id"], r["paper"], r["question"], tuple(r["topics"]))
                   for r in data["routing.yaml"]["records"]}
        paper_info = {p["id"]: PaperInfo(p["id"], int(p["year"]), str(p["term"]))
                      for p in data["routing.yaml"].get("papers") or ()}
        misconceptions = {m["id"]: MisconceptionInfo(m["id"], m["title"], m["claim"].strip(), m["correction"].strip(),
                                                     tuple(m.get("topics") or ()), m.get("source", ""), m["kind"])
                          for m in data["misconceptions.yaml"]["misconceptions"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"the course catalogue in {data_dir()} is malformed ({exc!r})") from None
    return Catalog(topics, records, misconceptions, digest=_digest(sources), paper_info=paper_info)


def misconception_feedback(misconception_id: str) -> str:
    """The catalogue's correction, used when a template gives no feedback of its own."""
    info = load_catalog().misconceptions.get(misconception_id)
    return f"It looks like: {info.title[0].lower()}{info.title[1:]}. {info.correction}" if info else ""
