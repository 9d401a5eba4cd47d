"""Benchmarks of the application layer: instance generation, grading, bank import, CLI start-up."""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NUMERIC_KINDS = {"number", "integer", "vector", "matrix", "shape", "bool"}


def median_us(call: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1e6


def typed_answer(instance: object) -> str:
    """What a student types: letters for choices, a rating for recall cards, else the answer text."""
    kind, answer = instance.kind, instance.answer  # type: ignore[attr-defined]
    if kind == "choice":
        return chr(97 + answer)
    if kind == "multi":
        return ", ".join(chr(97 + i) for i in sorted(answer))
    return "good" if kind == "text" else instance.answer_text  # type: ignore[attr-defined]


def per_template_medians() -> list[tuple[str, str, float, float]]:
    """Per bundled template: its key, kind, and the median µs to make an instance and to grade one."""
    from quizzer.grading.verdict import grade
    from quizzer.templates.instance import make_instance
    from quizzer.templates.loader import load_path
    from quizzer.templates.parts import grade_instance

    templates = [load_path(p) for p in sorted((REPO / "questions").rglob("*.yaml"))]
    rows = []
    for t in templates:
        seeds = iter(range(1, 10_000))
        make_instance(t, 0)  # warm caches (compiled expressions), as in a running session
        build = median_us(lambda t=t, seeds=seeds: make_instance(t, next(seeds)), 200)
        instance = make_instance(t, 1)
        if instance.parts:  # every part graded together, follow-through included
            typed_parts = [typed_answer(part.question) for part in instance.parts]
            score = median_us(functools.partial(grade_instance, instance, typed_parts), 200)
        else:
            score = median_us(functools.partial(grade, instance.spec, typed_answer(instance)), 200)
        rows.append((t.key, t.kind, build, score))
    return rows


def instances_and_grading() -> None:
    rows = per_template_medians()
    print(f"{'template':<34} {'kind':<10} {'instance µs':>12} {'grade µs':>10}")
    for key, kind, build, score in rows:
        print(f"{key:<34} {kind:<10} {build:>12.0f} {score:>10.0f}")
    numeric = [b for _, kind, b, _ in rows if kind in NUMERIC_KINDS]
    print(f"median instance (numeric kinds): {statistics.median(numeric):.0f} µs over {len(numeric)} templates; "
          f"median grade: {statistics.median(r[3] for r in rows):.0f} µs")


def bank_import() -> None:
    from quizzer.bank.db import new_session, open_bank
    from quizzer.bank.store import import_bundled

    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        engine = open_bank(str(Path(folder) / "bank.sqlite"))
        with new_session(engine) as session:
            report = import_bundled(session=session, directory=REPO / "questions")
            session.commit()
        engine.dispose()
        print(f"import whole bank into a new SQLite file: {(time.perf_counter() - started) * 1000:.0f} ms "
              f"({report.summary()})")
        bank_open(str(Path(folder) / "bank.sqlite"))


def bank_open(url: str) -> None:
    """What every command pays before its own work: open an existing, up-to-date bank; and what
    reading the catalogue's YAML costs when it has changed."""
    from quizzer.bank.ready import open_ready_bank
    from quizzer.templates.catalog import load_catalog

    def open_and_close() -> None:
        engine, session = open_ready_bank(url)
        session.close()
        engine.dispose()

    def parse_catalog() -> None:
        load_catalog.cache_clear()
        load_catalog()

    opening = median_us(open_and_close, 15) / 1000
    print(f"open an existing bank (questions and catalogue unchanged): median {opening:.0f} ms")
    print(f"parse the course catalogue (data/*.yaml): median {median_us(parse_catalog, 15) / 1000:.0f} ms")


def startup() -> None:
    exe = Path(sys.executable).with_name("quizzer")
    env = {**os.environ, "QUIZZER_DB": str(Path(tempfile.gettempdir()) / "quizzer-bench.sqlite")}
    for args in (["--help"], ["--version"]):
        samples = []
        for _ in range(7):
            started = time.perf_counter()
            subprocess.run([str(exe), *args], capture_output=True, check=True, env=env)
            samples.append(time.perf_counter() - started)
        print(f"quizzer {args[0]:<10} wall: median {statistics.median(samples) * 1000:.0f} ms, "
              f"min {min(samples) * 1000:.0f} ms (7 runs)")


def class_answers(lines: int) -> str:
    """A class's answers as `grade --batch` reads them: 30 learners, a paper's worth of questions and
    seeds, each answer right or one of its known mistakes (a teacher's real mix)."""
    import csv
    import io
    import random

    from quizzer.templates.instance import make_instance
    from quizzer.templates.loader import load_path

    rng = random.Random(1)
    templates = [load_path(p) for p in sorted((REPO / "questions").rglob("*.yaml"))]
    instances = [make_instance(t, seed) for t in templates if t.kind != "text" for seed in (1, 2, 3)]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["key", "seed", "answer", "learner", "seconds"])
    for _ in range(lines):
        instance = rng.choice(instances)
        typed = rng.choice([typed_answer(instance), *(m.answer_text for m in instance.mistakes)])
        writer.writerow([instance.key, instance.seed, typed, f"student{rng.randrange(30):02d}", rng.randrange(5, 90)])
    return out.getvalue()


def grade_batch(lines: int = 10_000) -> None:
    """`quizzer grade --batch` over a class's answers, from the command line, beside bare Python."""
    exe = Path(sys.executable).with_name("quizzer")
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder) / "class.csv"
        file.write_text(class_answers(lines), encoding="utf-8")
        env = {**os.environ, "QUIZZER_DB": str(Path(folder) / "bank.sqlite")}
        subprocess.run([str(exe), "list"], capture_output=True, check=True, env=env)  # the bank set up once
        bare = wall([sys.executable, "-c", "pass"], env, 5)
        for extra in (["--dry-run"], []):
            seconds = wall([str(exe), "grade", "--batch", str(file), *extra], env, 1)
            label = "dry run" if extra else "recorded"
            print(f"grade --batch, {lines:,} lines, {label:<8}: {seconds:6.2f} s  ({lines / seconds:,.0f} lines/s; "
                  f"bare `python -c pass` {bare * 1000:.0f} ms)")


def wall(command: list[str], env: dict[str, str], runs: int) -> float:
    """Median wall time of a command, in seconds (its exit status is not the point: a bad line gives 2)."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, env=env)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    instances_and_grading()
    bank_import()
    startup()
    grade_batch()


if __name__ == "__main__":
    main()
