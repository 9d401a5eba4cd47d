"""The command line run in-process (``tests/cli_runner.py``): the contract of every command."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from quizzer.templates.catalog import questions_dir
from tests.bundled_templates import QUESTIONS
from tests.cli_runner import run

KEY = "2024T3_Q1_NA Q277"


@pytest.fixture(autouse=True)
def prepared(bundled_bank: Path) -> Path:
    """Every CLI test starts from a bank with the bundled questions already imported."""
    return bundled_bank


def test_version_and_help() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("quizzer ")
    code, out, _ = run("--help")
    assert code == 0 and "generate" in out and "grade" in out


def test_list_and_filters() -> None:
    code, out, _ = run("list", "--json")
    items = json.loads(out)
    assert code == 0 and KEY in {i["key"] for i in items}
    code, out, _ = run("list", "--paper", "2024T3_Q1_NA", "--json")
    keys = [i["key"] for i in json.loads(out)]
    assert KEY in keys and all(k.startswith("2024T3_Q1_NA ") for k in keys)
    code, out, _ = run("list", "--week", "1")
    assert code == 0 and "practice/encoder-layer-count" in out and KEY not in out


def test_topics_counts_templates() -> None:
    code, out, _ = run("topics", "--json")
    topics = {t["id"]: t for t in json.loads(out)}
    assert code == 0 and topics["decoder_output_params"]["templates"] >= 1
    assert topics["teacher_forcing"]["name"] == "Teacher forcing"


def test_show_canonical_instance_reproduces_the_notes() -> None:
    code, out, _ = run("show", KEY, "--seed", "0")
    assert code == 0
    assert "37,000" in out.replace("{,}", ",") and "18,944,000" in out


def test_a_practice_question_by_the_name_the_app_shows() -> None:
    """The bank browser and history show `warmup-rate`; the commands take it as well as `practice/warmup-rate`."""
    short, full = run("show", "warmup-rate", "--seed", "3"), run("show", "practice/warmup-rate", "--seed", "3")
    assert short[0] == full[0] == 0 and short[1] == full[1] and "[practice/warmup-rate · seed 3]" in short[1]
    code, out, _ = run("grade", "warmup-rate", "--seed", "3", "--answer", "1", "--dry-run")
    assert code == 0 and out.startswith("INCORRECT")
    code, _, err = run("show", "warmup-rat", "--seed", "3")
    assert code == 2 and "did you mean 'practice/warmup-rate'" in err


def test_generate_json_contract_and_determinism() -> None:
    args = ("generate", "--week", "2", "-n", "3", "--seed", "11", "--solutions", "--format", "json")
    first, second = run(*args), run(*args)
    assert first[0] == 0 and first[1] == second[1]
    instances = json.loads(first[1])
    assert len(instances) == 3
    for item in instances:
        assert {"key", "seed", "kind", "title", "topics", "prompt", "answer", "answer_text", "solution"} <= set(item)
        assert "{{" not in item["prompt"] + item["solution"]


def test_generate_without_solutions_hides_answers() -> None:
    code, out, _ = run("generate", "--key", KEY, "--seed", "4", "--format", "json")
    (item,) = json.loads(out)
    assert code == 0 and "answer" not in item and "solution" not in item


def test_generate_text_and_markdown() -> None:
    code, out, _ = run("generate", "--key", "practice/teacher-forcing-inputs", "--seed", "2", "--solutions")
    assert code == 0 and "(a)" in out and "Answer:" in out
    code, out, _ = run("generate", "--key", "practice/warmup-rate", "--seed", "2", "--format", "md")
    assert code == 0 and out.startswith("### 1. ") and "$$" in out


def answer_for(key: str, seed: int) -> str:
    _, out, _ = run("generate", "--key", key, "--seed", str(seed), "--solutions", "--format", "json")
    return json.loads(out)[0]["answer_text"]


def test_grade_correct_wrong_misconception_and_records() -> None:
    right = answer_for(KEY, 9)
    code, out, _ = run("grade", KEY, "--seed", "9", "--answer", right, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "correct" and json.loads(out)["recorded"]
    code, out, _ = run("grade", KEY, "--seed", "0", "--answer", "18,981,000", "--json")  # a bias it has not
    verdict = json.loads(out)
    assert code == 0 and verdict["verdict"] == "incorrect"
    assert verdict["misconception"] == "counted_nonexistent_biases"
    assert verdict["expected"].replace(",", "") == "18944000"


def test_grade_dry_run_and_invalid_answer() -> None:
    code, out, _ = run("grade", KEY, "--seed", "0", "--answer", "18944000", "--json", "--dry-run")
    assert code == 0 and json.loads(out)["recorded"] is False
    code, out, _ = run("grade", KEY, "--seed", "0", "--answer", "18944000", "--dry-run")
    assert code == 0 and out.splitlines() == ["CORRECT (score 1) — you answered 18,944,000; expected 18,944,000."]
    code, out, err = run("grade", KEY, "--seed", "0", "--answer", "banana")
    assert code == 2 and "could not read the answer" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [
    ("show", "2024T3_Q1_NA Q999"),
    ("grade", "nope", "--seed", "1", "--answer", "1"),
    ("list", "--topic", "attention_everything"),
    ("generate", "--paper", "2099T1_Q1_NA"),
    ("validate", "no/such/dir"),
])
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...]) -> None:
    code, out, err = run(*args)
    assert code == 2, (out, err)
    assert err.startswith("quizzer: ") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in out + err


@pytest.mark.parametrize(("args", "line"), [
    (("show",), "the following arguments are required: KEY (see 'quizzer show --help')"),
    (("list", "--no-such-flag"), "unrecognized arguments: --no-such-flag (see 'quizzer list --help')"),
    (("grade", KEY, "--answer", "1", "--dryrun"),
     "unrecognized arguments: --dryrun (did you mean '--dry-run'?) (see 'quizzer grade --help')"),
    (("show", KEY, "--sed=3"), "unrecognized arguments: --sed=3 (did you mean '--seed'?) (see 'quizzer show --help')"),
    (("show", KEY, "--seed", "x"), "argument --seed: 'x' is not a whole number (see 'quizzer show --help')"),
    (("generate", "-n", "0"), "argument -n: 0 is out of range (1 to 1000) (see 'quizzer generate --help')"),
    (("grade", KEY, "--seed", "0", "--answer", "1", "--seconds", "-1"),
     "argument --seconds: -1 is out of range (0 to 86400) (see 'quizzer grade --help')"),
    (("grade", KEY, "--seed", "0", "--answer", "1", "--seconds", "nan"),
     "argument --seconds: 'nan' is not a finite number (0 to 86400) (see 'quizzer grade --help')"),
    (("grade", KEY, "--seed", "0", "--answer", "1", "--seconds", "1e308"),
     "argument --seconds: 1e308 is out of range (0 to 86400) (see 'quizzer grade --help')"),
    (("generate", "--format", "docx"),
     "argument --format: invalid choice: 'docx' (choose from 'text', 'md', 'json') (see 'quizzer generate --help')"),
    (("progress", "frob"), "unknown command 'frob'; commands: export, import (see 'quizzer progress --help')"),
    (("progress", "exprot"), "unknown command 'exprot' (did you mean 'export'?) (see 'quizzer progress --help')"),
    (("shw", KEY), "unknown command 'shw' (did you mean 'show'?) (see 'quizzer --help')"),
    (("--profile",), "argument --profile: expected one argument (see 'quizzer --help')"),
    # A teacher's two topics made a paper of the second alone: argparse keeps the last value of an option.
    (("export", "--topic", "softmax", "--topic=causal_self_attention"),
     "--topic is given twice (--topic 'softmax', then 'causal_self_attention'): give it once "
     "(see 'quizzer export --help')"),
    (("generate", "-n", "2", "-n=3"),
     "-n is given twice (-n '2', then '3'): give it once (see 'quizzer generate --help')"),
])
def test_usage_errors_are_one_line_naming_the_help_to_read(args: tuple[str, ...], line: str) -> None:
    assert run(*args) == (2, "", f"quizzer: {line}\n")


def test_an_unknown_command_is_one_line() -> None:
    code, out, err = run("frobnicate")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("quizzer: unknown command 'frobnicate'; commands: practise, validate, ")
    assert err.endswith(" (see 'quizzer --help')\n")


def test_an_option_value_may_start_with_a_dash() -> None:
    """An answer such as -1/2 or -inf is the option's value, not an unknown option."""
    for answer in (("--answer", "-18944000"), ("--answer=-18944000",)):
        code, out, err = run("grade", KEY, "--seed", "0", *answer, "--dry-run", "--json")
        assert code == 0, err
        assert json.loads(out)["verdict"] == "incorrect"


