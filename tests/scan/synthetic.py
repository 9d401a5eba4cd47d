"""Synthetic scans of filled-in answer sheets: the scanner's test bed (``tests/scan``, ``bench/bench_scan.py``).

A sheet is rendered by pdftoppm (150, 200 or 300 dpi), filled in with pen-like marks — crosses and ticks
of varied ink darkness, stroke width and size, heavy partial fills, boxes crossed out by filling them in
(the sheet's way of taking a mark back), stray strokes between the boxes — and then photographed badly:
rotated by up to ±4°, put in perspective, blurred, noised and saved as JPEG.  Each filled-in sheet knows
what it should read as (:class:`Filled`), so the scanner's readings are checked against the truth, box
by box.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from quizzer.scan.manifest import FieldSpec, Manifest, Point

MM_PER_INCH = 25.4


@dataclass
class Filled:
    """A filled-in page, and what a perfect reader reads on it: every box's mark, every field's answer."""

    pixels: np.ndarray
    version: str
    page: int
    student: str
    marked: dict[Point, bool] = field(default_factory=dict)  # every box read: True when it carries a mark
    answers: dict[str, str | None] = field(default_factory=dict)  # field name → answer (None: blank)
    cancelled: set[Point] = field(default_factory=set)  # boxes marked and then filled in: not marked


def render(pdf: Path, dpi: int) -> list[np.ndarray]:
    """The PDF's pages in grey, as pdftoppm draws them."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-png", str(pdf), f"{folder}/page"], check=True)
        return [cv2.imread(str(path), cv2.IMREAD_GRAYSCALE) for path in sorted(Path(folder).glob("page*.png"))]


class Pen:
    """Marks on a page image at ``dpi``, in the page's millimetres."""

    def __init__(self, pixels: np.ndarray, dpi: int, rng: random.Random) -> None:
        self.pixels, self.scale, self.rng = pixels, dpi / MM_PER_INCH, rng
        self.ink = rng.randint(10, 90)  # this student's pen: from black to a worn grey ballpoint
        self.width = rng.uniform(0.3, 0.6)  # mm

    def _px(self, x: float, y: float) -> tuple[int, int]:
        return round(x * self.scale), round(y * self.scale)

    def line(self, start: tuple[float, float], end: tuple[float, float], width: float | None = None,
             ink: int | None = None) -> None:
        thickness = max(1, round((width or self.width) * self.scale))
        cv2.line(self.pixels, self._px(*start), self._px(*end), int(self.ink if ink is None else ink), thickness,
                 cv2.LINE_AA)

    def mark(self, box: Point, size: float) -> None:
        """A cross (mostly), a tick or a heavy scribble over part of the box."""
        x, y = box
        jitter = lambda: self.rng.uniform(-0.5, 0.5)  # noqa: E731
        style = self.rng.random()
        if style < 0.75:
            reach = self.rng.uniform(0.8, 1.25)  # from a small cross inside the box to one beyond its edges
            c, h = size / 2, size / 2 * reach
            self.line((x + c - h + jitter(), y + c - h + jitter()), (x + c + h + jitter(), y + c + h + jitter()))
            self.line((x + c - h + jitter(), y + c + h + jitter()), (x + c + h + jitter(), y + c - h + jitter()))
        elif style < 0.9:  # a tick
            self.line((x + 0.6, y + size * 0.55), (x + size * 0.4, y + size - 0.5))
            self.line((x + size * 0.4, y + size - 0.5), (x + size + 0.3, y - 0.4))
        else:  # a partial fill: a few heavy strokes over half the box
            for step in range(4):
                offset = 0.6 + step * 0.55
                self.line((x + 0.5, y + offset), (x + size * 0.7, y + offset), width=0.7)

    def cancel(self, box: Point, size: float) -> None:
        """A mark taken back: the box filled in completely."""
        x0, y0 = self._px(box[0] - 0.2, box[1] - 0.2)
        x1, y1 = self._px(box[0] + size + 0.2, box[1] + size + 0.2)
        cv2.rectangle(self.pixels, (x0, y0), (x1, y1), int(min(self.ink, 60)), -1)

    def stray(self, page_width: float, page_height: float, avoid: list[tuple[float, float, float]]) -> None:
        """A stroke somewhere on the page that crosses no box (a slip of the pen, a note in the margin)."""
        for _ in range(50):
            x, y = self.rng.uniform(20, page_width - 30), self.rng.uniform(40, page_height - 30)
            dx, dy = self.rng.uniform(-6, 6), self.rng.uniform(-3, 3)
            if all(not _near(x, y, dx, dy, box) for box in avoid):
                self.line((x, y), (x + dx, y + dy))
                return


def _near(x: float, y: float, dx: float, dy: float, box: tuple[float, float, float]) -> bool:
    bx, by, size = box
    lo_x, hi_x, lo_y, hi_y = min(x, x + dx), max(x, x + dx), min(y, y + dy), max(y, y + dy)
    return not (hi_x < bx - 1.5 or lo_x > bx + size + 1.5 or hi_y < by - 1.5 or lo_y > by + size + 1.5)


