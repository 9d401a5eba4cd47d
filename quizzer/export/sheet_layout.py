"""Where everything goes on a machine-read answer sheet: the page's geometry, in millimetres.

An answer sheet is a form, not a document: the scanner must find every box where the sheet says it is,
so the layout is computed here, box by box, and typst only draws it (:mod:`quizzer.export.sheets`).  The
same numbers go into the exam's manifest (``exam-sheets.json``), which is all the scanner
(:mod:`quizzer.scan`) knows of a sheet.

Every page has four ArUco markers at its corners (found under any rotation, skew or perspective: each
marker's id says which corner it is), a QR code (exam, version, page; never a seed), the student-ID
grid (so a page that comes apart from its sheet is still the student's) and then the questions in two
columns, one *field* per question or part:

* ``choice`` / ``multi`` / ``bool``: one box per option (``a``, ``b``, …; ``true``, ``false``).
* ``integer``: a sign box and one column of ten boxes (0–9) per digit.
* ``number``: scientific notation, so every magnitude fits the same grid: sign, the first digit, the
  decimal point (printed), as many further digits as the question's precision needs (plus one), then
  ``× 10^`` with its own sign and two digits.  An exponent left blank is 0.
* ``hand``: a frame to write in (vectors, matrices, shapes, expressions, orders, recall cards), read by
  the teacher from the queue, not by the scanner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from quizzer.grading.describe import option_letter
from quizzer.templates.instance import Instance

PAGE_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARKER = 12.0  # an ArUco 4×4 marker with its border: 6 cells of 2 mm
MARKER_INSET = 7.0  # from the page's edges to the marker (printers leave ~5 mm unprinted)
BOX = 4.0  # a box's side
PITCH_X = 5.5  # from one box to the next in a row
PITCH_Y = 5.0  # from one row of a digit grid to the next
QR = 22.0
LABEL = 11.0  # the question number's width, left of its boxes
COLUMN_GAP = 6.0
ID_DIGITS = 8
MAX_MANTISSA = 7
MIN_MANTISSA = 3
EXPONENT_DIGITS = 2
MAX_INTEGER_DIGITS = 10
HAND_HEIGHT = 22.0
CHOICE_STEP = 9.0  # an option's letter and its box
GAP = 4.0  # between two fields

FieldType = Literal["choice", "multi", "bool", "integer", "number", "hand"]
BUBBLED: dict[str, FieldType] = {"choice": "choice", "multi": "multi", "bool": "bool", "integer": "integer",
                                 "number": "number"}


@dataclass(frozen=True)
class Box:
    """A box's top-left corner on its page, in mm; every box is ``BOX`` wide."""

    x: float
    y: float

    def json(self) -> list[float]:
        return [round(self.x, 3), round(self.y, 3)]


@dataclass
class Field:
    """Where one question (or one part of a multi-part question) is answered on the sheet."""

    number: int
    label: str  # a part's letter, or ""
    key: str  # the question's key, or ``KEY (b)`` for a part: what ``grade --batch`` takes
    seed: int
    kind: str
    type: FieldType
    points: float
    page: int = 0
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0
    options: tuple[str, ...] = ()  # choice/multi/bool: what each box answers
    boxes: tuple[Box, ...] = ()  # choice/multi/bool: one per option
    sign: Box | None = None  # integer/number: the minus box
    digits: tuple[tuple[Box, ...], ...] = ()  # integer: digit columns; number: the mantissa's
    exponent_sign: Box | None = None
    exponent: tuple[tuple[Box, ...], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.number}({self.label})" if self.label else str(self.number)

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "key": self.key, "seed": self.seed, "kind": self.kind,
                                "type": self.type, "points": self.points, "page": self.page,
                                "rect": [round(v, 3) for v in (self.x, self.y, self.width, self.height)]}
        if self.options:
            data["options"] = list(self.options)
            data["boxes"] = [box.json() for box in self.boxes]
        if self.sign is not None:
            data["sign"] = self.sign.json()
            data["digits"] = [[box.json() for box in column] for column in self.digits]
        if self.exponent_sign is not None:
            data["exponent_sign"] = self.exponent_sign.json()
            data["exponent"] = [[box.json() for box in column] for column in self.exponent]
        return data


