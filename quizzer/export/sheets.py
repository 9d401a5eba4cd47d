"""``quizzer export --format pdf --answer-sheets``: machine-read answer sheets beside the papers.

For ``-o exam.pdf`` it writes ``exam-sheet-A.pdf``, ``exam-sheet-B.pdf``, … (one per version: print a
copy for each student who sits that version) and ``exam-sheets.json``, the manifest the scanner reads
(:func:`quizzer.export.sheet_layout.manifest`): the exam's id, the page geometry and, per version, every
field's question key, seed, kind, points and boxes.  The manifest is the teacher's (it holds the
seeds); the sheets carry only the exam id, the version and the page, in a QR code.

Layout is :mod:`quizzer.export.sheet_layout`'s; this module draws it with typst at absolute positions.
The libraries, and why:

* **ArUco markers** (OpenCV's ``cv2.aruco``, ``opencv-python-headless``, which the scanner needs anyway):
  four markers a detector finds under any rotation, skew, perspective and blur, each with its own id,
  so the scanner knows which corner is which (a page scanned upside down is turned back).  The bit
  patterns are taken from OpenCV's dictionary here, so sheet and scanner cannot disagree.
* **segno** writes the QR code as SVG (typst has no QR code of its own without a network package; segno is
  pure Python, maintained, and standard-conforming).

The exam id is random (ten letters and digits, drawn afresh by each export): it must not be derived from
the seed, which a student holding the QR code could otherwise search for.  Everything else on the sheets
is the same for the same command.
"""

from __future__ import annotations

import io
import secrets
import tempfile
from pathlib import Path

from quizzer.common.errors import UserError
from quizzer.export.document import Paper
from quizzer.export.richtext import escape_typst
from quizzer.export.sheet_layout import (
    BOX,
    CHOICE_STEP,
    LABEL,
    MARKER,
    MARKER_INSET,
    PITCH_X,
    PITCH_Y,
    QR,
    Box,
    Field,
    SheetPlan,
    id_grid,
    id_top,
    manifest,
    markers,
    plan_sheet,
    qr_place,
)

QR_PREFIX = "QZS1"  # the payload's format: QZS1:EXAM:VERSION:PAGE
EXAM_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: it is read aloud and typed by teachers

PREAMBLE = """
#set document(title: TITLE, author: "quizzer", date: none)
#set page(width: WIDTHmm, height: HEIGHTmm, margin: 0mm)
#set text(font: "Libertinus Serif", size: 9pt, lang: "en")
#let at(x, y, body) = place(top + left, dx: x * 1mm, dy: y * 1mm, body)
#let bx(x, y) = at(x, y, rect(width: BOXmm, height: BOXmm, stroke: 0.6pt + luma(90)))
#let cell(x, y) = at(x, y, rect(width: CELLmm, height: CELLmm, fill: black, stroke: none))
#let write(x, y, w) = at(x, y, rect(width: w * 1mm, height: 5mm, stroke: 0.4pt + luma(150)))
#let small(body) = text(size: 7pt, fill: luma(70), body)
"""


def qr_payload(exam: str, version: str, page: int) -> str:
    return f"{QR_PREFIX}:{exam}:{version}:{page}"


def new_exam_id() -> str:
    return "".join(secrets.choice(EXAM_ALPHABET) for _ in range(10))


