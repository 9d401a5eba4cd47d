"""A Moodle course backup (``.mbz``) holding one quiz: the way to give every question its points in Moodle.

Moodle XML cannot: Moodle marks a cloze out of the sum of its blanks' whole-number weights and ignores
``<defaultgrade>`` (``moodlecloze.blank_weight``), and a random question's slot starts at 1 mark.  A quiz in a
backup carries each slot's maximum mark (``quiz_slots.maxmark``), which Moodle multiplies the question's
score by: here it is the question's points, so every question is worth its points and the quiz's total
(``sumgrades``, and its maximum grade) is the paper's.  The teacher restores the file (the course's
*Restore*, or ``admin/cli/restore_backup.php``) into a new course or merges it into one.

The questions are :mod:`quizzer.export.moodle`'s, laid out by :mod:`quizzer.export.moodlebank`: the bank in
one category per topic and a slot per question (a slot per part of a multi-part question); an exam's versions
(``--versions N``) in one category per question, as the Moodle XML files them, and one random slot drawing
from it, worth the question's points.

The archive is what Moodle 4.5's backup writes (``backup/moodle2``: ``moodle_backup.xml``, the course, its
first section, the quiz activity, ``questions.xml``, ``files.xml`` and the file pool), with every setting off
but activities, files and the question bank: no users, logs or grades.  The standard library writes it
(``tarfile`` + ``gzip``, as Moodle's ``tgz_packer``), with fixed times so the same command writes the same bytes.
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile

from quizzer.export.document import Paper, Section
from quizzer.export.moodle import Category, topic_categories, version_categories
from quizzer.export.moodlebank import NULL, TIME, QuestionBank, bank_of, el
from quizzer.export.moodlenumbers import number_text
from quizzer.export.richtext import to_html

BACKUP_VERSION = "2024100700"  # Moodle 4.5's backup format (backup/backup.class.php)
COURSE_ID, SECTION_ID, MODULE_ID, QUIZ_ID = 1, 1, 1, 1
COURSE_CONTEXT, MODULE_CONTEXT = 2, 3
ACTIVITY = f"quiz_{MODULE_ID}"
SECTION = f"section_{SECTION_ID}"
# The backup's settings: only the quiz and its questions, nothing of users (restore reads these to plan).
ROOT_SETTINGS = {"filename": "quizzer.mbz", "imscc11": 0, "users": 0, "anonymize": 0, "role_assignments": 0,
                 "activities": 1, "blocks": 0, "files": 1, "filters": 0, "comments": 0, "badges": 0,
                 "calendarevents": 0, "userscompletion": 0, "logs": 0, "grade_histories": 0, "questionbank": 1,
                 "groups": 0, "competencies": 0, "customfield": 0, "contentbankcontent": 0, "xapistate": 0,
                 "legacyfiles": 0}


def render(paper: Paper, sections: tuple[Section, ...]) -> bytes:
    del sections  # a quiz holds questions and answers together
    return _backup(paper, topic_categories(paper), versions=False)


def render_versions(papers: list[Paper]) -> bytes:
    """An exam's versions: a category per question holding its versions, a random slot per category."""
    return _backup(papers[0], version_categories(papers), versions=True)


def _backup(paper: Paper, categories: list[Category], *, versions: bool) -> bytes:
    bank = bank_of(categories, context_id=COURSE_CONTEXT, course_id=COURSE_ID, versions=versions)
    title = paper.layout.title or ("Exam: " if versions else "Quiz: ") + paper.selection.describe()
    total = sum(slot.points for slot in bank.slots)
    files = {
        "moodle_backup.xml": _moodle_backup(title),
        "questions.xml": bank.xml(),
        "files.xml": _files_xml(bank),
        "course/course.xml": _course(title),
        "course/inforef.xml": _inforef(bank),
        "sections/" + SECTION + "/section.xml": _xml(f'<section id="{SECTION_ID}">', el("number", 0),
                                                     el("name", NULL), el("summary", ""), el("summaryformat", 1),
                                                     el("sequence", MODULE_ID), el("visible", 1),
                                                     el("availabilityjson", NULL), el("component", NULL),
                                                     el("itemid", NULL), el("timemodified", TIME), "</section>"),
        "sections/" + SECTION + "/inforef.xml": _xml("<inforef>", "</inforef>"),
        f"activities/{ACTIVITY}/module.xml": _module(),
        f"activities/{ACTIVITY}/quiz.xml": _quiz(bank, title, paper.layout.instructions, total),
        f"activities/{ACTIVITY}/inforef.xml": _inforef(bank, grade_item=True),
        f"activities/{ACTIVITY}/grades.xml": _grades(title, total),
        "gradebook.xml": _gradebook(total),
    }
    files.update({name: _xml(f"<{root}>", f"</{root}>") for name, root in _EMPTY.items()})
    pool = {f"files/{file.sha1[:2]}/{file.sha1}": file.content for file in bank.files}
    return _archive({**files, **pool})