@dataclass
class SheetPlan:
    """One version's answer sheet: its pages' fields, and the geometry every page shares."""

    version: str
    paper_size: str
    fields: list[Field] = field(default_factory=list)
    pages: int = 1

    @property
    def size(self) -> tuple[float, float]:
        return PAGE_MM[self.paper_size]


def markers(paper_size: str) -> list[tuple[int, float, float]]:
    """The four corner markers: ArUco id and top-left corner (mm); ids 0–3 clockwise from the top left."""
    width, height = PAGE_MM[paper_size]
    near, far_x, far_y = MARKER_INSET, width - MARKER_INSET - MARKER, height - MARKER_INSET - MARKER
    return [(0, near, near), (1, far_x, near), (2, far_x, far_y), (3, near, far_y)]


def qr_place(paper_size: str) -> tuple[float, float]:
    width, _ = PAGE_MM[paper_size]
    return width - MARKER_INSET - MARKER - 6.0 - QR, MARKER_INSET - 2.0


def id_grid(paper_size: str) -> tuple[tuple[Box, ...], ...]:
    """The student-ID grid, the same on every page: one column of boxes 0–9 per digit."""
    left, top = MARKER_INSET + 6.0, id_top()
    return tuple(tuple(Box(left + column * PITCH_X, top + digit * PITCH_Y) for digit in range(10))
                 for column in range(ID_DIGITS))


def id_top() -> float:
    """Under the header and the write-in row of the ID."""
    return MARKER_INSET + MARKER + 15.0


def content_top() -> float:
    return id_top() + 10 * PITCH_Y + 6.0


def plan_sheet(instances: list[Instance], version: str, paper_size: str) -> SheetPlan:
    """Place every question's field in two columns, page after page."""
    plan = SheetPlan(version=version, paper_size=paper_size)
    width, height = plan.size
    left, right = MARKER_INSET + 2.0, width - MARKER_INSET - 2.0
    column_width = (right - left - COLUMN_GAP) / 2
    bottom = height - MARKER_INSET - MARKER - 4.0
    page, column, y = 1, 0, content_top()
    for field_ in _fields(instances):
        _measure(field_, column_width)
        if y + field_.height > bottom:
            column, y = (1, content_top()) if column == 0 else (0, content_top())
            page += column == 0
        field_.page, field_.x, field_.y = page, left + column * (column_width + COLUMN_GAP), y
        _place_boxes(field_)
        plan.fields.append(field_)
        y += field_.height + GAP
    plan.pages = page
    return plan


def _fields(instances: list[Instance]) -> list[Field]:
    fields = []
    for number, instance in enumerate(instances, start=1):
        if instance.parts:
            for part in instance.parts:
                fields.append(_field(number, part.label, f"{instance.key} ({part.label})", instance.seed,
                                     part.question))
        else:
            fields.append(_field(number, "", instance.key, instance.seed, instance))
    return fields


def _field(number: int, label: str, key: str, seed: int, instance: Instance) -> Field:
    kind = instance.kind
    type_: FieldType = BUBBLED.get(kind, "hand")
    result = Field(number=number, label=label, key=key, seed=seed, kind=kind, type=type_, points=instance.points)
    if type_ in ("choice", "multi"):
        result.options = tuple(option_letter(i) for i in range(len(instance.choices)))
    elif type_ == "bool":
        result.options = ("true", "false")
    elif type_ == "integer":
        result.digits = ((),) * integer_digits(instance)
    elif type_ == "number":
        result.digits = ((),) * mantissa_digits(instance)
    return result


