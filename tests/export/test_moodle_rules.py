"""Moodle XML against the import and grading rules of Moodle that matter here: wildcards in short
answers, true/false answers, marks, the shown correct answer, exact token ids, masks graded all or nothing,
entries a prompt gives away, embedded figures; the ordering importer's hint rows; a cloze's marks, from its
blanks' weights, as Moodle computes them (``moodle_cloze``)."""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from quizzer.grading.verdict import grade
from tests.bundled_templates import instance
from tests.cli_runner import run
from tests.export import moodle_cloze
from tests.export.clients import moodle_shortanswer_matches
from tests.export.moodle_engine import SAYS_TRANSPOSED, transposed
from tests.export.moodle_ordering import imported_hints

FIGURE_IN_PROMPT = "2024T1_ET_FN Q212"
FIGURE_IN_SOLUTION = "practice/warmup-rate"
TOKEN_IDS = "2026T2_Q1_NA Q9"  # a vector of token ids: graded exactly by quizzer, each entry its share
ALL_OR_NOTHING = "2024T1_ET_AN Q157"  # a 0/1 mask (partial_credit: false)
GIVEN_ENTRIES = "practice/softmax-masked-entries"  # the blocked keys' weights are given_entries


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def moodle(tmp_path: Path, *selection: str) -> list[ET.Element]:
    target = tmp_path / "bank.xml"
    assert run("export", *selection, "--format", "moodle", "-o", str(target))[0] == 0
    return [question for question in ET.parse(target).getroot() if question.get("type") != "category"]


def instances(*selection: str) -> dict[str, dict]:
    code, out, _ = run("generate", *selection, "--format", "json", "--solutions")
    assert code == 0
    found = {}
    for i in json.loads(out):  # a multi-part question is one Moodle item per part: key@seed#label
        found |= {f"{p['id'] or i['key']}@{i['seed']}#{p['part']}": p for p in i.get("parts", ())}
        found |= {} if "parts" in i else {f"{i['key']}@{i['seed']}": i}
    return found


def test_short_answers_accept_no_wrong_answer_through_a_wildcard_or_case(tmp_path: Path) -> None:
    questions = [q for q in moodle(tmp_path, "--seed", "4") if q.get("type") == "shortanswer"]
    answers = instances("--seed", "4")
    stars = 0
    for question in questions:
        ignore_case = question.findtext("usecase") != "1"
        written = answers[question.findtext("idnumber")]["answer_text"].strip()
        patterns = [a.findtext("text") or "" for a in question.findall("answer") if a.get("fraction") == "100"]
        assert any(moodle_shortanswer_matches(p, written, ignore_case=ignore_case) for p in patterns), written
        wrong = {written.replace("*", "/"), written.replace("*", "+"), written.replace("*", "*2*"), written.swapcase()}
        wrong.discard(written)
        stars += "*" in written
        for pattern in patterns:
            for response in wrong:
                assert not moodle_shortanswer_matches(pattern, response, ignore_case=ignore_case), (pattern, response)
    assert stars >= 5  # the bank's expression answers were among them


def test_true_false_answers_are_plain_true_and_false(tmp_path: Path) -> None:
    questions = [q for q in moodle(tmp_path, "--seed", "1") if q.get("type") == "truefalse"]
    assert questions
    for question in questions:
        assert sorted(a.findtext("text") for a in question.findall("answer")) == ["false", "true"]


def test_marks_are_the_templates_points(tmp_path: Path) -> None:
    questions = moodle(tmp_path, "--seed", "2")
    answers = instances("--seed", "2")
    grades = {q.findtext("idnumber"): float(q.findtext("defaultgrade") or "nan") for q in questions}
    assert grades == {key: float(instance["points"]) for key, instance in answers.items()}
    assert len(set(grades.values())) > 1  # not one mark for everything


