"""Exports of a multi-part question: one question with sub-questions on papers, sheets and JSON; one
item per part, each with the stem and a follow-through note, in Moodle XML and QTI."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from tests.cli_runner import run

CHAIN, Q280 = "2024T3_Q1_NA Q279", "2024T3_Q1_NA Q280"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    return bundled_bank


def export(tmp_path: Path, fmt: str, name: str) -> Path:
    out = tmp_path / name
    code, _, err = run("export", "--key", CHAIN, "--seed", "0", "--format", fmt, "-o", str(out))
    assert code == 0, err
    return out


def test_markdown_prints_one_question_with_its_parts_and_their_answers(tmp_path: Path) -> None:
    paper = export(tmp_path, "md", "paper.md").read_text()
    assert paper.count("## ") == 1 and "[6 marks]" in paper
    assert all(f"**({label})**" in paper for label in "abc")
    sheet = (tmp_path / "paper-answers.md").read_text()
    assert "- (a) 4,204,032\n- (b) 25,224,192\n- (c) 44,168,192" in sheet
    assert "(a) `4,000,000`" in sheet  # a part's common wrong answer, labelled (the rounded "~4M")


def test_json_keeps_the_parts(tmp_path: Path) -> None:
    (question,) = json.loads(export(tmp_path, "json", "paper.json").read_text())["questions"]
    assert [p["id"] for p in question["parts"]] == [CHAIN, None, Q280]
    assert question["answer"] == [4_204_032, 25_224_192, 44_168_192]


def test_moodle_gets_one_item_per_part_with_the_stem_and_a_note(tmp_path: Path) -> None:
    xml = export(tmp_path, "moodle", "paper.xml").read_text()
    items = xml.split('<question type="numerical">')[1:]
    assert len(items) == 3
    for label, item in zip("abc", items, strict=True):
        assert f"<name><text>1{label}. " in item and "decoder side of an encoder" in item
        assert f"Part ({label}) of a multi-part question" in item and "follow-through" in item
    assert "<idnumber>2024T3_Q1_NA Q280@0#c</idnumber>" in items[2]
    assert ['<answer fraction="100" format="moodle_auto_format"><text>25224192</text>' in item for item in items] \
        == [False, True, False]


def test_qti_gets_one_item_per_part(tmp_path: Path) -> None:
    with zipfile.ZipFile(export(tmp_path, "qti", "paper.zip")) as package:
        xml = next(package.read(name).decode() for name in package.namelist() if name != "imsmanifest.xml")
    assert [f'ident="q1{label}"' in xml for label in "abc"] == [True] * 3
    assert xml.count("of a multi-part question") == 3