def fill(pixels: np.ndarray, manifest: Manifest, version: str, page: int, student: str, dpi: int,
         rng: random.Random) -> Filled:
    """A student's page: their ID, and an answer (or none) for every field on it."""
    pixels = pixels.copy()
    pen = Pen(pixels, dpi, rng)
    filled = Filled(pixels, version, page, student)
    size = manifest.box
    boxes: list[tuple[float, float, float]] = []

    def tick(box: Point, on: bool) -> None:
        boxes.append((box[0], box[1], size))
        if on:
            pen.mark(box, size)
        elif rng.random() < 0.01:  # marked, then taken back
            pen.mark(box, size)
            pen.cancel(box, size)
            filled.cancelled.add(box)
        filled.marked[box] = on

    for column, digit in zip(manifest.student_id, student.ljust(len(manifest.student_id)), strict=True):
        for d, box in enumerate(column):
            tick(box, digit == str(d))
    for spec in manifest.versions[version][1]:
        if spec.page == page:
            filled.answers[spec.name] = _answer(spec, rng, tick)
    for _ in range(rng.randint(0, 3)):
        pen.stray(manifest.width, manifest.height, boxes)
    return filled


def _answer(spec: FieldSpec, rng: random.Random, tick) -> str | None:  # type: ignore[no-untyped-def]
    """Mark a random answer in ``spec``'s boxes; the answer as the scanner should read it."""
    if spec.type == "hand":
        return None
    blank = rng.random() < 0.05
    if spec.type in ("choice", "bool", "multi"):
        if spec.type == "multi":
            chosen = {i for i in range(len(spec.options)) if rng.random() < 0.4}
        else:
            chosen = set() if blank else {rng.randrange(len(spec.options))}
        chosen = set() if blank else chosen
        for i, box in enumerate(spec.boxes):
            tick(box, i in chosen)
        return ", ".join(spec.options[i] for i in sorted(chosen)) or None
    assert spec.sign is not None
    negative = not blank and rng.random() < 0.3
    tick(spec.sign, negative)
    count = 0 if blank else rng.randint(1, len(spec.digits))
    digits = [rng.randrange(10) for _ in range(count)]
    if spec.type == "number" and digits and digits[0] == 0:
        digits[0] = rng.randint(1, 9)
    for column, box_column in enumerate(spec.digits):
        for d, box in enumerate(box_column):
            tick(box, column < count and digits[column] == d)
    if spec.type == "integer":
        return ("-" if negative else "") + "".join(map(str, digits)) if digits else None
    exponent = "" if blank or rng.random() < 0.3 else str(rng.randint(0, 12))
    exponent_negative = bool(exponent) and exponent != "0" and rng.random() < 0.5
    assert spec.exponent_sign is not None
    tick(spec.exponent_sign, exponent_negative)
    written = exponent.rjust(len(spec.exponent)) if exponent else " " * len(spec.exponent)
    for column, box_column in enumerate(spec.exponent):
        for d, box in enumerate(box_column):
            tick(box, written[column] == str(d))
    if not digits:
        return None
    text = ("-" if negative else "") + str(digits[0]) + ("." + "".join(map(str, digits[1:])) if count > 1 else "")
    return text + (f"e{'-' if exponent_negative else ''}{int(exponent)}" if exponent else "")


def photograph(pixels: np.ndarray, rng: random.Random, *, jpeg: bool = True) -> bytes:
    """The page as a scanner or a phone would give it: rotated up to ±4°, in perspective, blurred, noisy,
    JPEG-compressed (PNG with ``jpeg`` off)."""
    height, width = pixels.shape
    pad = round(0.06 * max(height, width))
    canvas = cv2.copyMakeBorder(pixels, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=rng.randint(150, 235))
    h, w = canvas.shape
    angle = rng.uniform(-4, 4)
    rotation = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    canvas = cv2.warpAffine(canvas, rotation, (w, h), borderMode=cv2.BORDER_REPLICATE)
    spread = 0.025 * min(h, w)
    source = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    target = np.float32([[x + rng.uniform(-spread, spread), y + rng.uniform(-spread, spread)] for x, y in source])
    canvas = cv2.warpPerspective(canvas, cv2.getPerspectiveTransform(source, target), (w, h),
                                 borderMode=cv2.BORDER_REPLICATE)
    light = rng.uniform(0.8, 1.0)  # a dim photo
    canvas = canvas.astype(np.float32) * light
    canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.4, 1.3))
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(2, 8), canvas.shape)
    noise += canvas  # in place: the same sum as canvas + noise, without two more page-sized float64 arrays
    image = np.clip(noise, 0, 255, out=noise).astype(np.uint8)
    ok, data = cv2.imencode(".jpg" if jpeg else ".png", image,
                            [cv2.IMWRITE_JPEG_QUALITY, rng.randint(55, 90)] if jpeg else [])
    assert ok
    return data.tobytes()