def test_help_lists_the_commands_in_order_and_each_command_its_options() -> None:
    code, out, _ = run("--help")
    listed = re.findall(r"^    (\S+) ", out.split("\ncommands:\n")[1], re.MULTILINE)  # not a wrapped line
    assert code == 0 and listed == ["practise", "validate", "verify", "add", "list", "topics", "coverage", "show",
                                    "generate", "export", "grade", "plan", "next", "report", "scan", "serve",
                                    "profiles", "accounts",
                                    "progress"]
    assert "    show          Show a question with its answer and worked solution.\n" in out
    code, out, _ = run("generate", "--help")
    assert code == 0 and out.startswith("usage: quizzer generate ")
    assert "Seed for the selection and the instances. [at least 0;\n" in out and "default: 1]" in out
    assert "-k KEY, --key KEY     A question key (repeatable).\n" in out


def test_validate_bundled_questions() -> None:
    # Three seeds: the command's path is what is tested here; every bundled template is validated over
    # 200 seeds by tests/templates/test_bank_content.py.
    code, out, _ = run("validate", "--seeds", "3")
    files = len(list(QUESTIONS.rglob("*.yaml")))
    assert code == 0 and f"{files} template(s) valid, each test-rendered over 3 seeds." in out


NEW_TEMPLATE = textwrap.dedent("""\
    key: practice/cli-added
    title: Score entries for a dense attention layer
    week: 1
    topics: [scaled_dot_product_attention]
    difficulty: 1
    source: Week 1 notes §6 worked check
    kind: integer
    params:
      B: {int: [2, 8]}
      h: {choice: [2, 4, 8]}
      T: {int: [4, 32]}
    prompt: How many entries has the score tensor for B={{ B }}, h={{ h }}, T={{ T }}?
    answer: score_entries(B, h, T, T)
    misconceptions:
      - id: score_entries_linear_in_T
        answer: B * h * T
    solution: "$B \\\\cdot h \\\\cdot T^2 = {{ num(answer) }}$"
    """)