def test_the_shown_correct_answer_is_rounded_yet_graded_as_quizzer_grades(tmp_path: Path) -> None:
    questions = [q for q in moodle(tmp_path, "--seed", "3") if q.get("type") == "numerical"]
    answers = instances("--seed", "3")
    for question in questions:
        right = next(a for a in question.findall("answer") if a.get("fraction") == "100")
        shown, tolerance = right.findtext("text") or "", float(right.findtext("tolerance") or "nan")
        exact = answers[question.findtext("idnumber")]["answer"]
        assert len(re.sub(r"^[-0.]+|[.e].*$|\.", "", shown.replace(".", ""))) <= 10, shown
        # within 1/100 of the tolerance; where the prompt asks a precision, the answer rounded to it (the tolerance is
        # then one unit of its last place, about that rounding: quizzer's rule), half the tolerance away at most
        assert abs(float(shown) - exact) <= tolerance / 2 + 1e-12, (shown, exact, tolerance)


def test_a_clozes_blanks_show_rounded_answers_yet_grade_as_quizzer_grades(tmp_path: Path) -> None:
    """A teacher saw {1:NUMERICAL:=0.10632292350605871:0.0005}: Moodle shows that as the right answer."""
    answers = instances("--seed", "3")
    clozes = [q for q in moodle(tmp_path, "--seed", "3") if q.get("type") == "cloze"]
    assert clozes
    for question in clozes:
        blanks = re.findall(r"\{1:NUMERICAL:=([^:}]+):([^}~]+)[}~]", question.findtext("questiontext/text") or "")
        exact = [x for row in answers[question.findtext("idnumber")]["answer"]
                 for x in (row if isinstance(row, list) else [row])]
        for shown, tolerance in blanks:
            assert len(re.sub(r"^[-0.]+|[.e].*$|\.", "", shown.replace(".", ""))) <= 10, shown
            assert any(abs(float(shown) - x) <= float(tolerance) / 2 + 1e-12 for x in exact), (shown, tolerance)


def test_token_ids_in_a_cloze_are_exact(tmp_path: Path) -> None:
    question = moodle(tmp_path, "--key", TOKEN_IDS, "--seed", "0")[0]
    blanks = re.findall(r"\{1:NUMERICAL:=([^:}]+):([^}~]+)[}~]", question.findtext("questiontext/text") or "")
    assert blanks and all(float(tolerance) == 0 for _, tolerance in blanks)


def test_a_mask_graded_all_or_nothing_is_one_short_answer_in_the_forms_quizzer_reads(tmp_path: Path) -> None:
    question = moodle(tmp_path, "--key", ALL_OR_NOTHING, "--seed", "3")[0]
    assert question.get("type") == "shortanswer"
    patterns = [a.findtext("text") or "" for a in question.findall("answer") if a.get("fraction") == "100"]
    assert "0 1 1 1; 0 1 1 1; 0 1 1 1; 0 1 1 1" in patterns and "[[0,1,1,1],[0,1,1,1],[0,1,1,1],[0,1,1,1]]" in patterns
    spec = instances("--key", ALL_OR_NOTHING, "--seed", "3")[f"{ALL_OR_NOTHING}@3"]
    for pattern in patterns:  # every form Moodle accepts is one quizzer grades right, and no mistake matches
        assert grade(instance(ALL_OR_NOTHING, 3).spec, pattern).verdict == "correct", pattern
        for mistake in spec["mistakes"]:
            assert not moodle_shortanswer_matches(pattern, mistake["answer_text"], ignore_case=False)
    assert "0 1 1 1 ; 0 1 1 1 ; 0 1 1 1 ; 0 1 1 1" in patterns and "0,1,1,1;0,1,1,1;0,1,1,1;0,1,1,1" in patterns
    wrong = [(a.findtext("text") or "", a.findtext("feedback/text") or "") for a in question.findall("answer")
             if a.get("fraction") == "0"]
    for mistake in spec["mistakes"]:  # each known mistake, typed as printed, scores 0 with its feedback
        assert any(moodle_shortanswer_matches(text, mistake["answer_text"], ignore_case=False)
                   and mistake["feedback"][:40] in feedback for text, feedback in wrong), mistake["id"]


def test_entries_a_prompt_gives_away_are_printed_not_blanks(tmp_path: Path) -> None:
    question = moodle(tmp_path, "--key", GIVEN_ENTRIES, "--seed", "0")[0]
    cells = re.findall(r"<td>(.*?)</td>", question.findtext("questiontext/text") or "")
    # seed 0 is the notes' example: keys 3 and 4 blocked, weights (0.7311, 0.2689, 0, 0)
    assert [cell.startswith("{1:NUMERICAL:=") for cell in cells] == [True, True, False, False]
    assert cells[2:] == ["0", "0"]


