"""The start-up and latency goals of issue 17, each figure beside its baseline measured in the same run.

- One-question commands (``show``, ``generate``, ``grade --dry-run``) against a bare ``python -c
  pass`` from the same venv: wall time, median of RUNS, the command and the baseline alternating
  run by run so both see the same machine load.  Goal: ≤ 8× bare Python.  Below them, the same ratio
  for importing only what no one-question command can do without (``FLOORS``).
- The app's start against ``bench/tiny_app.py`` (one Textual widget), both started the same
  way in a pseudo-terminal of 120x40 and timed until a text of theirs is on the terminal: the
  tiny app's one line; for quizzer, the *filled* dashboard, the one a student can use (its summary's
  "N reviews due" and the topic table's "Mastery" column, both shown only with the
  learner's data; the "Loading your bank…" frame before it does not count).  Reading the pty is what
  a user's terminal sees and needs no hook in the app; Textual writes a frame in one piece, so the
  text arrives with the frame that paints it.  Goal: ≤ 2× the tiny app.  The bank has answers in it
  (``quizzer grade``) and the app was started once since (the bank's first-start set-up and the
  dashboard snapshot it saves, ``quizzer.learning.snapshot``); a second row times the start right
  after answers recorded outside the app (``quizzer grade``), when that snapshot is stale and the
  dashboard waits for the bank to open.
- Instance generation and grading: medians over every template of the bank (µs per call, in this
  process, caches warm as in a session).  Goals: ≤ 100 µs and ≤ 50 µs, absolute; beside them the time of
  a fixed piece of pure Python (``REFERENCE``) in the same run says how fast the machine was at the
  hour (the same code measured 2.4 times slower on a slow day of the development machine).
"""

from __future__ import annotations

import os
import pty
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = 9
APP_RUNS = 5
Q277 = "2024T3_Q1_NA Q277"
ONE_QUESTION = {
    "show": ["show", Q277, "--seed", "3"],
    "generate": ["generate", "-k", Q277, "--seed", "3", "--solutions"],
    "grade --dry-run": ["grade", Q277, "--seed", "3", "--answer", "1", "--dry-run"],
}
# What every one-question command must import whatever quizzer does (NumPy computes every answer,
# templates are YAML checked against msgspec structs; the command line is argparse, 2 ms): the floor
# under the ratio, printed beside it so that a figure over the goal says whose time it is.
FLOORS = {
    "floor: numpy": "import numpy",
    "floor: + yaml, msgspec": "import numpy, yaml, msgspec",
}
APP_TITLE = b"Transformers exam revision"
# Both only on the filled dashboard: the summary's line once the learner's data is in, the topic table's header.
FILLED = [b"reviews due", b"Mastery"]
ANSWERED = [["grade", Q277, "--seed", str(seed), "--answer", "1"] for seed in (3, 4)]
REFERENCE = "sum(range(1000))"


def seconds(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, env=env, check=True)
    return time.perf_counter() - started


def until_on_terminal(command: list[str], texts: list[bytes], env: dict[str, str]) -> list[float]:
    """Seconds from starting ``command`` in a pty (120x40) until each of ``texts`` is on the terminal."""
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    env = dict(env, TERM="xterm-256color", COLUMNS="120", LINES="40")
    started = time.perf_counter()
    child = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env,
                             start_new_session=True)
    seen, found = b"", [0.0] * len(texts)
    try:
        while not all(found) and time.perf_counter() - started < 60:
            select.select([leader], [], [], 0.005)
            try:
                seen += os.read(leader, 1 << 16)
            except BlockingIOError:
                continue
            for index, text in enumerate(texts):
                if not found[index] and text in seen:
                    found[index] = time.perf_counter() - started
    finally:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait()
        os.close(leader)
        os.close(follower)
    if not all(found):
        raise TimeoutError(f"{command[-1]} did not show {texts} within a minute")
    return found


