"""QTI 1.2 as Canvas imports it (Settings → Import course content → QTI .zip): one assessment of
every question, graded by Canvas itself.  Blackboard reads the same package.

Written here rather than with text2qti: text2qti reads its own plain-text quiz language and turns
maths into images served by one institution's Canvas (or needs pandoc); our questions are already
HTML with MathML, and the grading rules below must match quizzer's exactly, so the XML is built
directly (ElementTree: every text escaped).

How the answer kinds become Canvas questions (``points_possible`` is the question's points):

* ``number`` / ``integer`` → ``numerical_question``: the exact value, or any number within
  quizzer's absolute tolerance (the one Moodle gets; integers exact).
* ``choice`` → ``multiple_choice_question``; ``bool`` → ``true_false_question``.
* ``multi`` → ``multiple_answers_question``: each of the R right options adds 100/R, each wrong
  one −100/R, the score floored at 0: quizzer's select-all rule.
* ``shape`` / ``expression`` → ``short_answer_question`` accepting the usual written forms (Canvas
  compares text: an equal expression written differently is marked wrong; the feedback says so).
* ``vector`` / ``matrix`` / ``text`` → ``essay_question`` (graded by hand), the answer in the feedback (for a
  vector or matrix with how close it must be and how its marks are shared, as quizzer grades it).
* ``order`` → ``short_answer_question``: Canvas's QTI 1.2 import has no ordering type, so the
  prompt lists the steps with their letters (in quizzer's displayed order) and the student types
  the letters, as in ``quizzer grade``.  Only the right order's usual written forms are accepted
  (``c a d b``, ``cadb``, ``c, a, d, b``, …): all or nothing, where quizzer gives partial credit by
  pairs of steps.  A matching question (place → step) was not used: Canvas pays each right place,
  so a wrong order with the first and last steps swapped would earn 4/6 where quizzer gives 0.
  The feedback says so.
"""

from __future__ import annotations

import hashlib
import io
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable

from quizzer.export.document import Paper, Question, Section
from quizzer.export.moodle import written_forms
from quizzer.export.moodlenumbers import moodle_center, moodle_tolerance
from quizzer.export.richtext import to_html, to_html_inline
from quizzer.grading.describe import option_letter
from quizzer.templates.instance import Instance

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
CP_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
ASSESSMENT = "quizzer-assessment"
RESPONSE = "response1"
FIGURES = "figures"
_ZIP_TIME = (2020, 1, 1, 0, 0, 0)  # fixed, so the same paper gives the same bytes


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    del sections  # an LMS question holds its answer
    root = ET.Element("questestinterop", xmlns=QTI_NS)
    assessment = ET.SubElement(root, "assessment", ident=ASSESSMENT, title=paper.title)
    section = ET.SubElement(assessment, "section", ident="root_section")
    figures: dict[str, bytes] = {}
    for question in paper.each():
        for item in question.items:  # one item per part of a multi-part question
            section.append(_item(item, figures=figures))
    return _package(root, figures)


def render_versions(papers: list[Paper]) -> bytes:
    """An exam's versions (``--versions N``): one section per question (per part) holding its N versions and
    selecting one of them for each student (``selection_number`` 1: a question group in Canvas, worth the
    question's points, ``points_per_item`` as Canvas itself exports a group)."""
    first = papers[0]
    root = ET.Element("questestinterop", xmlns=QTI_NS)
    title = first.layout.title or f"Exam: {first.selection.describe()}"
    assessment = ET.SubElement(root, "assessment", ident=ASSESSMENT, title=title)
    top = ET.SubElement(assessment, "section", ident="root_section")
    figures: dict[str, bytes] = {}
    for position in range(1, len(first.questions) + 1):
        asked = [(paper, next(q for q in paper.questions if paper.position(q) == position)) for paper in papers]
        for items in zip(*(question.items for _, question in asked), strict=True):
            label = f"Q{position}{items[0].label}"
            group = ET.SubElement(top, "section", ident=f"group_{label}", title=f"{label}. {items[0].instance.title}")
            selection = ET.SubElement(ET.SubElement(group, "selection_ordering"), "selection")
            ET.SubElement(selection, "selection_number").text = "1"
            ET.SubElement(ET.SubElement(selection, "selection_extension"), "points_per_item").text = \
                f"{items[0].instance.points:g}"
            for (paper, _), item in zip(asked, items, strict=True):
                group.append(_item(item, f"{label}{paper.version}", figures))
        first.step()
    return _package(root, figures)


