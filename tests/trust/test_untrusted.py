"""What reaches a terminal and what a reviewer reads (quizzer.common.untrusted, quizzer.common.userfiles,
quizzer.templates.characters): each rule against an independent statement of it."""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from quizzer.common.errors import UserError
from quizzer.common.untrusted import DEFAULT_IGNORABLE, terminal_safe, visible_key
from quizzer.common.userfiles import MAX_SECONDS, json_depth, read_bounded, seconds_taken
from quizzer.templates.characters import ambiguous_scalar, character_problem, ignorable_outside_prose

ESC = "\x1b"


@pytest.mark.parametrize(("shown", "safe"), [
    (f"a{ESC}[2Jb", "ab"),                          # CSI: clear the screen, all of it removed
    (f"x{ESC}]52;c;SGVsbG8={chr(7)}y", "xy"),       # OSC 52: write the clipboard
    (f"x{ESC}]0;title{ESC}\\y", "xy"),              # OSC ended by ST
    ("p\x9b31mq", "pq"),                            # the 8-bit CSI
    ("r\u202eevil\u202cs", "revils"),               # bidirectional override
    ("lone\rcr", "lonecr"),                         # a lone CR would overprint
    ("keep\r\nlines\tand tabs", "keep\r\nlines\tand tabs"),
    ("bell\x07 del\x7f nul\x00", "bell del nul"),
    ("plain text, maths ∑ and ü", "plain text, maths ∑ and ü"),
])
def test_terminal_safe_removes_whole_sequences(shown: str, safe: str) -> None:
    assert terminal_safe(shown) == safe


def test_terminal_safe_leaves_nothing_a_terminal_acts_on() -> None:
    every = "".join(chr(code) for code in range(0x3000))
    left = terminal_safe(every)
    assert not [ch for ch in left if unicodedata.category(ch) == "Cc" and ch not in "\t\n"]
    assert not set(left) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")


def test_look_alikes_share_a_key() -> None:
    assert visible_key("Yes") == visible_key("Yes\u200b") == visible_key("Ｙｅｓ") == visible_key(" y e s ")
    assert visible_key("Yes") != visible_key("Yet")
    # every default-ignorable code point the pattern lists is one Unicode says renders as nothing
    for code in range(0x10000):
        if DEFAULT_IGNORABLE.fullmatch(chr(code)):
            assert unicodedata.category(chr(code)) in ("Cf", "Mn", "Lo", "Cn"), hex(code)


def test_json_depth_is_measured_outside_strings_and_on_its_line() -> None:
    assert json_depth('{"a": 1}') == (1, 1)
    assert json_depth('{"a": "[[[[{{{{"}') == (1, 1)
    assert json_depth('{"a": "x\\"[[["}') == (1, 1)
    assert json_depth('{\n"a":\n [[1]]}') == (3, 3)
    assert json_depth("[" * 200_000 + "]" * 200_000) == (200_000, 1)  # linear: a hang would fail the suite


def test_read_bounded_stops_at_its_limit(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="may be at most 1,000 bytes"):
        read_bounded(Path("/dev/zero"), limit=1000, what="a file")
    small = tmp_path / "small.txt"
    small.write_bytes(b"x" * 1000)
    assert read_bounded(small, limit=1000, what="a file") == "x" * 1000
    small.write_bytes(b"ok\n\xff")
    with pytest.raises(UserError, match=r"not UTF-8 text \(line 2, byte 3\)"):
        read_bounded(small, limit=1000, what="a file")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "-1", MAX_SECONDS + 1, True, "ten", math.nan])
def test_seconds_are_a_finite_bounded_duration(value: object) -> None:
    with pytest.raises(ValueError, match="must be a number of seconds from 0 to 86,400"):
        seconds_taken(value)


def test_seconds_in_range_are_kept() -> None:
    assert seconds_taken("12.5") == 12.5 and seconds_taken(0) == 0 and seconds_taken(MAX_SECONDS) == MAX_SECONDS


def test_a_character_problem_names_its_line_and_column() -> None:
    assert character_problem("a: 1\nb: x\x00y\n")[:2] == (2, 5)
    assert character_problem("\ufeffa: 1\n") is None  # a BOM may start the file
    assert character_problem("a: 1\nb: \ufeff\n")[:2] == (2, 4)
    assert character_problem("a: 1\r\nb: 2\r\n") is None  # CRLF is a line break
    assert character_problem("a: 1\rb: 2\n")[:2] == (1, 5)
    assert character_problem("title: x\u2028tolerance: {rel: 0.9}\n")[:2] == (1, 9)


def test_invisible_characters_are_allowed_in_prose_only() -> None:
    assert ignorable_outside_prose("a\u200db", ("prompt",)) is None
    assert ignorable_outside_prose("a\u200db", ("misconceptions", "0", "feedback")) is None
    assert "U+200D" in ignorable_outside_prose("a\u200db", ("choices", "0", "text"))
    assert "U+FE0F" in ignorable_outside_prose("x\ufe0f", ("derived", "m"))


def plain(text: str) -> yaml.ScalarEvent:
    return yaml.ScalarEvent(None, None, (True, False), text)


# YAML 1.1 (PyYAML) against YAML 1.2 core, written out by hand from both specifications.
@pytest.mark.parametrize(("text", "ambiguous"), [
    ("010", True), ("0o17", True), ("08", True), ("1:30", True), ("yes", True), ("No", True), ("on", True),
    ("OFF", True), ("1_000", True), ("0b101", True), ("1.5_0", True),
    ("10", False), ("0x1F", False), ("+5", False), ("1.5", False), ("1e3", False), ("true", False),
    ("False", False), ("null", False), ("~", False), ("text", False), ("2024-01-01", False), ("1.", False),
])
def test_scalars_read_alike_by_both_yaml_versions(text: str, ambiguous: bool) -> None:
    assert (ambiguous_scalar(plain(text)) is not None) is ambiguous
    quoted = yaml.ScalarEvent(None, None, (False, True), text)
    assert ambiguous_scalar(quoted) is None  # in quotes it is text in both


def test_a_typed_answer_holding_an_escape_is_refused_and_nothing_recorded(bundled_bank: Path) -> None:
    """It grades correct once cleaned, but it would be stored as typed and shown raw in the app's history."""
    import sqlite3

    from tests.cli_runner import run

    code, out, err = run("grade", "2024T3_Q1_NA Q277", "--seed", "0", "--answer", f"18944000{ESC}[2J")
    assert code == 2 and out == "" and err == "quizzer: --answer: an answer may not hold a control character U+001B\n"
    with sqlite3.connect(bundled_bank) as db:
        assert db.execute("SELECT count(*) FROM attempt").fetchone() == (0,)


def test_a_refusal_quotes_at_most_80_characters_of_a_long_answer(bundled_bank: Path) -> None:
    from tests.cli_runner import run

    code, _, err = run("grade", "2024T3_Q1_NA Q277", "--seed", "0", "--answer", "1" * 100_000, "--dry-run")
    assert code == 2 and "(100,000 characters)" in err and len(err) < 250
