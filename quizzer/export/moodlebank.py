"""A Moodle backup's ``questions.xml``: the questions of :mod:`quizzer.export.moodle`, as Moodle's restore reads them.

Every question is written once, by ``moodle.question_xml`` (the Moodle XML a teacher imports); this module reads
that ``<question>`` back and lays its fields out as Moodle 4.5's backup does (``backup_questions_structure_step``
and each ``backup_qtype_*_plugin``): a category tree under the course's ``top``, each question in a question bank
entry and version, its answers, its type's options, its embedded figures as files.  A cloze's blanks become
NUMERICAL subquestions (``parent`` the cloze), its text holds ``{#1}``, ``{#2}``, … where they were, and its
``question_multianswer`` sequence lists them: what Moodle's importer stores (``qtype_multianswer::save_question``).

Ids are small numbers counted from 1 per table; restore gives every record a new id, keeping the links.  The
values written for each option are the ones Moodle's XML importer stores for the same file.
"""

from __future__ import annotations

import base64
import hashlib
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from quizzer.export.document import Question
from quizzer.export.moodle import Category, question_xml
from quizzer.export.moodlecloze import cloze_blanks

NULL = "$@NULL@$"  # how a backup writes a database NULL
TIME = 0  # every time field: the same files for the same command (restore keeps them)
# A question's creator, modifier and owner: a user not in the backup, so restore makes them the teacher who
# restores it.  Not NULL: restore finds a question already in the course by a hash of its fields without these
# three, and leaves a NULL one in (``remove_excluded_question_data`` unsets only a field that is set), so no
# question would match and each restore of the same file would add copies.
NOBODY = 0