# The other files Moodle's backup writes, empty here (nothing of users, groups, roles, badges …).
_EMPTY = {"groups.xml": "groups", "roles.xml": "roles_definition", "scales.xml": "scales_definition",
          "outcomes.xml": "outcomes_definition", "completion.xml": "course_completion", "badges.xml": "badges",
          "users.xml": "users", "grade_history.xml": "grade_history", "course/roles.xml": "roles",
          "course/calendar.xml": "events", "course/comments.xml": "comments", "course/filters.xml": "filters",
          "course/completiondefaults.xml": "course_completion_defaults", "course/contentbank.xml": "contents",
          "course/competencies.xml": "course_competencies", "course/enrolments.xml": "enrolments",
          f"activities/{ACTIVITY}/roles.xml": "roles", f"activities/{ACTIVITY}/calendar.xml": "events",
          f"activities/{ACTIVITY}/comments.xml": "comments", f"activities/{ACTIVITY}/filters.xml": "filters",
          f"activities/{ACTIVITY}/completion.xml": "completions",
          f"activities/{ACTIVITY}/competencies.xml": "course_module_competencies",
          f"activities/{ACTIVITY}/grade_history.xml": "grade_history",
          f"activities/{ACTIVITY}/xapistate.xml": "states"}


def _moodle_backup(title: str) -> bytes:
    settings = [_setting("root", name, value) for name, value in ROOT_SETTINGS.items()]
    settings += [_setting("section", f"{SECTION}_{what}", value, section=SECTION)
                 for what, value in (("included", 1), ("userinfo", 0))]
    settings += [_setting("activity", f"{ACTIVITY}_{what}", value, activity=ACTIVITY)
                 for what, value in (("included", 1), ("userinfo", 0))]
    return _xml("<moodle_backup>", "<information>", el("name", "quizzer.mbz"), el("moodle_version", "2024100706"),
                el("moodle_release", "4.5.6 (Build: 20250811)"), el("backup_version", BACKUP_VERSION),
                el("backup_release", "4.5"), el("backup_date", TIME), el("mnet_remoteusers", 0),
                el("include_files", 1), el("include_file_references_to_external_content", 0),
                el("original_wwwroot", "https://quizzer.invalid"),
                el("original_site_identifier_hash", "quizzer"), el("original_course_id", COURSE_ID),
                el("original_course_format", "topics"), el("original_course_fullname", title),
                el("original_course_shortname", "quizzer"), el("original_course_startdate", TIME),
                el("original_course_enddate", 0), el("original_course_contextid", COURSE_CONTEXT),
                el("original_system_contextid", 1), "<details>", '<detail backup_id="quizzer">',
                el("type", "course"), el("format", "moodle2"), el("interactive", 1), el("mode", 10),
                el("execution", 1), el("executiontime", 0), "</detail>", "</details>", "<contents>",
                "<activities>", "<activity>", el("moduleid", MODULE_ID), el("sectionid", SECTION_ID),
                el("modulename", "quiz"), el("title", title), el("directory", f"activities/{ACTIVITY}"),
                el("insubsection", ""), "</activity>", "</activities>", "<sections>", "<section>",
                el("sectionid", SECTION_ID), el("title", 0), el("directory", f"sections/{SECTION}"),
                el("parentcmid", ""), el("modname", ""), "</section>", "</sections>", "<course>",
                el("courseid", COURSE_ID), el("title", "quizzer"), el("directory", "course"), "</course>",
                "</contents>", "<settings>", *settings, "</settings>", "</information>", "</moodle_backup>")


def _setting(level: str, name: str, value: object, **where: str) -> str:
    return "".join(["<setting>", el("level", level), *(el(key, text) for key, text in where.items()),
                    el("name", name), el("value", value), "</setting>"])