def sheet_files(papers: list[Paper], output: Path) -> list[tuple[Path, bytes]]:
    """Every version's sheet and the manifest, as files to write beside ``output``."""
    import json

    if not papers:
        return []
    paper_size = papers[0].layout.paper_size
    exam = new_exam_id()
    plans = [plan_sheet([q.whole or q.instance for q in paper.questions], paper.version or "A", paper_size)
             for paper in papers]
    title = papers[0].layout.title or f"Exam: {papers[0].selection.describe()}"
    files = [(output.with_name(f"{output.stem}-sheet-{plan.version}.pdf"), render_sheet(plan, exam, title))
             for plan in plans]
    document = manifest(exam, title, paper_size, plans)
    files.append((output.with_name(f"{output.stem}-sheets.json"),
                  (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode()))
    return files


def render_sheet(plan: SheetPlan, exam: str, title: str) -> bytes:
    """One version's sheet as PDF."""
    import typst

    width, height = plan.size
    with tempfile.TemporaryDirectory(prefix="quizzer-sheet-") as folder:
        root = Path(folder)
        pages = []
        for page in range(1, plan.pages + 1):
            (root / f"qr-{page}.svg").write_bytes(_qr_svg(qr_payload(exam, plan.version, page)))
            pages.append(_page(plan, page, exam, title))
        preamble = (PREAMBLE.replace("TITLE", _string(title)).replace("WIDTH", f"{width}")
                    .replace("HEIGHT", f"{height}").replace("BOX", f"{BOX}").replace("CELL", f"{MARKER / 6}"))
        (root / "main.typ").write_text(preamble + "\n#pagebreak()\n".join(pages), encoding="utf-8")
        try:
            return typst.compile(str(root / "main.typ"), root=str(root), ignore_system_fonts=True, format="pdf")
        except typst.TypstError as exc:
            raise UserError(f"typst could not typeset the answer sheet: {exc.message}",
                            where="--answer-sheets") from None


def _page(plan: SheetPlan, page: int, exam: str, title: str) -> str:
    parts = [_markers(plan.paper_size), _header(plan, page, exam, title), _id_block(plan.paper_size)]
    parts += [_field(field_) for field_ in plan.fields if field_.page == page]
    return "\n".join(parts)


def _markers(paper_size: str) -> str:
    cells = []
    for marker_id, x, y in markers(paper_size):
        pattern = marker_bits(marker_id)
        step = MARKER / len(pattern)
        cells += [f"#cell({x + c * step:.3f}, {y + r * step:.3f})"
                  for r, row in enumerate(pattern) for c, black in enumerate(row) if black]
    return "\n".join(cells)


def marker_bits(marker_id: int) -> list[list[bool]]:
    """The marker's cells, border included, True where black: OpenCV's own DICT_4X4_50 pattern."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, 6)
    return [[bool(value < 128) for value in row] for row in image]


def _qr_svg(payload: str) -> bytes:
    import segno

    buffer = io.BytesIO()
    segno.make(payload, error="m", micro=False).save(buffer, kind="svg", scale=1, border=0, xmldecl=False)
    return buffer.getvalue()


def _header(plan: SheetPlan, page: int, exam: str, title: str) -> str:
    qr_x, qr_y = qr_place(plan.paper_size)
    left = MARKER_INSET + MARKER + 4.0
    name = "Name: #box(width: 55mm, repeat[\\_])" if page == 1 else ""
    return (f"#at({qr_x}, {qr_y}, image(\"qr-{page}.svg\", width: {QR}mm))\n"
            f"#at({left}, {MARKER_INSET}, block(width: {qr_x - left - 4}mm)[*{escape_typst(title)}* #linebreak()"
            f" Version *{escape_typst(plan.version)}* · page {page} of {plan.pages} · exam {exam} #linebreak() "
            f"{name}])")


def _id_block(paper_size: str) -> str:
    grid = id_grid(paper_size)
    top = id_top()
    left = grid[0][0].x
    lines = [f"#at({left}, {top - 11.5}, [*Student ID*])"]
    lines += [f"#write({column[0].x - 0.5}, {top - 6.5}, {BOX + 1})" for column in grid]
    lines += [f"#at({left - 4.5}, {top + d * PITCH_Y - 0.2}, small[{d}])" for d in range(10)]
    lines += [f"#bx({box.x}, {box.y})" for column in grid for box in column]
    text_left = grid[-1][0].x + PITCH_X + 8.0
    lines.append(f"#at({text_left}, {top - 6}, block(width: 95mm)[#set par(leading: 0.5em)\n"
                 "*How to answer.* Write your student ID in the boxes above its grid and mark each digit below "
                 "it. Mark a box with a cross ✗. To take a mark back, fill the box completely ■ (a filled box "
                 "counts as not marked). A number is written as digits × 10 to a power: $-0.0347$ is "
                 "$-3.47 × 10^(-2)$: mark −, 3, 4, 7 and, after ×10, −, 0, 2 (blank means 0). "
                 "Answers in a frame are marked by hand. Do not write on the markers or the QR code.])")
    return "\n".join(lines)


def _field(field_: Field) -> str:
    lines = [f"#at({field_.x}, {field_.y + 0.3}, [*{field_.name}.*])"]
    if field_.type in ("choice", "multi", "bool"):
        lines += [f"#at({box.x - (CHOICE_STEP - BOX - 1.5) if field_.type != 'bool' else box.x - 9.0}, "
                  f"{box.y + 0.1}, [{escape_typst(option)}])" for option, box in zip(field_.options, field_.boxes,
                                                                                     strict=True)]
        lines += [_box(box) for box in field_.boxes]
        if field_.type == "multi":
            bottom = max(box.y for box in field_.boxes) + BOX + 0.6
            lines.append(f"#at({field_.x + LABEL}, {bottom}, small[mark every right option])")
    elif field_.type in ("integer", "number"):
        lines += _digit_grid(field_)
    else:
        lines.append(f"#at({field_.x + LABEL}, {field_.y}, rect(width: {field_.width - LABEL}mm, "
                     f"height: {field_.height}mm, stroke: 0.6pt + luma(90)))")
        lines.append(f"#at({field_.x + LABEL + 1.5}, {field_.y + field_.height - 4.0}, "
                     f"small[{escape_typst(field_.kind)} answer: written here, marked by hand])")
    return "\n".join(lines)


def _digit_grid(field_: Field) -> list[str]:
    assert field_.sign is not None
    top = field_.sign.y
    lines = [f"#at({field_.sign.x + BOX + 2.2}, {top + d * PITCH_Y - 0.2}, small[{d}])" for d in range(10)]
    lines.append(f"#at({field_.sign.x + 0.9}, {top - 5.2}, [−])")
    lines.append(_box(field_.sign))
    lines += [f"#write({column[0].x - 0.5}, {top - 6.0}, {BOX + 1})" for column in field_.digits]
    lines += [_box(box) for column in field_.digits for box in column]
    if field_.type == "number":
        assert field_.exponent_sign is not None
        point = field_.digits[0][0].x + BOX + 0.35  # the decimal point, printed after the first digit
        lines.append(f"#at({point}, {top - 1.6}, circle(radius: 0.45mm, fill: black))")
        times = field_.digits[-1][0].x + PITCH_X + 0.5
        lines.append(f"#at({times}, {top - 5.2}, [× 10])")
        lines.append(f"#at({field_.exponent_sign.x + 0.9}, {top - 5.2}, [−])")
        lines.append(_box(field_.exponent_sign))
        lines += [f"#write({column[0].x - 0.5}, {top - 6.0}, {BOX + 1})" for column in field_.exponent]
        lines += [_box(box) for column in field_.exponent for box in column]
    return lines


def _box(box: Box) -> str:
    return f"#bx({box.x:.3f}, {box.y:.3f})"


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

