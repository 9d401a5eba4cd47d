"""An exam (``quizzer export --versions N`` / ``--secret FILE``): N papers of the same questions with their own
numbers, each with its paper code on every page and nothing that reproduces its answers; the teacher's key,
a one-page grid per version and ``exam-key.csv``; the same command and secret write the same bytes."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from quizzer.export.papercode import CODE, paper_code
from quizzer.export.versions import version_code
from tests.cli_runner import run
from tests.export.clients import pdf_text

SELECTION = ("--week", "1", "-n", "6", "--seed", "21")


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def exam(folder: Path, fmt: str, count: int = 3, *extra: str) -> list[Path]:
    folder.mkdir(exist_ok=True)
    secret = folder.parent / "course.secret"
    code, out, err = run("export", *SELECTION, "--versions", str(count), "--secret", str(secret), *extra,
                         "--format", fmt, "-o", str(folder / f"exam.{fmt}"))
    assert code == 0, err
    return [Path(line) for line in out.split("\n") if line]


def key_rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "exam-key.csv").open() as file:
        return list(csv.DictReader(file))


def test_markdown_versions_share_questions_differ_in_numbers_and_share_one_key(tmp_path: Path) -> None:
    written = exam(tmp_path / "one", "md")
    names = {path.name for path in written}
    assert {"exam-A.md", "exam-B.md", "exam-C.md", "exam-key.md", "exam-grid.md", "exam-key.csv"} <= names
    papers = [(tmp_path / "one" / f"exam-{code}.md").read_text() for code in "ABC"]
    rows = key_rows(tmp_path / "one")
    codes = list(dict.fromkeys(row["paper_code"] for row in rows))
    assert [code[0] for code in codes] == ["A", "B", "C"] and all(CODE.match(code) for code in codes)
    by_version = {v: [row for row in rows if row["version"] == v] for v in "ABC"}
    assert [row["key"] for row in by_version["A"]] == [row["key"] for row in by_version["B"]]
    assert len({tuple(row["seed"] for row in by_version[v]) for v in "ABC"}) == 3 and len(set(papers)) == 3
    key = (tmp_path / "one" / "exam-key.md").read_text()
    for code, paper in zip(codes, papers, strict=True):
        assert f"version {code[0]}" in paper and f"paper code **{code}**" in paper and "**Answer:**" not in paper
        assert f"# Answer sheet — Exam: week 1 · version {code[0]}" in key and code in key
    assert key.count("**Answer:**") == 18 and key.count("marks]") + key.count("mark]") == 18
    for row in rows:  # the key holds every question's key and seed, the papers none of them
        assert f"`{row['key'].split(' (')[0]}` · seed {row['seed']}" in key
    again = exam(tmp_path / "two", "md")
    assert [path.read_bytes() for path in written] == [path.read_bytes() for path in again]


@pytest.mark.parametrize("fmt", ["md", "html", "pdf"])
def test_no_student_paper_holds_a_key_a_seed_or_a_command_that_reproduces_it(tmp_path: Path, fmt: str) -> None:
    exam(tmp_path / "x", fmt, 2)
    rows = key_rows(tmp_path / "x")
    for version in "AB":
        path = tmp_path / "x" / f"exam-{version}.{fmt}"
        text = pdf_text(path) if fmt == "pdf" else path.read_text()
        flat = " ".join(text.split())
        assert "seed" not in flat.lower() and "quizzer" not in flat.lower() and "regenerate" not in flat
        for row in rows:
            assert row["seed"] not in flat and row["key"].split(" (")[0] not in flat
            # A chosen option is printed among the others; "false" or "12" may be in any text.
            if row["kind"] not in ("choice", "multi", "bool") and len(row["answer"]) >= 6:
                assert row["answer"] not in flat, row
        code = next(row["paper_code"] for row in rows if row["version"] == version)
        assert code in flat
    # What a student could do with what is printed: quizzer show by the paper code finds nothing.
    status, _, err = run("show", rows[0]["paper_code"])
    assert status == 2 and err.count("\n") == 1


def test_pdf_versions_carry_their_code_on_every_page_and_the_grid_is_a_page_each(tmp_path: Path) -> None:
    exam(tmp_path, "pdf", 2)
    codes = list(dict.fromkeys(row["paper_code"] for row in key_rows(tmp_path)))
    for code in codes:
        pages = [page for page in pdf_text(tmp_path / f"exam-{code[0]}.pdf").split("\f") if page.strip()]
        assert len(pages) > 1 and all(code in page for page in pages)
    key = pdf_text(tmp_path / "exam-key.pdf")
    assert "version A" in key and "version B" in key and key.count("Answer:") == 12
    grid = [page for page in pdf_text(tmp_path / "exam-grid.pdf").split("\f") if page.strip()]
    assert len(grid) == 2 and all(code in page for code, page in zip(codes, grid, strict=True))
    for page, version in zip(grid, "AB", strict=True):
        for row in (row for row in key_rows(tmp_path) if row["version"] == version):
            assert " ".join(row["answer"].split())[:20] in " ".join(page.split())


def test_the_key_csv_joins_with_grade_batch_and_every_answer_is_right(tmp_path: Path) -> None:
    exam(tmp_path, "md", 2)
    rows = [row for row in key_rows(tmp_path) if row["kind"] != "text"]  # a written answer: marked by hand
    assert len(rows) >= 10
    batch = tmp_path / "class.csv"
    with batch.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["key", "seed", "answer", "learner"])
        writer.writerows([row["key"], row["seed"], row["answer"], f"student-{row['version']}"] for row in rows)
    code, out, err = run("grade", "--batch", str(batch), "--dry-run")
    assert code == 0, (err, out)
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == len(rows) and all(result.get("verdict") == "correct" for result in results), results
    assert sum(float(row["points"]) for row in key_rows(tmp_path) if row["version"] == "A") == \
        sum(float(row["points"]) for row in key_rows(tmp_path) if row["version"] == "B")


def test_shuffled_questions_keep_their_numbers_and_are_recorded(tmp_path: Path) -> None:
    exam(tmp_path / "plain", "md", 4)
    exam(tmp_path / "shuffled", "md", 4, "--shuffle-questions")
    plain, shuffled = key_rows(tmp_path / "plain"), key_rows(tmp_path / "shuffled")
    assert sorted((r["version"], r["position"], r["seed"]) for r in plain) == \
        sorted((r["version"], r["position"], r["seed"]) for r in shuffled)
    orders = {v: [r["position"] for r in shuffled if r["version"] == v] for v in "ABCD"}
    assert len({tuple(order) for order in orders.values()}) > 1
    for version, order in orders.items():
        paper = (tmp_path / "shuffled" / f"exam-{version}.md").read_text()
        titles = re.findall(r"^## (\d+)\. ", paper, re.M)
        assert titles == [str(n) for n in range(1, len(order) + 1)]


def test_a_questions_versions_ask_the_same_thing(tmp_path: Path) -> None:
    """2024T3_Q1_NA Q279 comes tied or untied, with or without a bias: its versions keep version A's."""
    from quizzer.export.versions import structure
    from tests.bundled_templates import instance

    key = "2024T3_Q1_NA Q279"
    folder = tmp_path / "held"
    folder.mkdir()
    code, _, err = run("export", "-k", key, "--versions", "12", "--secret", str(tmp_path / "s"), "--seed", "3",
                       "--format", "md", "-o", str(folder / "exam.md"))
    assert code == 0 and "numbers only" in err
    seeds = [int(row["seed"]) for row in key_rows(folder)]
    assert len(set(seeds)) == 12 and len({structure(instance(key, seed)) for seed in seeds}) == 1
    loose = tmp_path / "loose"
    loose.mkdir()
    code, _, err = run("export", "-k", key, "--versions", "12", "--secret", str(tmp_path / "s"), "--seed", "3",
                       "--vary-structure", "--format", "md", "-o", str(loose / "exam.md"))
    seeds = [int(row["seed"]) for row in key_rows(loose)]
    assert code == 0 and len({structure(instance(key, seed)) for seed in seeds}) > 1 and "forms" in err


