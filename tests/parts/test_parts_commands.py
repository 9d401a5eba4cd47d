"""Multi-part questions through the bank and the commands: every routed ID, a part's included, is found by
`show`, `grade`, `list --paper` and `generate`; a chain's answers are recorded one attempt per part with
the follow-through flag, survive a regrade and a progress round trip."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from quizzer.bank.db import new_session, open_bank
from quizzer.bank.learners import ensure_learner
from quizzer.bank.store import find_question, import_templates
from quizzer.learning.regrade import regrade
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import make_instance
from quizzer.templates.loader import load_text
from quizzer.templates.validate import LoadedTemplate
from tests.bundled_templates import bundled
from tests.cli_runner import run

CHAIN, Q280 = "2024T3_Q1_NA Q279", "2024T3_Q1_NA Q280"
# Seed 0: the notes' base model (tied, no bias). A wrong layer count, and the stack and total computed from it.
MINE = 4_100_000
ANSWERS = [str(MINE), str(6 * MINE), str(18_944_000 + 6 * MINE)]


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr("quizzer.common.profiles.getpass.getuser", lambda: "marie")
    return bundled_bank


def rows(bank: Path, query: str) -> list[tuple]:
    with sqlite3.connect(bank) as db:
        return db.execute(query).fetchall()


def grade_chain(*answers: str, extra: tuple[str, ...] = ()) -> tuple[int, str, str]:
    return run("grade", CHAIN, "--seed", "0", *(x for a in answers for x in ("--answer", a)), *extra)


def test_every_routed_id_of_a_chain_is_found(bundled_bank: Path) -> None:
    with new_session(open_bank(f"sqlite:///{bundled_bank}")) as session:
        assert [(t.key, part) for t, part in (find_question(session=session, key=k) for k in (CHAIN, Q280))] == \
            [(CHAIN, None), (CHAIN, 2)]
    code, out, _ = run("show", Q280, "--seed", "0")
    assert code == 0 and out.startswith(f"{Q280} is part (c) of {CHAIN}") and "44,168,192" in out
    code, out, _ = run("list", "--paper", "2024T3_Q1_NA", "--json")
    listed = {item["key"]: item for item in json.loads(out)}
    assert listed[CHAIN]["kind"] == "parts" and listed[CHAIN]["part_ids"] == [Q280] and Q280 not in listed
    code, out, _ = run("list", "--paper", "2024T3_Q1_NA")
    assert f"(parts: {Q280})" in out and "(parts: 2024T3_Q1_NA Q283)" in out
    code, out, _ = run("generate", "--key", Q280, "--format", "json", "--solutions", "--seed", "0")
    (item,) = json.loads(out)
    assert [p["id"] for p in item["parts"]] == [CHAIN, None, Q280]
    assert [p["answer"] for p in item["parts"]] == [4_204_032, 25_224_192, 44_168_192]
    assert item["parts"][2]["depends_on"] == ["layer", "stack"]


def test_a_wrong_part_a_and_consistent_later_parts_get_follow_through_credit(bundled_bank: Path) -> None:
    code, out, _ = grade_chain(*ANSWERS, extra=("--json",))
    result = json.loads(out)
    assert code == 0 and [(p["verdict"], p["carried_forward"]) for p in result["parts"]] == \
        [("incorrect", False), ("correct", True), ("correct", True)]
    assert (result["earned"], result["points"]) == (4, 6)
    recorded = rows(bundled_bank, "SELECT template_key, part, verdict, carried_forward FROM attempt ORDER BY part")
    assert recorded == [(CHAIN, "a", "incorrect", 0), (CHAIN, "b", "correct", 1), (CHAIN, "c", "correct", 1)]
    assert len(set(rows(bundled_bank, "SELECT created_at FROM attempt"))) == 1  # one answer
    assert rows(bundled_bank, "SELECT count(*) FROM reviewcard") == [(1,)]     # one review step


def test_a_part_left_blank_earns_nothing_carries_nothing_and_is_not_recorded(bundled_bank: Path) -> None:
    """A teacher marking a paper where (a) was left blank still marks (b) and (c), as the mock exam does."""
    code, out, _ = grade_chain("", "25,224,192", "1")
    assert code == 0 and out.splitlines()[0] == "(a) LEFT BLANK (score 0) — expected 4,204,032."
    assert out.splitlines()[-1] == "PARTIAL: 2 of 6 marks."
    assert rows(bundled_bank, "SELECT part, verdict, carried_forward FROM attempt ORDER BY part") == \
        [("b", "correct", 0), ("c", "incorrect", 0)]


def test_a_part_graded_on_its_own_by_its_routed_id(bundled_bank: Path) -> None:
    code, out, _ = run("grade", Q280, "--seed", "0", "--answer", "44,168,192", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "correct"
    assert rows(bundled_bank, "SELECT template_key, part FROM attempt") == [(CHAIN, "c")]


def test_the_chains_own_id_with_one_answer_grades_its_first_part(bundled_bank: Path) -> None:
    """Q279 is both the chain's key and the routed ID of its part (a): one --answer grades that part."""
    code, out, _ = run("grade", CHAIN, "--seed", "0", "--answer", "4,204,032", "--json")
    assert code == 0 and (json.loads(out)["verdict"], json.loads(out)["part"]) == ("correct", "a")
    assert rows(bundled_bank, "SELECT template_key, part FROM attempt") == [(CHAIN, "a")]
    code, out, _ = run("grade", CHAIN, "--seed", "0", "--answer", "4,204,032", "--dry-run")
    assert out.splitlines()[0] == f"Part (a) of {CHAIN}:"


