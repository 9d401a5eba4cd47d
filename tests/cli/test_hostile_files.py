"""Hostile files other than templates: batch files (``grade --batch``), progress files (``progress
import``) and damaged banks, each run as a real child process (``corpus_runner.py``'s fork server) on a
bank of its own holding the bundled questions, and checked as the template corpus is
(``test_hostile.py``): exit status 2 and one line naming the file and the place (a batch answers each
line on its own line of JSON: every line of these files is bad, and each gets its error), no traceback,
the bank's dump unchanged, peak memory under 300 MiB, no hang, and no more CPU than a few times
validating a bundled template in the same run.  A damaged bank's text reaches the terminal without a
control sequence.  Files of many megabytes (``/dev/zero``, 17 MB) are made here, not kept in the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_hostile import BASELINE, MAX_COST_RATIO, MAX_PEAK_BYTES, RUNNER, same_bank
from tests.hang import HANG_SECONDS
from tests.run_once import once_per_run

KEY = "2024T3_Q1_NA Q277"
ESC = "\x1b"
DEEP = 200_000


def attempt(**changes: Any) -> dict[str, Any]:
    return {"template_key": KEY, "seed": 0, "response": "18944000", "verdict": "correct", "score": 1.0,
            "misconception": None, "seconds": 12.5, "created_at": "2026-01-05T10:00:00+00:00", "part": None,
            "carried_forward": False} | changes


def progress(*attempts: dict[str, Any], **changes: Any) -> bytes:
    document = {"format": "quizzer-progress", "version": 2, "profile": "ada", "quizzer": "0.1",
                "exported_at": "2026-01-06T10:00:00+00:00", "attempts": list(attempts), "reviews": []} | changes
    return json.dumps(document).encode()


def csv(*rows: str) -> bytes:
    return ("key,seed,answer,learner,seconds\n" + "".join(f"{row}\n" for row in rows)).encode()


# name: (content, or a path to read; the command's arguments after the file; the fragment the refusal says;
#        "line" when a batch answers it line by line on stdout, "refused" when it is one line on stderr)
Case = tuple[bytes | str, tuple[str, ...], str, str]
BATCH = ("grade", "--batch")
PROGRESS = ("progress", "import")
CASES: dict[str, Case] = {
    "batch-dev-zero": ("/dev/zero", BATCH, "a batch file may be at most 16,777,216 bytes", "refused"),
    "batch-seventeen-megabytes": (b"key,seed,answer\n" + b"x,0," + b"9" * (17 * 2**20) + b"\n", BATCH,
                                  "a batch file may be at most", "refused"),
    "batch-unclosed-quote-runs-past-the-field-limit": (
        csv(f"{KEY},0,18944000,ada,3", f'{KEY},0,"{"1" * 200_000}'), BATCH, "line 3: not readable as CSV", "refused"),
    "batch-too-many-lines": (csv(*[f"{KEY},0,1,ada,1"] * 100_001), BATCH, "a batch holds at most 100,000", "refused"),
    "batch-not-utf8": (b"key,seed,answer\n" + KEY.encode() + b",0,\xff\xfe\n", BATCH, "not UTF-8 text", "refused"),
    "batch-json-nested-200000-deep": (
        b'{"key": ' + b"[" * DEEP + b"]" * DEEP + b', "seed": 0, "answer": "1"}\n', BATCH,
        "one flat JSON object of keys and values; this one nests 200,001 deep", "line"),
    "batch-answer-longer-than-the-answer-box": (csv(f"{KEY},0,{'7' * 5000},ada,3"), BATCH,
                                                "'answer' is 5,000 characters long", "line"),
    "batch-key-ten-thousand-characters": (csv(f"{'k' * 10_000},0,1,ada,3"), BATCH,
                                          "'key' is 10,000 characters long", "line"),
    "batch-seconds-infinite": (csv(f"{KEY},0,18944000,ada,inf"), BATCH,
                               "'seconds' must be a number of seconds from 0 to 86,400", "line"),
    "batch-seconds-1e308": (csv(f"{KEY},0,18944000,ada,1e308"), BATCH, "'seconds' must be a number", "line"),
    "batch-seconds-nan-in-json": (f'{{"key": "{KEY}", "seed": 0, "answer": "1", "seconds": NaN}}\n'.encode(), BATCH,
                                  "'seconds' must be a number", "line"),
    "batch-seed-of-5000-digits": (csv(f"{KEY},{'9' * 5000},18944000,ada,3"), BATCH,
                                  "'seed' must be a whole number from 0 to", "line"),
    "batch-superscript-seed": (csv(f"{KEY},²,18944000,ada,3"), BATCH, "'seed' must be a whole number", "line"),
    "batch-escape-in-an-answer-that-grades-correct": (csv(f"{KEY},0,18944000{ESC}[2J{ESC}]0;x{chr(7)},ada,3"), BATCH,
                                                      "'answer' holds a control character U+001B", "line"),
    "batch-learner-name-with-escape": (csv(f"{KEY},0,18944000,ad{ESC}[2Ja,3"), BATCH, "invalid profile name", "line"),
    "progress-dev-zero": ("/dev/zero", PROGRESS, "a progress file may be at most 8,388,608 bytes", "refused"),
    "progress-array-200000-deep": (b"[" * DEEP + b"]" * DEEP, PROGRESS, "nests 200,000 deep", "refused"),
    "progress-seed-of-5000-digits": (progress(attempt(seed=1)).replace(b'"seed": 1', b'"seed": ' + b"9" * 5000),
                                     PROGRESS, "not a progress file", "refused"),
    "progress-seed-beyond-the-largest": (progress(attempt(seed=2**64)), PROGRESS, "attempts.0.seed", "refused"),
    "progress-escape-in-misconception-id": (progress(attempt(verdict="incorrect", score=0.0,
                                                             misconception=f"{ESC}[2Jwiped")),
                                            PROGRESS, "attempts.0.misconception: Value error, unknown misconception",
                                            "refused"),
    "progress-escape-in-response": (progress(attempt(response=f"1{ESC}]0;title{chr(7)}")), PROGRESS,
                                    "attempts.0.response: Value error, control character U+001B", "refused"),
    "progress-response-of-100000-characters": (progress(attempt(response="1" * 100_000)), PROGRESS,
                                               "attempts.0.response: String should have at most 2000", "refused"),
    "progress-year-9999": (progress(attempt(created_at="9999-12-31T23:59:59+00:00")), PROGRESS,
                           "attempts.0.created_at: Value error, 9999-12-31T23:59:59+00:00 is in the future", "refused"),
    "progress-correct-scoring-zero": (progress(attempt(score=0.0)), PROGRESS, "a 'correct' attempt cannot score 0",
                                      "refused"),
    "progress-partial-scoring-one": (progress(attempt(verdict="partial")), PROGRESS,
                                     "a 'partial' attempt cannot score 1", "refused"),
    "progress-seconds-infinity": (progress(attempt(seconds=12.5)).replace(b"12.5", b"Infinity"), PROGRESS,
                                  "attempts.0.seconds: Input should be a finite number", "refused"),
    "progress-seconds-beyond-a-day": (progress(attempt(seconds=1e9)), PROGRESS, "attempts.0.seconds", "refused"),
    "progress-profile-of-escapes": (progress(attempt(), profile=f"{ESC}[2J" * 10), PROGRESS,
                                    "profile: Value error, control character U+001B", "refused"),
}


def _set_seconds_infinite(bank: Path) -> None:
    with closing(sqlite3.connect(bank)) as db, db:
        db.execute("INSERT INTO learner (name, created_at) VALUES ('ada', '2026-01-05 10:00:00')")
        db.execute("INSERT INTO attempt (learner_id, template_key, seed, response, verdict, score, seconds, created_at,"
                   " carried_forward) SELECT id, ?, 0, '1', 'incorrect', 0, 9e999, '2026-01-05 10:00:00', 0 "
                   "FROM learner WHERE name = 'ada'", (KEY,))


def _escape_in_title(bank: Path) -> None:
    with closing(sqlite3.connect(bank)) as db, db:
        db.execute("UPDATE template SET title = ? WHERE key = ?",
                   (f"Evil {ESC}[2J{ESC}]52;c;cHduZWQ={chr(7)} title", KEY))


def _escape_in_learner(bank: Path) -> None:
    with closing(sqlite3.connect(bank)) as db, db:
        db.execute("INSERT INTO learner (name, created_at) VALUES (?, '2026-01-05 10:00:00')", (f"bob{ESC}[31m\x9b2J",))


# name: (damage done to the bank, the command, the fragment its one line says; None: it succeeds, and what it
#        prints carries no control sequence)
DAMAGE: dict[str, tuple[Callable[[Path], None], tuple[str, ...], str | None]] = {
    "bank-infinite-seconds-exported": (_set_seconds_infinite, ("--profile", "ada", "progress", "export", "-"),
                                       "the bank holds a number that is not finite"),
    "bank-escape-in-a-title-listed": (_escape_in_title, ("list",), None),
    "bank-escape-in-a-learner-name": (_escape_in_learner, ("profiles",), None),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, bundled_bank_file: Path) -> dict[str, Any]:
    """Every case through its command in a child process, once per test run (``tests/run_once.py``)."""
    results = once_per_run(tmp_path_factory, "hostile-files", lambda root: _run_cases(root, bundled_bank_file))
    results["root"] = Path(results["root"])
    return results  # type: ignore[no-any-return]


def _run_cases(root: Path, bundled_bank_file: Path) -> dict[str, Any]:
    jobs, names = [], []

    def job(name: str, args: list[str]) -> Path:
        directory = root / name
        directory.mkdir()
        shutil.copyfile(bundled_bank_file, directory / "bank.sqlite")
        jobs.append({"args": args, "dir": str(directory)})
        names.append(name)
        return directory

    for name, (content, command, _, _) in CASES.items():
        file = root / f"{name}.input"
        if isinstance(content, bytes):
            file.write_bytes(content)
        job(name, [*command, content if isinstance(content, str) else str(file)])
    for name, (damage, command, _) in DAMAGE.items():
        damage(job(name, list(command)) / "bank.sqlite")
    job("baseline", ["validate", str(BASELINE)])
    env = {**os.environ, "XDG_DATA_HOME": str(root / "xdg"), "QUIZZER_PROFILE": "marie"}
    done = subprocess.run([sys.executable, str(RUNNER), str(max(1, min(4, os.cpu_count() or 1))), str(HANG_SECONDS)],
                          input=json.dumps(jobs), capture_output=True, text=True, env=env, check=True,
                          timeout=HANG_SECONDS * len(jobs))
    results = dict(zip(names, json.loads(done.stdout), strict=True))
    for name, result in results.items():
        result["bank_unchanged"] = name in DAMAGE or same_bank(root / name / "bank.sqlite", bundled_bank_file)
    results["root"] = str(root)
    return results


def check_bounded(run: dict[str, Any], baseline: dict[str, Any]) -> None:
    assert not run["hung"]
    assert "Traceback" not in run["stderr"]
    assert run["peak_bytes"] < MAX_PEAK_BYTES
    assert run["cpu_seconds"] <= MAX_COST_RATIO * baseline["cpu_seconds"]
    assert run["bank_unchanged"], "the bank's dump changed"


def test_the_cases_are_many() -> None:
    assert len(CASES) + len(DAMAGE) >= 25


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_file_is_refused_on_one_line(name: str, runs: dict[str, Any]) -> None:
    run, (content, _, fragment, how) = runs[name], CASES[name]
    print(f"{name}: {run['seconds'] * 1000:.0f} ms ({run['cpu_seconds'] * 1000:.0f} ms CPU), "
          f"peak {run['peak_bytes'] / 2**20:.0f} MiB")
    check_bounded(run, runs["baseline"])
    assert run["status"] == 2, run["stderr"] or run["stdout"][:300]
    if how == "refused":  # the file as a whole: one line on stderr naming it, nothing graded or printed
        assert run["stdout"] == ""
        [line] = run["stderr"].splitlines()
        assert line.startswith(f"quizzer: {content if isinstance(content, str) else runs['root'] / name}.input") \
            or line.startswith(f"quizzer: {content}"), line
        assert fragment in line, line
        assert len(line) < 400 and ESC not in line
    else:  # a batch: every line is bad, each answered with its line number and why, and nothing recorded
        assert run["stderr"] == ""
        results = [json.loads(line) for line in run["stdout"].splitlines()]
        assert results and all("error" in result and "line" in result for result in results)
        assert "recorded" not in run["stdout"] and any(fragment in result["error"] for result in results), results
        assert all(len(result["error"]) < 400 for result in results)


@pytest.mark.parametrize("name", list(DAMAGE))
def test_a_damaged_bank(name: str, runs: dict[str, Any]) -> None:
    run, (_, _, fragment) = runs[name], DAMAGE[name]
    check_bounded(run, runs["baseline"])
    if fragment is None:
        assert run["status"] == 0, run["stderr"]
        output = run["stdout"] + run["stderr"]
        assert not any(ch in output for ch in (ESC, "\x07", "\x9b")), output
        assert ("Evil" in output) or ("bob" in output)  # shown, without its escapes
    else:
        assert run["status"] == 2 and run["stdout"] == ""
        [line] = run["stderr"].splitlines()
        assert fragment in line, line