def ratio_row(label: str, figure: list[float], baseline: list[float], goal: float) -> str:
    ms, base = statistics.median(figure) * 1e3, statistics.median(baseline) * 1e3
    return f"{label:<30} {ms:>9.0f} {base:>11.0f} {ms / base:>7.1f}× {f'≤ {goal:g}×':>7}"


def one_question_commands(env: dict[str, str]) -> None:
    python, quizzer = sys.executable, str(Path(sys.executable).with_name("quizzer"))
    for args in ONE_QUESTION.values():
        seconds([quizzer, *args], env)  # bank set up, caches written: what every later run finds
    print(f"{'command (wall, median of ' + str(RUNS) + ')':<30} {'ms':>9} {'bare py ms':>11} {'ratio':>8} {'goal':>7}")
    for label, args in ONE_QUESTION.items():
        figure, baseline = [], []
        for _ in range(RUNS):  # alternating: both see the same load
            baseline.append(seconds([python, "-c", "pass"], env))
            figure.append(seconds([quizzer, *args], env))
        print(ratio_row(f"quizzer {label}", figure, baseline, 8))
    for label, code in FLOORS.items():
        figure, baseline = [], []
        for _ in range(RUNS):
            baseline.append(seconds([python, "-c", "pass"], env))
            figure.append(seconds([python, "-c", code], env))
        print(ratio_row(label, figure, baseline, 8))


def first_paint(env: dict[str, str]) -> None:
    from tiny_app import MARKER

    quizzer = str(Path(sys.executable).with_name("quizzer"))
    tiny = [sys.executable, str(Path(__file__).with_name("tiny_app.py"))]
    for args in ANSWERED:
        seconds([quizzer, *args], env)  # a learner with answers (and the bank set up once)
    until_on_terminal([quizzer], FILLED, env)  # the app started once since: its snapshot saved
    figure, baseline, stale, title = [], [], [], []
    for run in range(APP_RUNS):
        baseline += until_on_terminal(tiny, [MARKER.encode()], env)
        painted, *filled = until_on_terminal([quizzer], [APP_TITLE, *FILLED], env)
        title.append(painted)
        figure.append(max(filled))
        seconds([quizzer, *ANSWERED[run % 2]], env)  # an answer recorded outside the app: the snapshot is stale
        stale.append(max(until_on_terminal([quizzer], FILLED, env)))
    print(f"{'app in a pty (median of ' + str(APP_RUNS) + ')':<30} {'ms':>9} {'tiny app ms':>11} {'ratio':>8} "
          f"{'goal':>7}")
    print(ratio_row("`quizzer` → filled dashboard", figure, baseline, 2))
    print(ratio_row("  (its first frame)", title, baseline, 2))
    print(ratio_row("  (after a `quizzer grade`)", stale, baseline, 2))


def generation_and_grading() -> None:
    from bench_quizzer import per_template_medians

    rows = per_template_medians()
    build = statistics.median(row[2] for row in rows)
    score = statistics.median(row[3] for row in rows)
    reference = min(timeit.repeat(REFERENCE, number=1000, repeat=7)) * 1e3  # µs per run
    print(f"instance generation, median over {len(rows)} templates: {build:6.0f} µs  (goal ≤ 100 µs; "
          f"{build / reference:.1f}× the reference)")
    print(f"grading, median over {len(rows)} templates:             {score:6.0f} µs  (goal ≤ 50 µs; "
          f"{score / reference:.1f}× the reference)")
    print(f"reference, pure Python `{REFERENCE}`:               {reference:6.1f} µs  (the machine's speed this hour)")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "QUIZZER_DB": str(Path(folder) / "bank.sqlite"), "QUIZZER_PROFILE": "bench"}
        # As on a user's machine, Python caches each module's bytecode at its first import; a sandbox that
        # sets PYTHONDONTWRITEBYTECODE would have every start compile quizzer's modules again.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        one_question_commands(env)
        first_paint(env)
    generation_and_grading()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
