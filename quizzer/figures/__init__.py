"""Draw an instance's figure as a standalone SVG document, for every export (HTML, PDF, Anki).

Made for print: the viridis colour map (its lightness rises steadily, so it survives
greyscale printing and colour blindness), values written in every heatmap cell in
black or white by the cell's luminance, masked cells hatched grey, curves told apart
by dash pattern as well as colour, bars by hatching.  Output is deterministic: the same
figure gives the same bytes (ids come from a hash of the figure's values, no dates).
Text stays text (selectable, searchable, small); math in titles and labels is drawn as
Unicode, as in the terminal.  Written directly rather than through a plotting library:
importing one cost more than half a second per export.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from quizzer.figures import heatmap, plots
from quizzer.figures.frame import Frame
from quizzer.templates.figure import Figure, plain_text

if TYPE_CHECKING:
    from quizzer.templates.instance import Instance


def figure_svg(instance: Instance) -> str | None:
    """The instance's figure as an ``<svg>`` document (no XML prolog, so it also inlines in HTML), or None."""
    return None if instance.figure is None else draw(instance.figure)


def draw(figure: Figure) -> str:
    digest = hashlib.sha256(json.dumps(figure.to_json(), sort_keys=True).encode()).hexdigest()
    frame = Frame(title=plain_text(figure.title), caption=plain_text(figure.caption), ids=f"quizzer-{digest[:12]}")
    body = heatmap.HeatmapBody(figure) if figure.kind == "heatmap" else plots.PlotBody(figure)
    return frame.draw(body).document()