@pytest.mark.parametrize(("key", "field"),
                         [(FIGURE_IN_PROMPT, "questiontext"), (FIGURE_IN_SOLUTION, "generalfeedback")])
def test_figures_are_embedded_as_plugin_files(tmp_path: Path, key: str, field: str) -> None:
    question = moodle(tmp_path, "--key", key, "--seed", "0")[0]
    holder = question.find(field)
    assert holder is not None
    files = holder.findall("file")
    assert len(files) == 1 and files[0].get("encoding") == "base64" and files[0].get("path") == "/"
    name = files[0].get("name") or ""
    assert name.endswith(".svg") and f'src="@@PLUGINFILE@@/{name}"' in (holder.findtext("text") or "")
    assert b"<svg" in base64.b64decode(files[0].text or "")


def test_every_ordering_question_imports_without_hint_rows_postgresql_refuses(tmp_path: Path) -> None:
    """Moodle's ordering importer invents hints with a NULL format when ``<shownumcorrect>`` is missing."""
    questions = [q for q in moodle(tmp_path, "--seed", "1") if q.get("type") == "ordering"]
    assert len(questions) >= 3
    for question in questions:
        assert all(row["hintformat"] is not None for row in imported_hints(question)), question.findtext("name/text")
    bare = ET.fromstring('<question type="ordering"><answer fraction="1"><text>a</text></answer></question>')
    assert [row["hintformat"] for row in imported_hints(bare)] == [None] * 5  # the rule the test relies on