def _course(title: str) -> bytes:
    fields = {"shortname": "quizzer", "fullname": title, "idnumber": "", "summary": NULL, "summaryformat": 0,
              "format": "topics", "showgrades": 1, "newsitems": 0, "startdate": TIME, "enddate": 0, "marker": 0,
              "maxbytes": 0, "legacyfiles": 0, "showreports": 0, "visible": 1, "groupmode": 0, "groupmodeforce": 0,
              "defaultgroupingid": 0, "lang": "", "theme": "", "timecreated": TIME, "timemodified": TIME,
              "requested": 0, "showactivitydates": 0, "showcompletionconditions": 1, "pdfexportfont": NULL,
              "enablecompletion": 0, "completionnotify": 0}
    return _xml(f'<course id="{COURSE_ID}" contextid="{COURSE_CONTEXT}">', *(el(k, v) for k, v in fields.items()),
                '<category id="1">', el("name", "Miscellaneous"), el("description", NULL), "</category>",
                "<tags>", "</tags>", "<customfields>", "</customfields>", "<courseformatoptions>",
                "</courseformatoptions>", "</course>")


def _inforef(bank: QuestionBank, *, grade_item: bool = False) -> bytes:
    categories = [f"<question_category>{el('id', category)}</question_category>" for category in bank.category_ids]
    grades = ["<grade_itemref>", f"<grade_item>{el('id', 2)}</grade_item>", "</grade_itemref>"] if grade_item else []
    return _xml("<inforef>", *grades, "<question_categoryref>", *categories, "</question_categoryref>", "</inforef>")


def _module() -> bytes:
    fields = {"modulename": "quiz", "sectionid": SECTION_ID, "sectionnumber": 0, "idnumber": "", "added": TIME,
              "score": 0, "indent": 0, "visible": 1, "visibleoncoursepage": 1, "visibleold": 1, "groupmode": 0,
              "groupingid": 0, "completion": 0, "completiongradeitemnumber": NULL, "completionpassgrade": 0,
              "completionview": 0, "completionexpected": 0, "availability": NULL, "showdescription": 0,
              "downloadcontent": 1, "lang": NULL}
    return _xml(f'<module id="{MODULE_ID}" version="{BACKUP_VERSION}">', *(el(k, v) for k, v in fields.items()),
                "<tags>", "</tags>", "</module>")


def _quiz(bank: QuestionBank, title: str, instructions: str, total: float) -> bytes:
    review = 69904  # every review option after the attempt, as Moodle's default quiz
    fields = {"name": title, "intro": to_html(instructions, math="mathjax") if instructions else "", "introformat": 1,
              "timeopen": 0, "timeclose": 0, "timelimit": 0, "overduehandling": "autosubmit", "graceperiod": 0,
              "preferredbehaviour": "deferredfeedback", "canredoquestions": 0, "attempts_number": 0,
              "attemptonlast": 0, "grademethod": 1, "decimalpoints": 2, "questiondecimalpoints": -1,
              **{f"review{what}": review for what in ("attempt", "correctness", "maxmarks", "marks",
                                                       "specificfeedback", "generalfeedback", "rightanswer")},
              "reviewoverallfeedback": 4368, "questionsperpage": 1, "navmethod": "free", "shuffleanswers": 1,
              "sumgrades": number_text(total), "grade": number_text(total), "timecreated": TIME,
              "timemodified": TIME, "password": "", "subnet": "", "browsersecurity": "-", "delay1": 0, "delay2": 0,
              "showuserpicture": 0, "showblocks": 0, "completionattemptsexhausted": 0, "completionminattempts": 0,
              "allowofflineattempts": 0}
    slots = [_slot(number, slot.points, slot.question_ids, slot.category_id)
             for number, slot in enumerate(bank.slots, start=1)]
    return _xml(f'<activity id="{QUIZ_ID}" moduleid="{MODULE_ID}" modulename="quiz" contextid="{MODULE_CONTEXT}">',
                f'<quiz id="{QUIZ_ID}">', *(el(k, v) for k, v in fields.items()),
                "<subplugin_quizaccess_seb_quiz>", "</subplugin_quizaccess_seb_quiz>",
                "<quiz_grade_items>", "</quiz_grade_items>", "<question_instances>", *slots, "</question_instances>",
                "<sections>", '<section id="1">', el("firstslot", 1), el("heading", ""),
                el("shufflequestions", 0), "</section>", "</sections>", "<feedbacks>", "</feedbacks>",
                "<overrides>", "</overrides>", "<grades>", "</grades>", "<attempts>", "</attempts>", "</quiz>",
                "</activity>")