@pytest.mark.parametrize(("answers", "message"), [
    (["1", "2"], "has 3 parts (a, b, c): give one --answer per part"),
    (["x", "1", "2"], "could not read the answer to part (a)"),
    (["", " ", ""], "every part is blank: answer at least one of a, b, c"),
])
def test_bad_chain_answers_are_one_line_and_record_nothing(bundled_bank: Path, answers: list[str],
                                                            message: str) -> None:
    code, _, err = grade_chain(*answers)
    assert code == 2 and message in err and "Traceback" not in err
    assert rows(bundled_bank, "SELECT count(*) FROM attempt") == [(0,)]


def test_a_regrade_keeps_the_follow_through(bundled_bank: Path) -> None:
    grade_chain(*ANSWERS)
    before = rows(bundled_bank, "SELECT part, verdict, score, carried_forward FROM attempt ORDER BY part")
    with sqlite3.connect(bundled_bank) as db:  # as if graded under older rules, without the flag
        db.execute("UPDATE attempt SET verdict = 'incorrect', score = 0, carried_forward = 0")
    with new_session(open_bank(f"sqlite:///{bundled_bank}")) as session:
        report = regrade(session)
        session.commit()
    assert (report.attempts, report.changed, report.cards) == (3, 2, 1)
    assert rows(bundled_bank, "SELECT part, verdict, score, carried_forward FROM attempt ORDER BY part") == before


def test_progress_carries_the_parts(bundled_bank: Path, tmp_path: Path) -> None:
    grade_chain(*ANSWERS)
    file = tmp_path / "marie.json"
    assert run("progress", "export", str(file))[0] == 0
    exported = json.loads(file.read_text())["attempts"]
    assert [(a["part"], a["carried_forward"]) for a in exported] == [("a", False), ("b", True), ("c", True)]
    code, _, err = run("--profile", "other", "progress", "import", str(file))
    assert code == 0, err
    again = rows(bundled_bank, "SELECT part, carried_forward FROM attempt a JOIN learner l ON l.id = a.learner_id "
                               "WHERE l.name = 'other' ORDER BY part")
    assert again == [("a", 0), ("b", 1), ("c", 1)]


def test_a_batch_grades_a_part_by_its_routed_id_and_refuses_a_whole_chain(bundled_bank: Path, tmp_path: Path) -> None:
    file = tmp_path / "class.csv"
    file.write_text(f'key,seed,answer,learner\n{Q280},0,"44,168,192",ada\n{CHAIN},0,4204032,bob\n', encoding="utf-8")
    code, out, _ = run("grade", "--batch", str(file))
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 2 and (first["verdict"], first["points"]) == ("correct", 2)
    assert "is a multi-part question (parts a, b, c)" in second["error"]
    assert rows(bundled_bank, "SELECT template_key, part FROM attempt") == [(CHAIN, "c")]


def test_a_batch_names_a_part_without_a_routed_id_by_its_label(bundled_bank: Path, tmp_path: Path) -> None:
    """A teacher could not mark a class's (b) from a file: it has no routed ID of its own."""
    seed = 5
    chain = make_instance(bundled()[CHAIN], seed)
    b_right = chain.parts[1].question.answer_text
    file = tmp_path / "class.csv"
    file.write_text(f'key,seed,answer,learner\n"{CHAIN} (b)",{seed},"{b_right}",ada\n'
                    f'"{CHAIN} (d)",{seed},1,ada\n', encoding="utf-8")
    code, out, _ = run("grade", "--batch", str(file))
    marked, missing = (json.loads(line) for line in out.splitlines())
    assert code == 2 and (marked["verdict"], marked["points"]) == ("correct", 2)
    assert missing["error"] == f"'{CHAIN}' has no part (d): its parts are a, b, c"
    assert rows(bundled_bank, "SELECT template_key, part, verdict FROM attempt") == [(CHAIN, "b", "correct")]


def test_the_report_counts_each_part_of_a_chain_as_a_question_of_its_own(bundled_bank: Path) -> None:
    """A learner who left (a) and (b) blank and got (c) right was listed "right first try" on the chain."""
    right = [str(a) for a in make_instance(bundled()[CHAIN], 0).answer]
    for learner in ("ana", "bob", "cat"):
        answers = right if learner == "ana" else ["", "", right[2]]
        code, _, err = run("--profile", learner, "grade", CHAIN, "--seed", "0",
                           *(x for a in answers for x in ("--answer", a)))
        assert code == 0, err
    code, out, err = run("report", "--paper", "2024T3_Q1_NA", "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    hardest = {row["key"]: row for row in report["hardest"]}
    assert CHAIN not in hardest and hardest[f"{CHAIN} (c)"]["learners"] == 3
    assert hardest[f"{CHAIN} (c)"]["title"].endswith(" (c)")
    items = {item["key"]: item for item in report["items"]["items"]}
    assert items[f"{CHAIN} (a)"]["learners"] == 1 and items[f"{CHAIN} (c)"]["learners"] == 3


def test_an_older_bank_stops_offering_a_single_question_a_chain_replaced(bundled_bank: Path) -> None:
    """A bank imported before Q280 became part (c) of the Q279 chain keeps the old Q280 row (its
    attempts refer to it); the study session no longer offers it, and its key finds the part."""
    old = (Path(__file__).parent / "old_q280.yaml").read_text(encoding="utf-8")
    with new_session(open_bank(f"sqlite:///{bundled_bank}")) as session:
        import_templates(session=session, loaded=[LoadedTemplate(load_text(old, where="old"), Path("old"), old)])
        session.commit()
        assert find_question(session=session, key=Q280)[0].key == CHAIN
        study = Study(session, load_catalog(), ensure_learner(session=session, name="ada"))
        assert Q280 not in study.templates and CHAIN in study.templates
        assert [i.key for i in study.paper_instances("2024T3_Q1_NA", 1)].count(CHAIN) == 1