def integer_digits(instance: Instance) -> int:
    """Room for the answer and every listed mistake's answer, and one digit more."""
    values = [instance.answer, *(mistake.answer for mistake in instance.mistakes)]
    widths = [len(str(abs(int(value)))) for value in values if isinstance(value, int | float) and math.isfinite(value)]
    return min(max([2, *(w + 1 for w in widths)]), MAX_INTEGER_DIGITS)


def mantissa_digits(instance: Instance) -> int:
    """Significant figures to give room for: what the prompt asks, or what the tolerance needs, plus one."""
    spec = instance.spec
    asked = spec.precision
    if asked is not None and asked.unit == "sig":
        needed = asked.digits
    elif asked is not None:  # decimal places: the leading digit's place decides how many figures that is
        value = abs(float(instance.answer)) or 1.0
        needed = asked.digits + math.floor(math.log10(value)) + 1
    else:
        needed = spec.tolerance.display_digits() - 1
    return min(max(needed + 1, MIN_MANTISSA), MAX_MANTISSA)


def _measure(field_: Field, column_width: float) -> None:
    field_.width = column_width
    if field_.type in ("choice", "multi", "bool"):
        step = 15.0 if field_.type == "bool" else CHOICE_STEP
        per_row = max(1, int((column_width - LABEL) // step))
        rows = math.ceil(len(field_.options) / per_row)
        field_.height = rows * 7.0 + (3.0 if field_.type == "multi" else 0.0)
    elif field_.type in ("integer", "number"):
        field_.height = 6.0 + 10 * PITCH_Y  # the write-in row, then the digits 0–9
    else:
        field_.height = HAND_HEIGHT


def _place_boxes(field_: Field) -> None:
    x0, y0 = field_.x + LABEL, field_.y
    if field_.type in ("choice", "multi", "bool"):
        step = 15.0 if field_.type == "bool" else CHOICE_STEP
        per_row = max(1, int((field_.width - LABEL) // step))
        label_width = step - BOX - 1.0
        field_.boxes = tuple(Box(x0 + (i % per_row) * step + label_width, y0 + 1.0 + (i // per_row) * 7.0)
                             for i in range(len(field_.options)))
    elif field_.type in ("integer", "number"):
        top = y0 + 6.0
        x = x0 + 1.0
        field_.sign = Box(x, top)
        x += PITCH_X + 4.0  # the digits' labels 0–9 stand between the minus box and the digits
        columns = []
        for _ in field_.digits:
            columns.append(tuple(Box(x, top + d * PITCH_Y) for d in range(10)))
            x += PITCH_X
        field_.digits = tuple(columns)
        if field_.type == "number":
            x += 9.0  # "× 10^"
            field_.exponent_sign = Box(x, top)
            x += PITCH_X + 1.0
            field_.exponent = tuple(tuple(Box(x + c * PITCH_X, top + d * PITCH_Y) for d in range(10))
                                    for c in range(EXPONENT_DIGITS))


def manifest(exam: str, title: str, paper_size: str, plans: list[SheetPlan]) -> dict[str, Any]:
    """The teacher's file beside the sheets: everything the scanner needs to read them (see the README)."""
    width, height = PAGE_MM[paper_size]
    qr_x, qr_y = qr_place(paper_size)
    return {
        "format": "quizzer-sheets", "version": 1, "exam": exam, "title": title,
        "page": {"size": paper_size, "width": width, "height": height},
        "markers": {"dictionary": "DICT_4X4_50", "size": MARKER,
                    "corners": [[marker_id, x, y] for marker_id, x, y in markers(paper_size)]},
        "qr": [qr_x, qr_y, QR],
        "box": BOX,
        "student_id": [[box.json() for box in column] for column in id_grid(paper_size)],
        "versions": {plan.version: {"pages": plan.pages, "fields": [f.json() for f in plan.fields]}
                     for plan in plans},
    }