def _slot(number: int, points: float, question_ids: tuple[int, ...], category_id: int) -> str:
    """A slot worth ``points``: its one question, or (versions) a random question from its category."""
    if len(question_ids) == 1:
        reference = [f'<question_reference id="{number}">', el("usingcontextid", MODULE_CONTEXT),
                     el("component", "mod_quiz"), el("questionarea", "slot"),
                     el("questionbankentryid", question_ids[0]), el("version", NULL), "</question_reference>"]
    else:
        condition = {"filter": {"category": {"jointype": 1, "values": [str(category_id)],
                                             "filteroptions": {"includesubcategories": False}}}}
        reference = [f'<question_set_reference id="{number}">', el("usingcontextid", MODULE_CONTEXT),
                     el("component", "mod_quiz"), el("questionarea", "slot"),
                     el("questionscontextid", COURSE_CONTEXT),
                     el("filtercondition", json.dumps(condition, separators=(",", ":"))), "</question_set_reference>"]
    return "\n".join([f'<question_instance id="{number}">', el("quizid", QUIZ_ID), el("slot", number),
                      el("page", number), el("displaynumber", NULL), el("requireprevious", 0),
                      el("maxmark", f"{points:.7f}"), el("quizgradeitemid", NULL), *reference,
                      "</question_instance>"])


def _grade_item(item_id: int, total: float, **fields: object) -> list[str]:
    values = {"categoryid": NULL, "itemname": NULL, "itemtype": "course", "itemmodule": NULL, "iteminstance": 1,
              "itemnumber": NULL, **fields, "iteminfo": NULL, "idnumber": NULL, "calculation": NULL, "gradetype": 1,
              "grademax": f"{total:.5f}", "grademin": "0.00000", "scaleid": NULL, "outcomeid": NULL,
              "gradepass": "0.00000", "multfactor": "1.00000", "plusfactor": "0.00000", "aggregationcoef": "0.00000",
              "aggregationcoef2": "1.00000", "weightoverride": 0, "sortorder": item_id, "display": 0,
              "decimals": NULL, "hidden": 0, "locked": 0, "locktime": 0, "needsupdate": 0, "timecreated": TIME,
              "timemodified": TIME}
    return [f'<grade_item id="{item_id}">', *(el(k, v) for k, v in values.items()), "<grade_grades>",
            "</grade_grades>", "</grade_item>"]


def _grades(title: str, total: float) -> bytes:
    item = _grade_item(2, total, categoryid=1, itemname=title, itemtype="mod", itemmodule="quiz",
                       iteminstance=QUIZ_ID, itemnumber=0)
    return _xml("<activity_gradebook>", "<grade_items>", *item, "</grade_items>", "<grade_letters>",
                "</grade_letters>", "</activity_gradebook>")


def _gradebook(total: float) -> bytes:
    category = ['<grade_category id="1">', el("parent", NULL), el("depth", 1), el("path", "/1/"),
                el("fullname", "?"), el("aggregation", 13), el("keephigh", 0), el("droplow", 0),
                el("aggregateonlygraded", 1), el("aggregateoutcomes", 0), el("timecreated", TIME),
                el("timemodified", TIME), el("hidden", 0), "</grade_category>"]
    return _xml("<gradebook>", "<attributes>", "</attributes>", "<grade_categories>", *category,
                "</grade_categories>", "<grade_items>", *_grade_item(1, total), "</grade_items>",
                "<grade_letters>", "</grade_letters>", "<grade_settings>", "</grade_settings>", "</gradebook>")


def _files_xml(bank: QuestionBank) -> bytes:
    rows = []
    for number, file in enumerate(bank.files, start=1):
        fields = {"contenthash": file.sha1, "contextid": COURSE_CONTEXT, "component": "question",
                  "filearea": file.filearea, "itemid": file.question_id, "filepath": "/", "filename": file.name,
                  "userid": NULL, "filesize": len(file.content), "mimetype": "image/svg+xml", "status": 0,
                  "timecreated": TIME, "timemodified": TIME, "source": NULL, "author": NULL, "license": NULL,
                  "sortorder": 0, "repositorytype": NULL, "repositoryid": NULL, "reference": NULL}
        rows += [f'<file id="{number}">', *(el(k, v) for k, v in fields.items()), "</file>"]
    return _xml("<files>", *rows, "</files>")


def _archive(files: dict[str, bytes]) -> bytes:
    """A gzipped tar, as Moodle's ``tgz_packer`` writes it: ``.ARCHIVE_INDEX`` first (the listing the restore
    page shows), then every file, all dated ``TIME``."""
    names = sorted(files)
    index = f"Moodle archive file index. Count: {len(names)}\n" + "".join(
        f"{name}\tf\t{len(files[name])}\t{TIME}\n" for name in names)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, content in [(".ARCHIVE_INDEX", index.encode()), *((name, files[name]) for name in names)]:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(content), TIME, 0o644
            tar.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue(), mtime=TIME)


def _xml(*lines: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + "\n".join(lines) + "\n").encode()
