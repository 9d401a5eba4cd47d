"""A scanned page → where it is on the sheet (markers, perspective), which sheet it is (QR) and how dark
each box is.

The page is warped onto the sheet's own coordinates at ``PX_PER_MM`` (6 px/mm, 152 dpi: a 4 mm box is
24 px) by the homography from the ArUco markers' 16 corners to their printed places, so rotation,
skew and a phone's perspective are undone in one step.  A page upside down is found the same way (each
marker's id says which corner it is).  A box's ink is measured on its inside (its printed outline
and half a millimetre of misregistration left out), as a share between the page's paper white and its
ink black (the markers' black), so a grey scan, a dim photo and a dark one read alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from quizzer.scan.manifest import Manifest, Point

PX_PER_MM = 6.0
PDF_DPI = 200
MAX_FILE_BYTES = 100_000_000
MAX_PIXELS = 60_000_000
MAX_PDF_PAGES = 200
# OpenCV refuses to decode a larger image (a small PNG may claim a huge size): set before cv2 is imported.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))
DETECT_SIDE = 2400  # markers are looked for on a copy no longer than this (a 12 MP photo takes too long)
INSET = 0.6  # mm left out inside a box's edge: its outline and a little misregistration
QR_MARGIN = 4.0

Gray = NDArray[np.uint8]


@dataclass(frozen=True)
class PageImage:
    """One page as it came in: which file (and page of a PDF), and its pixels in grey."""

    source: str
    pixels: Gray


@dataclass(frozen=True)
class ReadPage:
    """A page on the sheet's coordinates, with the QR code's reading."""

    source: str
    exam: str
    version: str
    page: int
    image: Gray  # warped, PX_PER_MM
    white: float
    black: float

    def ink(self, box: Point, size: float) -> tuple[float, float]:
        """How much ink is inside the box at ``box`` (its top-left corner, mm), from 0 (paper) to 1 (the
        markers' black): its mean, and its lightest quarter's (high only when the box is filled in)."""
        x0, y0 = (round((v + INSET) * PX_PER_MM) for v in box)
        side = round((size - 2 * INSET) * PX_PER_MM)
        inside = self.image[y0:y0 + side, x0:x0 + side].astype(np.float32)
        if not inside.size:
            return 0.0, 0.0
        darkness = np.clip((self.white - inside) / max(self.white - self.black, 1.0), 0.0, 1.0)
        return float(darkness.mean()), float(np.percentile(darkness, 25))

    def crop(self, rect: tuple[float, float, float, float], margin: float = 2.0) -> Gray:
        """The page around a rectangle (mm), for the teacher's queue."""
        x, y, w, h = rect
        x0, y0 = max(round((x - margin) * PX_PER_MM), 0), max(round((y - margin) * PX_PER_MM), 0)
        x1, y1 = round((x + w + margin) * PX_PER_MM), round((y + h + margin) * PX_PER_MM)
        return self.image[y0:y1, x0:x1]


class Unreadable(Exception):
    """A page the scanner cannot place or identify, and why (the teacher's queue says it)."""

    def __init__(self, source: str, reason: str, image: Gray | None = None) -> None:
        super().__init__(reason)
        self.source, self.reason, self.image = source, reason, image


def load_pages(path: Path) -> list[PageImage]:
    """Every page of a PDF or an image file (PNG, JPEG, TIFF, …), in grey; a file that is neither raises
    :class:`Unreadable`."""
    import cv2

    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(str(path), f"over {MAX_FILE_BYTES // 1_000_000} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise Unreadable(str(path), f"cannot read it: {exc.strerror}") from None
    if data.startswith(b"%PDF"):
        return _pdf_pages(path, data)
    cv2.setNumThreads(1)
    pixels = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    if pixels is None:
        raise Unreadable(str(path), f"neither a PDF nor an image OpenCV reads (within {MAX_PIXELS // 1_000_000} "
                                    "megapixels)")
    if pixels.size > MAX_PIXELS:
        raise Unreadable(str(path), f"over {MAX_PIXELS // 1_000_000} megapixels")
    return [PageImage(str(path), np.asarray(pixels, dtype=np.uint8))]


def _pdf_pages(path: Path, data: bytes) -> list[PageImage]:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise Unreadable(str(path), f"a damaged PDF ({exc})") from None
    if len(document) > MAX_PDF_PAGES:
        raise Unreadable(str(path), f"{len(document)} pages; scan at most {MAX_PDF_PAGES} pages a file")
    pages = []
    for index in range(len(document)):
        page = document[index]
        width, height = page.get_size()
        scale = min(PDF_DPI / 72, (MAX_PIXELS / max(width * height, 1.0)) ** 0.5)
        bitmap = page.render(scale=scale, grayscale=True).to_numpy()
        pixels = np.ascontiguousarray(bitmap if bitmap.ndim == 2 else bitmap[..., 0], dtype=np.uint8)
        pages.append(PageImage(f"{path} p{index + 1}", pixels))
    return pages


def read_page(image: PageImage, manifest: Manifest) -> ReadPage:
    """Place the page on the sheet and read its QR code; :class:`Unreadable` when either fails."""
    warped = _warp(image, manifest)
    payload = _qr(warped, manifest)
    if payload is None:
        raise Unreadable(image.source, "no QR code read (torn, covered or folded corner?)", warped)
    fields = payload.split(":")
    if len(fields) != 4 or fields[0] != "QZS1" or not fields[3].isdigit():
        raise Unreadable(image.source, f"the QR code {payload[:40]!r} is not a quizzer answer sheet's", warped)
    _, exam, version, page = fields
    if exam != manifest.exam:
        raise Unreadable(image.source, f"a sheet of exam {exam}, not of this manifest's {manifest.exam}", warped)
    if version not in manifest.versions or not 1 <= int(page) <= manifest.versions[version][0]:
        raise Unreadable(image.source, f"version {version} page {page} is not in the manifest", warped)
    white = float(np.percentile(warped, 90))
    black = _ink(warped, manifest)
    if white - black < 40:
        raise Unreadable(image.source, "too little contrast between paper and ink", warped)
    return ReadPage(image.source, exam, version, int(page), warped, white, black)


def _warp(image: PageImage, manifest: Manifest) -> Gray:
    import cv2

    pixels = image.pixels
    shrink = min(1.0, DETECT_SIDE / max(pixels.shape))
    small = cv2.resize(pixels, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA) if shrink < 1 else pixels
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, parameters).detectMarkers(small)
    found: dict[int, Any] = {}
    for marker, marker_id in zip(corners, [] if ids is None else ids.flatten(), strict=False):
        if int(marker_id) in manifest.markers and int(marker_id) not in found:
            found[int(marker_id)] = marker.reshape(4, 2) / shrink
    if len(found) < 3:
        raise Unreadable(image.source, f"found {len(found)} of the 4 corner markers (need 3): is the whole "
                                       "page in the picture?")
    size = manifest.marker_size
    source, target = [], []
    for found_id, points in found.items():
        x, y = manifest.markers[found_id]
        source += list(points)
        target += [(x * PX_PER_MM, y * PX_PER_MM), ((x + size) * PX_PER_MM, y * PX_PER_MM),
                   ((x + size) * PX_PER_MM, (y + size) * PX_PER_MM), (x * PX_PER_MM, (y + size) * PX_PER_MM)]
    homography, _ = cv2.findHomography(np.array(source, np.float32), np.array(target, np.float32))
    if homography is None:
        raise Unreadable(image.source, "the corner markers do not make a page")
    shape = (round(manifest.width * PX_PER_MM), round(manifest.height * PX_PER_MM))
    warped = cv2.warpPerspective(pixels, homography, shape, flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    return np.asarray(warped, dtype=np.uint8)


def _qr(warped: Gray, manifest: Manifest) -> str | None:
    import zxingcpp  # type: ignore[import-untyped, unused-ignore]

    x, y, size = manifest.qr
    x0, y0 = (max(round((v - QR_MARGIN) * PX_PER_MM), 0) for v in (x, y))
    x1, y1 = (round((v + size + QR_MARGIN) * PX_PER_MM) for v in (x, y))
    qr_codes = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    for area in (warped[y0:y1, x0:x1], warped):
        for code in zxingcpp.read_barcodes(np.ascontiguousarray(area), formats=qr_codes):
            if code.valid and code.text.startswith("QZS1:"):
                return str(code.text)
    return None


def _ink(warped: Gray, manifest: Manifest) -> float:
    """The markers' black: the darkest tenth of their squares (half their cells are black)."""
    values = []
    for x, y in manifest.markers.values():
        x0, y0 = round(x * PX_PER_MM), round(y * PX_PER_MM)
        side = round(manifest.marker_size * PX_PER_MM)
        values.append(warped[y0:y0 + side, x0:x0 + side].ravel())
    return float(np.percentile(np.concatenate(values), 10))