def test_the_secret_is_made_once_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "course.secret"
    exam(tmp_path / "a", "md", 1)
    assert secret.stat().st_mode & 0o077 == 0 and re.fullmatch(r"[0-9a-f]{64}\n", secret.read_text())
    exam(tmp_path / "b", "md", 1)
    assert key_rows(tmp_path / "a") == key_rows(tmp_path / "b")
    shutil.rmtree(tmp_path / "b")
    secret.write_text("not a secret\n")
    code, _, err = run("export", *SELECTION, "--secret", str(secret), "--format", "md", "-o", str(tmp_path / "e.md"))
    assert code == 2 and "not a course secret" in err and str(secret) in err and not list(tmp_path.glob("e*"))


def test_paper_codes_follow_the_documented_format() -> None:
    codes = {paper_code(bytes(32), seed, version_code(index)) for seed in range(20) for index in range(30)}
    assert len(codes) == 600 and all(CODE.match(code) for code in codes)
    assert paper_code(bytes(32), 1, "A") != paper_code(b"\x01" * 32, 1, "A")


def test_versions_need_an_exam_format_and_a_file(tmp_path: Path) -> None:
    code, _, err = run("export", *SELECTION, "--versions", "2", "--format", "apkg", "-o", str(tmp_path / "b.apkg"))
    assert code == 2 and "--versions: it applies to md, html, pdf, moodle, qti" in err
    code, _, err = run("export", *SELECTION, "--versions", "2", "--format", "md")
    assert code == 2 and "give -o PATH" in err and not list(tmp_path.glob("exam*"))


def test_version_codes() -> None:
    assert [version_code(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]


def test_questions_keep_the_order_given_with_k(tmp_path: Path) -> None:
    keys = ["practice/warmup-rate", "2024T1_ET_AN Q157", "practice/decoder-mask-order"]  # not week-then-key order
    selection = [arg for key in keys for arg in ("-k", key)]
    code, out, _ = run("generate", *selection, "--seed", "1", "--format", "json")
    assert code == 0 and [item["key"] for item in json.loads(out)] == keys
    folder = tmp_path / "k"
    folder.mkdir()
    code, _, err = run("export", *selection, "--seed", "1", "--versions", "2", "--secret", str(tmp_path / "s"),
                       "--format", "md", "-o", str(folder / "exam.md"))
    assert code == 0, err
    assert [row["key"] for row in key_rows(folder) if row["version"] == "B"] == keys
    code, _, err = run("export", *selection, "--seed", "1", "--format", "json", "-o", str(tmp_path / "p.json"))
    assert code == 0 and [q["key"] for q in json.loads((tmp_path / "p.json").read_text())["questions"]] == keys


def test_a_bad_selection_creates_no_secret_and_writes_nothing(tmp_path: Path) -> None:
    code, _, err = run("export", "--paper", "NO_SUCH_PAPER", "--versions", "2", "--secret", str(tmp_path / "s"),
                       "--format", "md", "-o", str(tmp_path / "exam.md"))
    assert code == 2 and err.count("\n") == 1 and not (tmp_path / "s").exists() and not list(tmp_path.glob("exam*"))