def test_add_then_update_then_use(tmp_path: Path) -> None:
    path = tmp_path / "new.yaml"
    path.write_text(NEW_TEMPLATE)
    code, out, _ = run("add", str(path))
    assert code == 0 and "1 added" in out
    code, out, _ = run("add", str(path))
    assert code == 0 and "1 unchanged" in out
    path.write_text(NEW_TEMPLATE.replace("Score entries", "Score-tensor entries"))
    code, out, _ = run("add", str(path))
    assert code == 0 and "1 updated" in out
    code, out, _ = run("show", "practice/cli-added", "--seed", "3")
    assert code == 0 and "Score-tensor entries" in out


def test_add_is_all_or_nothing_and_leaves_bank_byte_identical(tmp_path: Path, isolated_bank: Path) -> None:
    run("list")  # create the bank
    before = isolated_bank.read_bytes()
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(NEW_TEMPLATE)
    bad.write_text(NEW_TEMPLATE.replace("practice/cli-added", "practice/cli-bad").replace(
        "answer: score_entries(B, h, T, T)", "answer: __import__('os').system('touch pwned')"))
    code, _, err = run("add", str(good), str(bad))
    assert code == 2 and "bad.yaml: template 'practice/cli-bad'" in err and "field 'answer'" in err
    assert isolated_bank.read_bytes() == before
    assert not (tmp_path / "pwned").exists()
    _, out, _ = run("list", "--json")
    assert "practice/cli-added" not in out


def test_duplicate_keys_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(NEW_TEMPLATE)
    (tmp_path / "b.yaml").write_text(NEW_TEMPLATE)
    code, _, err = run("validate", str(tmp_path))
    assert code == 2 and "duplicate key: also defined in" in err and "a.yaml" in err


def test_add_refuses_to_replace_a_bundled_question(tmp_path: Path) -> None:
    """The bundled file would be re-imported at the next start and silently undo the change."""
    bundled = questions_dir() / "week2" / "training_tricks" / "warmup-rate.yaml"
    edited = tmp_path / "warmup-rate.yaml"
    edited.write_text(bundled.read_text(encoding="utf-8").replace("\ntitle: ", "\ntitle: (mine) ", 1), encoding="utf-8")
    for command in ("validate", "add"):  # validate refuses what add would
        code, out, err = run(command, str(edited))
        assert code == 2 and out == ""
        assert err.startswith(f"quizzer: {edited}: template 'practice/warmup-rate': field 'key': "
                              "'practice/warmup-rate' is a bundled question")
        assert "a key of its own" in err and len(err.strip().splitlines()) == 1
    _, shown, _ = run("show", "practice/warmup-rate")
    assert "(mine)" not in shown


def test_grading_a_recall_card_prints_the_rating_then_the_model_answer() -> None:
    """A recall card is rated, not marked: the rating, then the model answer as a block of its own
    (it was run into 'you answered good; expected …' with a stray full stop after it)."""
    code, out, err = run("grade", "practice/qkv-recall", "--seed", "1", "--answer", "3", "--dry-run")
    assert (code, err) == (0, "")
    first, blank, heading, *answer = out.rstrip("\n").split("\n")
    assert (first, blank, heading) == ("RATED GOOD (score 1) — well done.", "", "Model answer:")
    assert "Q = XW^Q" in out and "you answered" not in out and answer[-1].strip() != "."
    assert all(line.startswith("  ") or not line for line in answer)


def test_asking_for_more_questions_than_match_says_they_repeat() -> None:
    """A teacher's paper of 40 from a topic of 17 questions held Q113 three times, and nothing said so."""
    code, out, err = run("generate", "--paper", "2025T3_Q2_NA", "-n", "5", "--seed", "1", "--format", "json")
    assert code == 0 and len(json.loads(out)) == 5
    assert err == "quizzer: note: 3 questions match, so 2 of the 5 asked repeat one of them with other numbers\n"
    assert run("generate", "--paper", "2025T3_Q2_NA", "-n", "3", "--seed", "1", "--format", "json")[2] == ""