@dataclass(frozen=True)
class File:
    """A figure embedded in a question's text or feedback (``@@PLUGINFILE@@/name``)."""

    filearea: str
    question_id: int
    name: str
    content: bytes

    @property
    def sha1(self) -> str:  # Moodle's file pool names a file by the SHA-1 of its content
        return hashlib.sha1(self.content, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Slot:
    """A slot of the quiz: the category it draws from, its question (with versions, every question of the
    category: a random slot), and what it is worth."""

    category_id: int
    question_ids: tuple[int, ...]
    points: float


@dataclass
class QuestionBank:
    """The categories and questions of one backup, with the ids the quiz's slots refer to."""

    context_id: int
    course_id: int
    files: list[File] = field(default_factory=list)
    slots: list[Slot] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._last_id: Counter[str] = Counter()
        self._path_ids: dict[str, int] = {}
        self._entries: dict[int, list[str]] = {}
        self._stamps: dict[int, str] = {}
        self._category("")

    def add(self, path: str, questions: list[tuple[Question, str]], *, versions: bool) -> None:
        """A category (``quizzer/<topic>``, parents made as needed), its questions, and their slots: one per
        question, or (``versions``: the category holds one question's versions) one drawing any of them."""
        category = self._category(path)
        entries = self._entries.setdefault(category, [])
        ids = []
        for item, version in questions:
            element = ET.fromstring(question_xml(item, version=version, shuffle=versions, mark_in_name=False))
            ids.append(self.next_id("question"))
            entries += self._question(element, item, ids[-1], category)
        if versions:
            self.slots.append(Slot(category, tuple(ids), questions[0][0].instance.points))
            # Restore merges a category into one of the course's with the same stamp: an exam's must not merge
            # with another exam's of the same title, or a slot would draw the other exam's versions too.
            self._stamps[category] = _digest(path + "".join(f"\n{item.instance.key}@{item.instance.seed}"
                                                            for item, _ in questions))
        else:
            self.slots += [Slot(category, (question_id,), item.instance.points)
                           for question_id, (item, _) in zip(ids, questions, strict=True)]

    @property
    def category_ids(self) -> list[int]:
        return list(self._path_ids.values())

    def xml(self) -> bytes:
        parts = ['<?xml version="1.0" encoding="UTF-8"?>', "<question_categories>"]
        for path, category_id in self._path_ids.items():
            parent = self._path_ids[path.rpartition("/")[0]] if "/" in path else self._path_ids[""] if path else 0
            name = path.rpartition("/")[2] if path else "top"
            stamp = self._stamps.get(category_id, _digest(path))
            parts += [f'<question_category id="{category_id}">', el("name", name), el("contextid", self.context_id),
                      el("contextlevel", 50), el("contextinstanceid", self.course_id), el("info", ""),
                      el("infoformat", 0), el("stamp", f"quizzer+{stamp}"), el("parent", parent),
                      el("sortorder", 0 if not path else 999), el("idnumber", NULL), "<question_bank_entries>",
                      *self._entries.get(category_id, []), "</question_bank_entries>", "</question_category>"]
        parts.append("</question_categories>\n")
        return "\n".join(parts).encode()

    def _category(self, path: str) -> int:
        if path not in self._path_ids:
            if path:
                self._category(path.rpartition("/")[0] if "/" in path else "")
            self._path_ids[path] = self.next_id("category")
        return self._path_ids[path]

    def next_id(self, table: str) -> int:
        """The next id in a table (restore gives every record a new one, keeping the links)."""
        self._last_id[table] += 1
        return self._last_id[table]

    def _question(self, element: ET.Element, item: Question, question_id: int, category: int) -> list[str]:
        """The question's bank entry (and, for a cloze, one per blank after it)."""
        qtype = element.get("type", "")
        text = self._text(element, "questiontext", question_id)
        fields = {"name": _text_of(element, "name"), "generalfeedback": self._text(element, "generalfeedback",
                                                                                    question_id),
                  "defaultmark": element.findtext("defaultgrade", "1"), "penalty": element.findtext("penalty", "0")}
        if qtype != "cloze":
            plugin = _PLUGINS[qtype](self, element)
            return [self._entry(question_id, 0, category, element.findtext("idnumber") or NULL,
                                qtype, text, fields, plugin)]
        blanks = cloze_blanks(item.instance)
        sub_ids = [self.next_id("question") for _ in blanks]
        for number, blank in enumerate(blanks, start=1):
            text = text.replace(blank.syntax(), f"{{#{number}}}", 1)
        fields["defaultmark"] = str(sum(blank.weight for blank in blanks))  # what Moodle computes for a cloze
        plugin = ["<plugin_qtype_multianswer_question>", "<answers>", "</answers>",
                  f'<multianswer id="{self.next_id("multianswer")}">', el("question", question_id),
                  el("sequence", ",".join(map(str, sub_ids))), "</multianswer>", "</plugin_qtype_multianswer_question>"]
        entries = [self._entry(question_id, 0, category, element.findtext("idnumber") or NULL, "multianswer", text,
                               fields, plugin)]
        for sub_id, blank in zip(sub_ids, blanks, strict=True):
            sub = {"name": fields["name"], "generalfeedback": "", "defaultmark": str(blank.weight), "penalty": "0"}
            entries.append(self._entry(sub_id, question_id, category, NULL, "numerical", blank.syntax(), sub,
                                       self.numerical(list(blank.answers), unit_penalty="1")))
        return entries

    def _entry(self, question_id: int, parent: int, category: int, idnumber: str, qtype: str, text: str,
               fields: dict[str, str], plugin: list[str]) -> str:
        question = [f'<question id="{question_id}">', el("parent", parent), el("name", fields["name"]),
                    el("questiontext", text), el("questiontextformat", 1),
                    el("generalfeedback", fields["generalfeedback"]), el("generalfeedbackformat", 1),
                    el("defaultmark", fields["defaultmark"]), el("penalty", fields["penalty"]), el("qtype", qtype),
                    el("length", 1), el("stamp", f"quizzer+{question_id}+{_digest(text)}"),
                    el("timecreated", TIME), el("timemodified", TIME), el("createdby", NOBODY),
                    el("modifiedby", NOBODY), *plugin, *_QBANK_PLUGINS, "<question_hints>", "</question_hints>",
                    "<tags>", "</tags>",
                    "</question>"]
        return "\n".join([f'<question_bank_entry id="{question_id}">', el("questioncategoryid", category),
                          el("idnumber", idnumber), el("ownerid", NOBODY), "<question_version>",
                          f'<question_versions id="{question_id}">', el("version", 1), el("status", "ready"),
                          "<questions>", *question, "</questions>", "</question_versions>", "</question_version>",
                          "</question_bank_entry>"])

    def _text(self, element: ET.Element, where: str, question_id: int) -> str:
        """A text's HTML, its embedded files kept for ``files.xml``."""
        holder = element.find(where)
        if holder is None:
            return ""
        for embedded in holder.findall("file"):
            self.files.append(File(where, question_id, embedded.get("name", ""), base64.b64decode(embedded.text or "")))
        return holder.findtext("text") or ""

    def answer_rows(self, answers: list[tuple[float, str, str, str]], *, answer_format: int,
                     feedback_format: int = 1, fraction: Callable[[float], str] | None = None
                     ) -> tuple[list[str], list[int]]:
        rows, ids = ["<answers>"], []
        for percent, text, feedback, _ in answers:
            answer_id = self.next_id("answer")
            ids.append(answer_id)
            rows += [f'<answer id="{answer_id}">', el("answertext", text), el("answerformat", answer_format),
                     el("fraction", fraction(percent) if fraction else f"{percent / 100:.7f}"),
                     el("feedback", feedback), el("feedbackformat", feedback_format), "</answer>"]
        return rows + ["</answers>"], ids

    def numerical(self, answers: list[tuple[float, str, str, str]], unit_penalty: str = "0.1") -> list[str]:
        rows, ids = self.answer_rows(answers, answer_format=0)
        records = [f'<numerical_record id="{self.next_id("numerical_record")}">{el("answer", answer_id)}'
                   f'{el("tolerance", tolerance or "0")}</numerical_record>'
                   for answer_id, (_, _, _, tolerance) in zip(ids, answers, strict=True)]
        return ["<plugin_qtype_numerical_question>", *rows, "<numerical_units>", "</numerical_units>",
                "<numerical_options>", f'<numerical_option id="{self.next_id("numerical_option")}">',
                el("showunits", 3), el("unitsleft", 0), el("unitgradingtype", 0), el("unitpenalty", unit_penalty),
                "</numerical_option>", "</numerical_options>", "<numerical_records>", *records,
                "</numerical_records>", "</plugin_qtype_numerical_question>"]


def _numerical(bank: QuestionBank, element: ET.Element) -> list[str]:
    return bank.numerical(answers_of(element))


def _shortanswer(bank: QuestionBank, element: ET.Element) -> list[str]:
    rows, _ = bank.answer_rows(answers_of(element), answer_format=0)
    return ["<plugin_qtype_shortanswer_question>", *rows, f'<shortanswer id="{bank.next_id("shortanswer")}">',
            el("usecase", element.findtext("usecase", "0")), "</shortanswer>", "</plugin_qtype_shortanswer_question>"]


def _multichoice(bank: QuestionBank, element: ET.Element) -> list[str]:
    rows, _ = bank.answer_rows(answers_of(element), answer_format=1)
    options = [el("layout", 0), el("single", int(element.findtext("single") == "true")),
               el("shuffleanswers", element.findtext("shuffleanswers", "0")), *_combined_feedback(),
               el("answernumbering", element.findtext("answernumbering", "abc")), el("shownumcorrect", 0),
               el("showstandardinstruction", 1)]
    return ["<plugin_qtype_multichoice_question>", *rows, f'<multichoice id="{bank.next_id("multichoice")}">', *options,
            "</multichoice>", "</plugin_qtype_multichoice_question>"]


def _truefalse(bank: QuestionBank, element: ET.Element) -> list[str]:
    answers = [(percent, "True" if text == "true" else "False", feedback, tolerance)
               for percent, text, feedback, tolerance in answers_of(element)]
    rows, ids = bank.answer_rows(answers, answer_format=0)
    true_id, false_id = (ids[0], ids[1]) if answers[0][1] == "True" else (ids[1], ids[0])
    return ["<plugin_qtype_truefalse_question>", *rows, f'<truefalse id="{bank.next_id("truefalse")}">',
            el("trueanswer", true_id), el("falseanswer", false_id), el("showstandardinstruction", 0),
            "</truefalse>", "</plugin_qtype_truefalse_question>"]


def _essay(bank: QuestionBank, element: ET.Element) -> list[str]:
    return ["<plugin_qtype_essay_question>", f'<essay id="{bank.next_id("essay")}">',
            el("responseformat", element.findtext("responseformat", "editor")),
            el("responserequired", element.findtext("responserequired", "1")),
            el("responsefieldlines", element.findtext("responsefieldlines", "10")), el("minwordlimit", NULL),
            el("maxwordlimit", NULL), el("attachments", 0), el("attachmentsrequired", 0),
            el("graderinfo", element.findtext("graderinfo/text") or ""), el("graderinfoformat", 1),
            el("responsetemplate", ""), el("responsetemplateformat", 1), el("filetypeslist", NULL),
            el("maxbytes", 0), "</essay>", "</plugin_qtype_essay_question>"]


# qtype_ordering's constants for the settings moodle.py writes (question/type/ordering/question.php).
_ORDERING = {"layouttype": {"VERTICAL": 0}, "selecttype": {"ALL": 0}, "gradingtype": {"ALL_OR_NOTHING": -1},
             "showgrading": {"HIDE": 0}}


def _ordering(bank: QuestionBank, element: ET.Element) -> list[str]:
    # An ordering answer's fraction is its place in the right order, kept as it is.
    rows, _ = bank.answer_rows(answers_of(element), answer_format=1, feedback_format=0,
                                fraction=lambda place: f"{place:.7f}")
    options = [el(name, codes[element.findtext(name, "")]) for name, codes in _ORDERING.items()]
    return ["<plugin_qtype_ordering_question>", *rows, f'<ordering id="{bank.next_id("ordering")}">', *options[:2],
            el("selectcount", element.findtext("selectcount", "0")), *options[2:],
            el("numberingstyle", element.findtext("numberingstyle", "none")), *_combined_feedback(),
            el("shownumcorrect", element.findtext("shownumcorrect", "1")), "</ordering>",
            "</plugin_qtype_ordering_question>"]


# What Moodle's backup writes of the question bank's own plugins for a question with no comments and no custom
# fields.
_QBANK_PLUGINS = ("<plugin_qbank_comment_question>", "<comments>", "</comments>", "</plugin_qbank_comment_question>",
                  "<plugin_qbank_customfields_question>", "<customfields>", "</customfields>",
                  "</plugin_qbank_customfields_question>")


def _combined_feedback() -> list[str]:
    return [el(f"{kind}feedback{suffix}", value) for kind in ("correct", "partiallycorrect", "incorrect")
            for suffix, value in (("", ""), ("format", 1))]


_PLUGINS: dict[str, Callable[[QuestionBank, ET.Element], list[str]]] = {
    "numerical": _numerical, "shortanswer": _shortanswer, "multichoice": _multichoice, "truefalse": _truefalse,
    "essay": _essay, "ordering": _ordering,
}


def answers_of(element: ET.Element) -> list[tuple[float, str, str, str]]:
    """A Moodle XML question's answers: (percent, text, feedback, tolerance)."""
    return [(float(answer.get("fraction", "0")), answer.findtext("text") or "",
             answer.findtext("feedback/text") or "", answer.findtext("tolerance") or "")
            for answer in element.findall("answer")]


def el(tag: str, value: object) -> str:
    """``<tag>value</tag>``, escaped as the Moodle XML writer escapes."""
    return f"<{tag}>{escape(str(value))}</{tag}>"


def _text_of(element: ET.Element, tag: str) -> str:
    return element.findtext(f"{tag}/text") or ""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def bank_of(categories: list[Category], *, context_id: int, course_id: int, versions: bool) -> QuestionBank:
    """The backup's question bank from :mod:`quizzer.export.moodle`'s categories."""
    bank = QuestionBank(context_id=context_id, course_id=course_id)
    for path, questions in categories:
        bank.add(path, questions, versions=versions)
    return bank
