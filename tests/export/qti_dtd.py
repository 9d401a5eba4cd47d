"""The IMS QTI 1.2 DTD's content models for the elements quizzer's package uses, checked element by element.

No package registry ships the DTD (so lxml cannot load it in CI); these models are copied verbatim from
``ims_qtiasiv1p2.dtd`` (as shipped in Canvas's QTIMigrationTool, schemas/), with the attributes each element
must have.  An element the DTD has but that is not listed here fails the check: add its model from the DTD."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

_CONDITIONS = ("not | and | or | unanswered | other | varequal | varlt | varlte | vargt | vargte | varsubset | "
               "varinside | varsubstring | durequal | durlt | durlte | durgt | durgte")
MODELS = {
    "questestinterop": "(qticomment? , (objectbank | assessment | (section | item)+))",
    "assessment": "(qticomment? , duration? , qtimetadata* , objectives* , assessmentcontrol* , rubric* , "
                  "presentation_material? , outcomes_processing* , assessproc_extension? , assessfeedback* , "
                  "selection_ordering? , reference? , (sectionref | section)+)",
    "section": "(qticomment? , duration? , qtimetadata* , objectives* , sectioncontrol* , sectionprecondition* , "
               "sectionpostcondition* , rubric* , presentation_material? , outcomes_processing* , "
               "sectionproc_extension? , sectionfeedback* , selection_ordering? , reference? , "
               "(itemref | item | sectionref | section)*)",
    "selection_ordering": "(qticomment? , sequence_parameter? , selection* , order?)",
    "selection": "(sourcebank_ref? , selection_number? , selection_metadata? , "
                 "(and_selection | or_selection | not_selection | selection_extension)?)",
    "selection_number": "(#PCDATA)",
    "selection_extension": "ANY",
    "item": "(qticomment? , duration? , itemmetadata? , objectives* , itemcontrol* , itemprecondition* , "
            "itempostcondition* , (itemrubric | rubric)* , presentation? , resprocessing* , itemproc_extension? , "
            "itemfeedback* , reference?)",
    "itemmetadata": "(qtimetadata* , qmd_computerscored? , qmd_feedbackpermitted? , qmd_hintspermitted? , "
                    "qmd_itemtype? , qmd_levelofdifficulty? , qmd_maximumscore? , qmd_renderingtype* , "
                    "qmd_responsetype* , qmd_scoringpermitted? , qmd_solutionspermitted? , qmd_status? , "
                    "qmd_timedependence? , qmd_timelimit? , qmd_toolvendor? , qmd_topic? , qmd_weighting? , "
                    "qmd_material* , qmd_typeofsolution?)",
    "qtimetadata": "(vocabulary? , qtimetadatafield+)",
    "qtimetadatafield": "(fieldlabel , fieldentry)",
    "fieldlabel": "(#PCDATA)",
    "fieldentry": "(#PCDATA)",
    "presentation": "(qticomment? , (flow | (material | response_lid | response_xy | response_str | response_num | "
                    "response_grp | response_extension)+))",
    "response_str": "((material | material_ref)? , (render_choice | render_hotspot | render_slider | render_fib | "
                    "render_extension) , (material | material_ref)?)",
    "response_lid": "((material | material_ref)? , (render_choice | render_hotspot | render_slider | render_fib | "
                    "render_extension) , (material | material_ref)?)",
    "render_fib": "((material | material_ref | response_label | flow_label)* , response_na?)",
    "render_choice": "((material | material_ref | response_label | flow_label)* , response_na?)",
    "response_label": "(#PCDATA | qticomment | material | material_ref | flow_mat)*",
    "material": "(qticomment? , (mattext | matemtext | matimage | mataudio | matvideo | matapplet | matapplication | "
                "matref | matbreak | mat_extension)+ , altmaterial*)",
    "mattext": "(#PCDATA)",
    "matimage": "(#PCDATA)",
    "resprocessing": "(qticomment? , outcomes , (respcondition | itemproc_extension)+)",
    "outcomes": "(qticomment? , (decvar , interpretvar*)+)",
    "decvar": "(#PCDATA)",
    "respcondition": "(qticomment? , conditionvar , setvar* , displayfeedback* , respcond_extension?)",
    "conditionvar": f"({_CONDITIONS} | var_extension)+",
    "setvar": "(#PCDATA)",
    "varequal": "(#PCDATA)",
    "vargte": "(#PCDATA)",
    "varlte": "(#PCDATA)",
    "and": f"({_CONDITIONS})+",
    "or": f"({_CONDITIONS})+",
    "not": f"({_CONDITIONS})",
    "other": "(#PCDATA)",
    "itemfeedback": "((flow_mat | material) | solution | hint)+",
    "flow_mat": "(flow_mat | material | material_ref)+",
}
REQUIRED = {"assessment": ("ident",), "section": ("ident",), "item": ("ident",), "response_label": ("ident",),
            "response_str": ("ident",), "response_lid": ("ident",), "itemfeedback": ("ident",),
            "decvar": (), "setvar": (), "varequal": ("respident",), "vargte": ("respident",),
            "varlte": ("respident",)}


def _regex(model: str) -> re.Pattern[str] | None:
    """A content model as a regular expression over the children's names, each written ``<name>``."""
    if model == "ANY":
        return None
    text = re.sub(r"[A-Za-z_][\w.]*", lambda m: f"(?:<{m[0]}>)", model.replace("#PCDATA", "PCDATA"))
    text = text.replace(",", "").replace(" ", "").replace("(?:<PCDATA>)", "")
    text = re.sub(r"\((?!\?)", "(?:", text)
    return re.compile(f"^{text}$")


def check(element: ET.Element, path: str = "") -> list[str]:
    """Every way ``element`` and what it holds break the models: empty when they are valid."""
    name = element.tag.split("}")[-1]
    where = f"{path}/{name}"
    if name not in MODELS:
        return [f"{where}: no content model listed for <{name}>"]
    model = MODELS[name]
    problems = [f"{where}: missing attribute {attribute}" for attribute in REQUIRED.get(name, ())
                if element.get(attribute) is None]
    pattern = _regex(model)
    if pattern is not None:
        children = "".join(f"<{child.tag.split('}')[-1]}>" for child in element)
        if model == "(#PCDATA)" and children:
            problems.append(f"{where}: holds elements where the DTD allows text only")
        elif model != "(#PCDATA)" and not pattern.match(children):
            problems.append(f"{where}: children {children or '(none)'} do not match {model}")
        for child in element:
            problems += check(child, where)
    return problems