def _cloze_entries(key: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A cloze's answer entries and which of them are blanks (not given away), row by row."""
    spec = instance(key, seed).spec
    answer = np.atleast_2d(np.asarray(spec.expected, dtype=float))
    given = np.zeros(answer.shape, dtype=bool) if spec.given is None else np.atleast_2d(spec.given)
    return answer, ~given


def test_a_clozes_moodle_marks_and_scores_are_quizzers(tmp_path: Path) -> None:
    """Marked as Moodle marks a cloze (the sum of its blanks' weights, each blank its share): the total is
    the points wherever whole-number weights can make it so, the right answer scores 1, and each known
    mistake scores what quizzer gives it, its given entries printed, an entry that is the answer rounded to one
    place fewer than asked half (``moodle.half_credit``), unless it is a square matrix transposed, which the
    question says Moodle marks by its diagonal."""
    from quizzer.export.moodlecloze import blank_weight

    clozes = [q for q in moodle(tmp_path, "--seed", "5") if q.get("type") == "cloze"
              and "#" not in (q.findtext("idnumber") or "")]  # a part of a multi-part question: its own test
    assert len(clozes) >= 30
    exact_totals = compared = 0
    for question in clozes:
        key, seed = (question.findtext("idnumber") or "").rsplit("@", 1)
        text = question.findtext("questiontext/text") or ""
        made = instance(key, int(seed))
        points, blanks = made.points, len(moodle_cloze.extract(text))
        assert moodle_cloze.default_mark(text) == blanks * blank_weight(points, blanks)
        if (points / blanks).is_integer():
            assert moodle_cloze.default_mark(text) == points, question.findtext("name/text")
            exact_totals += 1
        answer, free = _cloze_entries(key, int(seed))
        assert moodle_cloze.grade(text, list(answer[free])) == 1.0
        for wrong in made.spec.wrong_answers:
            typed = np.atleast_2d(np.asarray(wrong.value, dtype=float))
            if typed.shape != answer.shape:
                continue
            ours = grade(made.spec, str(typed.tolist() if typed.shape[0] > 1 else typed[0].tolist())).score
            if ours == 0.0 and transposed(typed, answer):
                assert SAYS_TRANSPOSED in (question.findtext("generalfeedback/text") or ""), (key, seed)
                continue  # quizzer's whole-answer rule for a transposed square matrix: the question says so
            # Moodle prints the entries given away, so the student types only the others: quizzer's score of the
            # whole mistake is Moodle's of its typed entries (no listed mistake is charged for a given entry)
            assert moodle_cloze.grade(text, list(typed[free])) == pytest.approx(ours), (key, seed, wrong.id)
            compared += 1
    assert exact_totals >= 10 and compared >= 20


def test_every_written_form_quizzer_accepts_for_a_shape_or_expression_is_a_moodle_answer(tmp_path: Path) -> None:
    """The forms a teacher saw Moodle mark 0 while quizzer gave full marks (issue 39, item 6) are accepted;
    every accepted pattern is one quizzer marks right; wrong ones stay wrong."""
    def patterns(key: str, seed: int) -> list[str]:
        folder = tmp_path / f"{key.replace('/', '-').replace(' ', '-')}-{seed}"
        folder.mkdir(exist_ok=True)
        question = moodle(folder, "--key", key, "--seed", str(seed), "--force")[0]
        return [a.findtext("text") or "" for a in question.findall("answer") if a.get("fraction") == "100"]

    def accepted(found: list[str], typed: str) -> bool:
        return any(moodle_shortanswer_matches(p, typed, ignore_case=False) for p in found)

    expression = patterns("2024T3_Q1_NA Q278", 1)  # 8*d^2 + 8*d
    for typed in ("8d^2 + 8d", "8 * d^2 + 8 * d", "8*d**2+8*d", "8*d^2 + 8*d"):
        assert accepted(expression, typed), typed
    assert not accepted(expression, "8*d^2 + 8") and not accepted(expression, "8d^2+8")
    dims = [str(d) for d in instance("practice/w1b-mha-concat-shape", 2).answer]
    shape = patterns("practice/w1b-mha-concat-shape", 2)
    for typed in (f"({','.join(dims)})", f"[{' x '.join(dims)}]", ", ".join(dims), " ".join(dims), "×".join(dims)):
        assert accepted(shape, typed), typed
    assert not accepted(shape, ", ".join(reversed(dims)))
    for key, seed in (("2024T3_Q1_NA Q278", 1), ("practice/w1b-mha-concat-shape", 2), ("2026T2_Q1_NA Q7", 3)):
        for pattern in patterns(key, seed):
            assert grade(instance(key, seed).spec, pattern.replace("\\*", "*")).verdict == "correct", pattern


def test_moodle_scores_every_right_answer_and_listed_mistake_as_quizzer_does(tmp_path: Path) -> None:
    """Every question of the bank's export, marked by a port of Moodle's engine (``moodle_engine``), on its
    right answer and each listed mistake as a student types it.  They agree except where Moodle cannot state
    quizzer's rule, each case named: an order's partial credit by pairs (Moodle: all or nothing, never more);
    a square matrix typed transposed, where the question says so."""
    from tests.export.moodle_engine import response, score, why_they_differ
    from tests.export.test_qti import made_by

    agree = total = 0
    excused: dict[str, int] = {}
    for question in moodle(tmp_path, "--seed", "2"):
        made = made_by(question.findtext("idnumber") or "")
        if made.kind == "text":
            continue  # an essay: marked by hand
        cases = [(made.answer, made.answer_text, 1.0)]
        cases += [(m.answer, m.answer_text, grade(made.spec, m.answer_text).score) for m in made.mistakes]
        for value, typed, ours in cases:
            theirs = score(question, response(question, made.kind, value, typed, made.answer if made.kind == "order"
                                              else ()))
            total += 1
            if theirs is not None and abs(theirs - ours) < 1e-6:
                agree += 1
                continue
            assert ours < 1.0, (made.key, made.seed, typed)  # every right answer scores full marks in Moodle
            reason = why_they_differ(made, value, theirs, ours, question.findtext("generalfeedback/text") or "")
            assert reason, (made.key, made.seed, typed, theirs, ours)
            excused[reason] = excused.get(reason, 0) + 1
    print(f"Moodle agrees with quizzer on {agree} of {total}; the others: {excused}")
    assert total > 300 and agree / total > 0.9


def test_no_listed_mistake_is_charged_for_an_entry_moodle_prints_as_given() -> None:
    """quizzer charges an entry's worth for each given entry typed wrong; Moodle prints those entries, so it
    cannot (issue 39, item 7: Q212's mask-after-softmax, 3/9 against 4/9).  On every seed, each listed mistake
    that types a given entry wrong earns nothing from the entries to work out either: both score it 0."""
    from quizzer.grading.match import elementwise
    from tests.bundled_templates import bundled

    checked = typed_wrong = 0
    for key in bundled():
        for seed in range(12):
            made = instance(key, seed)
            for question in [part.question for part in made.parts] or [made]:
                spec = question.spec
                if question.kind not in ("vector", "matrix") or spec.given is None:
                    continue
                given = np.atleast_2d(spec.given)
                expected = np.atleast_2d(np.asarray(spec.expected, dtype=float))
                for wrong in spec.wrong_answers:
                    value = np.atleast_2d(np.asarray(wrong.value, dtype=float))
                    if value.shape != expected.shape:
                        continue
                    right = np.atleast_2d(elementwise(spec.tolerance, value, expected))
                    checked += 1
                    if (~right[given]).any():
                        typed_wrong += 1
                        assert not right[~given].any(), (key, seed, wrong.id)
    assert checked >= 100 and typed_wrong >= 20  # padding keys left unmasked, a softmax over the wrong axis


def test_a_square_matrix_says_moodle_marks_its_transpose_by_the_diagonal(tmp_path: Path) -> None:
    """quizzer scores a square matrix typed transposed 0 (its rule 8); Moodle's cloze, blank by blank, cannot
    (moodle.transposable_cloze says why), so the question says what Moodle pays instead, and only there."""
    from tests.export.moodle_engine import score

    said = 0
    for question in moodle(tmp_path, "--seed", "2"):
        if question.get("type") != "cloze" or "#" in (question.findtext("idnumber") or ""):
            continue
        key, seed = (question.findtext("idnumber") or "").rsplit("@", 1)
        spec = instance(key, int(seed)).spec
        answer = np.atleast_2d(np.asarray(spec.expected, dtype=float))
        square = answer.shape[0] == answer.shape[1] > 1 and not np.allclose(answer, answer.T)
        says = SAYS_TRANSPOSED in (question.findtext("generalfeedback/text") or "")
        assert says == square, key
        if says:
            said += 1
            transposed = answer.T
            free = ~np.atleast_2d(spec.given) if spec.given is not None else np.ones(answer.shape, dtype=bool)
            assert grade(spec, str(transposed.tolist())).score == 0.0
            assert score(question, list(transposed[free])) > 0.0  # what the note warns of, as Moodle marks it
    assert said >= 5


def test_a_number_rounded_to_one_place_fewer_than_asked_earns_half_in_moodle_as_in_quizzer(tmp_path: Path) -> None:
    """quizzer's precision credit (``short_of_precision``) as Moodle's 50 % answer (``moodle.half_credit``): the
    answer rounded to one place fewer, typed so or with a 0 added, earns half in both; a unit further off,
    nothing; the ends of the rounding's cell as quizzer rounds them (half away from zero).  Each numerical
    question of a seed's export asked to some decimals, on each such typed number."""
    from quizzer.grading.tolerance import Precision, rounded
    from tests.export.moodle_engine import score
    from tests.export.test_qti import made_by

    halves = compared = 0
    for question in moodle(tmp_path, "--seed", "3"):
        if question.get("type") != "numerical":
            continue
        made = made_by(question.findtext("idnumber") or "")
        asked = made.spec.precision
        if made.kind != "number" or asked is None or asked.unit != "decimals" or asked.digits < 2:
            continue
        places = asked.digits - 1
        centre, unit = rounded(float(made.spec.expected), Precision(places, "decimals")), 10.0 ** -places
        typed = [f"{centre:.{places}f}", f"{centre:.{asked.digits}f}", f"{centre + unit:.{asked.digits}f}",
                 f"{centre - unit:.{asked.digits}f}", f"{centre + unit / 2:.{asked.digits}f}",
                 f"{centre - unit / 2:.{asked.digits}f}"]
        for text in typed:
            ours, theirs = grade(made.spec, text).score, score(question, float(text))
            assert theirs == pytest.approx(ours), (made.key, text, theirs, ours)
            compared += 1
            halves += ours == 0.5
    assert compared >= 30 and halves >= 10
