"""The sheets' manifest (``exam-sheets.json``, written by ``quizzer export --answer-sheets``), read and checked.

Its format is documented in the README ("Paper exams").  It is a file a user hands in: bounded in size,
every field checked, and a bad one is one line naming what is wrong (exit status 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizzer.common.errors import UserError

MAX_BYTES = 20_000_000
Point = tuple[float, float]


@dataclass(frozen=True)
class FieldSpec:
    """One question's (or part's) place on a version's sheet."""

    name: str  # "3", "4(b)"
    key: str  # as grade --batch takes it
    seed: int
    kind: str
    type: str  # choice multi bool integer number hand
    points: float
    page: int
    rect: tuple[float, float, float, float]
    options: tuple[str, ...] = ()
    boxes: tuple[Point, ...] = ()
    sign: Point | None = None
    digits: tuple[tuple[Point, ...], ...] = ()
    exponent_sign: Point | None = None
    exponent: tuple[tuple[Point, ...], ...] = ()


@dataclass(frozen=True)
class Manifest:
    exam: str
    title: str
    width: float
    height: float
    markers: dict[int, Point]  # ArUco id → the marker's top-left corner
    marker_size: float
    qr: tuple[float, float, float]
    box: float
    student_id: tuple[tuple[Point, ...], ...]
    versions: dict[str, tuple[int, tuple[FieldSpec, ...]]]  # code → (pages, fields)


def load_manifest(path: Path) -> Manifest:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise UserError(f"the manifest is over {MAX_BYTES // 1_000_000} MB", where=str(path))
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read the sheets' manifest: {exc.strerror}", where=str(path)) from None
    except (ValueError, RecursionError):
        raise UserError("not a JSON file (the exam-sheets.json that export --answer-sheets wrote?)",
                        where=str(path)) from None
    try:
        return _manifest(data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise UserError(f"not a quizzer sheets manifest ({exc.__class__.__name__}: {str(exc)[:80]})",
                        where=str(path)) from None


def _manifest(data: Any) -> Manifest:
    if not isinstance(data, dict) or data.get("format") != "quizzer-sheets":
        raise ValueError("its 'format' is not quizzer-sheets")
    if data.get("version") != 1:
        raise ValueError(f"format version {data.get('version')!r}; this quizzer reads version 1")
    versions = {}
    for code, version in dict(data["versions"]).items():
        versions[str(code)] = (int(version["pages"]), tuple(_field(f) for f in version["fields"]))
    return Manifest(
        exam=str(data["exam"]), title=str(data["title"]), width=float(data["page"]["width"]),
        height=float(data["page"]["height"]),
        markers={int(m): _point([x, y]) for m, x, y in data["markers"]["corners"]},
        marker_size=float(data["markers"]["size"]), qr=(float(data["qr"][0]), float(data["qr"][1]),
                                                        float(data["qr"][2])),
        box=float(data["box"]), student_id=tuple(tuple(map(_point, column)) for column in data["student_id"]),
        versions=versions)


def _point(value: Any) -> Point:
    x, y = value
    return float(x), float(y)


def _field(data: dict[str, Any]) -> FieldSpec:
    rect = tuple(float(v) for v in data["rect"])
    if len(rect) != 4:
        raise ValueError("a field's rect has 4 numbers")
    return FieldSpec(
        name=str(data["name"]), key=str(data["key"]), seed=int(data["seed"]), kind=str(data["kind"]),
        type=str(data["type"]), points=float(data["points"]), page=int(data["page"]),
        rect=(rect[0], rect[1], rect[2], rect[3]),
        options=tuple(str(o) for o in data.get("options", ())), boxes=tuple(map(_point, data.get("boxes", ()))),
        sign=_point(data["sign"]) if "sign" in data else None,
        digits=tuple(tuple(map(_point, column)) for column in data.get("digits", ())),
        exponent_sign=_point(data["exponent_sign"]) if "exponent_sign" in data else None,
        exponent=tuple(tuple(map(_point, column)) for column in data.get("exponent", ())))