def _package(root: ET.Element, figures: dict[str, bytes]) -> bytes:
    """The zip: the assessment, its figures beside it (``figures/NAME.svg``, as each ``matimage`` names them)
    and the manifest listing them all."""
    entries = [(f"{ASSESSMENT}/{ASSESSMENT}.xml", ET.tostring(root, encoding="utf-8", xml_declaration=True))]
    entries += [(f"{ASSESSMENT}/{FIGURES}/{name}", svg) for name, svg in sorted(figures.items())]
    manifest = _manifest([name for name, _ in entries])
    entries.append(("imsmanifest.xml", ET.tostring(manifest, encoding="utf-8", xml_declaration=True)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for name, content in entries:
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            package.writestr(info, content)
    return buffer.getvalue()


def _manifest(files: list[str]) -> ET.Element:
    manifest = ET.Element("manifest", identifier="quizzer-manifest", xmlns=CP_NS)
    metadata = ET.SubElement(manifest, "metadata")
    ET.SubElement(metadata, "schema").text = "IMS Content"
    ET.SubElement(metadata, "schemaversion").text = "1.1.3"
    ET.SubElement(manifest, "organizations")
    resources = ET.SubElement(manifest, "resources")
    resource = ET.SubElement(resources, "resource", identifier=ASSESSMENT, type="imsqti_xmlv1p2")
    for href in files:
        ET.SubElement(resource, "file", href=href)
    return manifest


def _item(question: Question, ident: str = "", figures: dict[str, bytes] | None = None) -> ET.Element:
    instance = question.instance
    qtype, build = _TYPES[instance.kind]
    item = ET.Element("item", ident=ident or f"q{question.number}{question.label}",
                      title=f"{question.number}{question.label}. {instance.title}")
    fields = ET.SubElement(ET.SubElement(item, "itemmetadata"), "qtimetadata")
    for label, entry in (("question_type", qtype), ("points_possible", f"{instance.points:g}"),
                         ("quizzer_instance", f"{instance.key}@{instance.seed}"
                                              + (f"#{question.label}" if question.label else ""))):
        field = ET.SubElement(fields, "qtimetadatafield")
        ET.SubElement(field, "fieldlabel").text = label
        ET.SubElement(field, "fieldentry").text = entry
    presentation = ET.SubElement(item, "presentation")
    _material(presentation, to_html(instance.prompt + _lettered_steps(instance), math="mathml"),
              _figure(question, "prompt", figures))
    processing = ET.SubElement(item, "resprocessing")
    ET.SubElement(ET.SubElement(processing, "outcomes"), "decvar", maxvalue="100", minvalue="0", varname="SCORE",
                  vartype="Decimal")
    build(question, presentation, processing)
    feedback = ET.SubElement(item, "itemfeedback", ident="general_fb")
    _material(ET.SubElement(feedback, "flow_mat"), to_html(_feedback(question), math="mathml"),
              _figure(question, "solution", figures))
    return item


def _lettered_steps(instance: Instance) -> str:
    """An ordering question's steps under its prompt, each with the letter the student types."""
    if instance.kind != "order":
        return ""
    return "\n\n" + "\n".join(f"- ({option_letter(i)}) {step}" for i, step in enumerate(instance.choices))


def _feedback(question: Question) -> str:
    instance = question.instance
    # A vector or matrix is graded by hand here: how close, and how its marks are shared, as quizzer grades it.
    by_hand = f" (accepted {question.accepted})" if instance.kind in ("vector", "matrix") and question.accepted else ""
    return f"**Answer:** {question.sheet_answer}{by_hand}\n\n{instance.solution}{_IN_CANVAS.get(instance.kind, '')}"


_IN_CANVAS = {  # what Canvas grades differently from quizzer, for the feedback
    "expression": ("\n\n*In Canvas:* the typed text is compared with the answer as written, so an equal "
                   "expression written differently is marked wrong here; `quizzer grade` checks equivalence."),
    "order": ("\n\n*In Canvas:* only the exact order, typed as letters (`c a d b`, `cadb` or `c, a, d, b`), "
              "earns the marks; any other order scores 0. `quizzer grade` gives partial credit by pairs of "
              "steps — (pairs in the right order − pairs inverted) / all pairs, at least 0, and 0 when a pair "
              "the question examines is inverted — which Canvas cannot compute."),
}


def _material(parent: ET.Element, html: str, figure: str = "") -> None:
    material = ET.SubElement(parent, "material")
    ET.SubElement(material, "mattext", texttype="text/html").text = html
    if figure:  # a file of the package, beside the assessment: Canvas's converter makes it an <img>
        ET.SubElement(material, "matimage", imagtype="image/svg+xml", uri=f"{FIGURES}/{figure}")


def _figure(question: Question, where: str, figures: dict[str, bytes] | None) -> str:
    """The name of the question's figure file when it goes ``where`` (and it into ``figures``), else ""."""
    figure = question.instance.figure
    if figure is None or figure.where != where or figures is None:
        return ""
    from quizzer.figures import draw

    svg = draw(figure).encode()
    name = f"figure-{hashlib.sha256(svg).hexdigest()[:12]}.svg"
    figures[name] = svg
    return name


def _condition(processing: ET.Element, score: float, action: str = "Set") -> ET.Element:
    condition = ET.SubElement(processing, "respcondition", attrib={"continue": "Yes" if action == "Add" else "No"})
    variables = ET.SubElement(condition, "conditionvar")
    ET.SubElement(condition, "setvar", action=action, varname="SCORE").text = f"{score:.10g}"
    return variables


def _numerical(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    instance = question.instance
    response = ET.SubElement(presentation, "response_str", ident=RESPONSE, rcardinality="Single")
    ET.SubElement(ET.SubElement(response, "render_fib", fibtype="Decimal"), "response_label", ident="answer1")
    value, tolerance = moodle_center(instance, instance.answer), moodle_tolerance(instance, instance.answer)
    either = ET.SubElement(_condition(processing, 100), "or")
    ET.SubElement(either, "varequal", respident=RESPONSE).text = repr(value)
    within = ET.SubElement(either, "and")
    ET.SubElement(within, "vargte", respident=RESPONSE).text = repr(value - tolerance)
    ET.SubElement(within, "varlte", respident=RESPONSE).text = repr(value + tolerance)


def _choices(question: Question, presentation: ET.Element, options: list[str], multiple: bool) -> list[str]:
    response = ET.SubElement(presentation, "response_lid", ident=RESPONSE,
                             rcardinality="Multiple" if multiple else "Single")
    render_choice = ET.SubElement(response, "render_choice")
    idents = [f"choice{i}" for i in range(len(options))]
    for ident, option in zip(idents, options, strict=True):
        _material(ET.SubElement(render_choice, "response_label", ident=ident), option)
    return idents


def _choice(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    instance = question.instance
    idents = _choices(question, presentation, [to_html_inline(c, math="mathml") for c in instance.choices], False)
    ET.SubElement(_condition(processing, 100), "varequal", respident=RESPONSE).text = idents[int(instance.answer)]


def _true_false(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    idents = _choices(question, presentation, ["True", "False"], False)
    right = idents[0] if question.instance.answer else idents[1]
    ET.SubElement(_condition(processing, 100), "varequal", respident=RESPONSE).text = right


def _select_all(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    instance = question.instance
    idents = _choices(question, presentation, [to_html_inline(c, math="mathml") for c in instance.choices], True)
    right = set(instance.answer)
    share = 100 / len(right)
    for index, ident in enumerate(idents):  # quizzer's select-all rule: ±100/R per option, floored at 0
        variables = _condition(processing, share if index in right else -share, action="Add")
        ET.SubElement(variables, "varequal", respident=RESPONSE).text = ident


def _short_answer(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    response = ET.SubElement(presentation, "response_str", ident=RESPONSE, rcardinality="Single")
    ET.SubElement(ET.SubElement(response, "render_fib"), "response_label", ident="answer1", rshuffle="No")
    variables = _condition(processing, 100)
    for form in written_forms(question.instance):
        ET.SubElement(variables, "varequal", respident=RESPONSE).text = form


def _essay(question: Question, presentation: ET.Element, processing: ET.Element) -> None:
    response = ET.SubElement(presentation, "response_str", ident=RESPONSE, rcardinality="Single")
    ET.SubElement(ET.SubElement(response, "render_fib"), "response_label", ident="answer1", rshuffle="No")
    # Graded by hand: a condition that sets no score, as Canvas writes it (the QTI 1.2 DTD wants at least one
    # respcondition in a resprocessing).
    ET.SubElement(ET.SubElement(ET.SubElement(processing, "respcondition", attrib={"continue": "No"}),
                                "conditionvar"), "other")


_TYPES: dict[str, tuple[str, Callable[[Question, ET.Element, ET.Element], None]]] = {
    "number": ("numerical_question", _numerical), "integer": ("numerical_question", _numerical),
    "choice": ("multiple_choice_question", _choice), "bool": ("true_false_question", _true_false),
    "multi": ("multiple_answers_question", _select_all),
    "shape": ("short_answer_question", _short_answer), "expression": ("short_answer_question", _short_answer),
    "vector": ("essay_question", _essay), "matrix": ("essay_question", _essay), "text": ("essay_question", _essay),
    "order": ("short_answer_question", _short_answer),
}
