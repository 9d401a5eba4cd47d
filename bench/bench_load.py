"""`make bench-load`: a class of simulated learners practising at once on one shared bank.

Each learner is its own process (threads would queue on the GIL for instance generation and
grading, which are pure Python and NumPy), and loops for ``--seconds``: pick a template, make
an instance with a fresh seed, type an answer, grade it, and record the attempt, committed at
once as the app does.  The class is ``simulated_class``'s: each learner has a known ability and
each question a known difficulty, and the answer is right with the Rasch probability, otherwise
the question's first named misconception (questions without one, or answered by selection,
expression or self-rating, are left out of the pool).  After the run the teacher's item analysis
is computed from the bank, and its Rasch difficulties are compared with the true ones
(Spearman's rank correlation): the load test doubles as a check that the report recovers them.
Reported per database: attempts/s, the p50/p99 wall time of one loop
and of its recording step alone, and the check that every attempt a learner was told it
recorded is in the bank afterwards (the count and the very ids).

PostgreSQL comes first, on a fresh database of the server ``--postgres`` (default
``QUIZZER_TEST_PG_URL``; ``make bench-load`` starts a throwaway one), then SQLite in a temp file.
On a machine with fewer cores than learners the learners share the CPU, so attempts/s is bounded
by the CPU as much as by the database; the record step's latency shows the database's part.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(Path(__file__).resolve().parent)]

from bench_quizzer import typed_answer  # noqa: E402
from simulated_class import p_right, simulatable, spearman, true_abilities, true_difficulties  # noqa: E402

SEED = 2026


@dataclass
class LearnerResult:
    """What one learner did: the ids the bank gave its attempts, and how long each step took."""

    ids: list[int] = field(default_factory=list)
    loop_seconds: list[float] = field(default_factory=list)
    record_seconds: list[float] = field(default_factory=list)
    unreadable: int = 0  # answers graded invalid, which are never recorded
    error: str | None = None


def answer_for(instance: Any, rng: random.Random, chance: float) -> str:
    """A typed answer: right with probability ``chance``, else the question's first named misconception."""
    from quizzer.grading.describe import describe

    named = next((w for w in instance.spec.wrong_answers if w.id), None)
    if rng.random() < chance or named is None:
        return typed_answer(instance)
    return chr(97 + named.value) if instance.kind == "choice" else describe(instance.kind, named.value)


def practise(number: int, ability: float, url: str, seconds: float, start: Any, results: Any) -> None:
    """One learner's process: open the bank, wait for the class, then loop until time is up."""
    from quizzer.bank.db import new_session, open_bank
    from quizzer.bank.learners import ensure_learner
    from quizzer.bank.store import all_templates, record_attempt
    from quizzer.grading.verdict import grade
    from quizzer.templates.instance import make_instance

    result = LearnerResult()
    try:
        engine = open_bank(url)
        with new_session(engine) as session:
            templates, rng = simulatable(all_templates(session=session)), random.Random(number)
            difficulties = true_difficulties([t.key for t in templates], SEED)
            learner = ensure_learner(session=session, name=f"learner-{number:02}")  # each its own profile
            start.wait()
            deadline = time.perf_counter() + seconds
            while (began := time.perf_counter()) < deadline:
                instance = make_instance(rng.choice(templates), rng.randrange(1, 2**31))
                response = answer_for(instance, rng, p_right(ability, difficulties[instance.key]))
                verdict = grade(instance.spec, response)
                if verdict.verdict == "invalid":
                    result.unreadable += 1
                    continue
                recording = time.perf_counter()
                attempt = record_attempt(session=session, learner_id=learner.id, key=instance.key, seed=instance.seed,
                                         response=response, verdict=verdict)
                finished = time.perf_counter()
                result.ids.append(attempt.id)  # type: ignore[arg-type]
                result.record_seconds.append(finished - recording)
                result.loop_seconds.append(finished - began)
        engine.dispose()
    except Exception:  # reported in the table: a benchmark that hides a failure measures nothing
        start.abort()  # a learner that cannot start must not leave the class waiting for it
        result.error = traceback.format_exc(limit=3).strip().splitlines()[-1]
    results.put((number, result))


def run_class(url: str, learners: int, seconds: float) -> tuple[list[LearnerResult], float]:
    """Start every learner, release them together, and gather what each did."""
    context = multiprocessing.get_context("fork")  # the parent's imports are shared, not repeated 50 times
    start, results = context.Barrier(learners + 1), context.Queue()
    abilities = true_abilities(learners, SEED)
    processes = [context.Process(target=practise, args=(n, abilities[n], url, seconds, start, results))
                 for n in range(learners)]
    for process in processes:
        process.start()
    with contextlib.suppress(threading.BrokenBarrierError):  # a learner failed to start: see its result
        start.wait()
    began = time.perf_counter()
    gathered = dict(results.get(timeout=seconds + 300) for _ in processes)
    elapsed = time.perf_counter() - began
    for process in processes:
        process.join()
    return [gathered[n] for n in range(learners)], elapsed


def missing_attempts(url: str, ids: list[int]) -> str:
    """'' when the bank holds exactly the attempts the learners recorded, else what differs."""
    from sqlmodel import col, select

    from quizzer.bank.db import new_session, open_bank
    from quizzer.bank.models import Attempt

    engine = open_bank(url)
    with new_session(engine) as session:
        stored = list(session.exec(select(Attempt.id).order_by(col(Attempt.id))).all())
    engine.dispose()
    problems = []
    if len(set(ids)) != len(ids):
        problems.append(f"{len(ids) - len(set(ids))} ids given twice")
    if lost := set(ids) - set(stored):
        problems.append(f"{len(lost)} recorded attempts missing")
    if extra := set(stored) - set(ids):
        problems.append(f"{len(extra)} attempts nobody recorded")
    return "; ".join(problems)


def recovery(url: str, learners: int) -> str:
    """How well the report's Rasch fit recovers the class's true difficulties and abilities."""
    from quizzer.bank.db import new_session, open_bank
    from quizzer.reporting.items import analyse_items
    from quizzer.reporting.queries import load_class

    engine = open_bank(url)
    with new_session(engine) as session:
        data = load_class(session=session)
    engine.dispose()
    fit = analyse_items(data.attempts, data.templates).rasch
    if fit is None:
        return "no Rasch fit: too few learners"
    truth = true_difficulties([t.key for t in simulatable(list(data.templates.values()))], SEED)  # as the learners'
    difficulty = spearman([truth[k] for k in fit.difficulties], [e.value for e in fit.difficulties.values()])
    abilities = dict(zip((f"learner-{n:02}" for n in range(learners)), true_abilities(learners, SEED), strict=True))
    ability = spearman([abilities[n] for n in fit.abilities], [e.value for e in fit.abilities.values()])
    return (f"Rasch recovery (Spearman with the truth): difficulty {difficulty:.3f} over {len(fit.difficulties)} "
            f"questions, ability {ability:.3f} over {len(fit.abilities)} learners")


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1] if len(samples) > 1 else samples[0]


def measure(label: str, url: str, learners: int, seconds: float) -> None:
    from quizzer.bank.ready import open_ready_bank

    engine, session = open_ready_bank(url)  # the questions are imported before the class starts
    session.close()
    engine.dispose()
    results, elapsed = run_class(url, learners, seconds)
    ids = [i for r in results for i in r.ids]
    loops = [s for r in results for s in r.loop_seconds]
    records = [s for r in results for s in r.record_seconds]
    errors = [f"learner {n}: {r.error}" for n, r in enumerate(results) if r.error]
    check = missing_attempts(url, ids) or f"all {len(ids)} present"
    print(f"{label:<11} {learners:>8} {elapsed:>8.1f} {len(ids):>9} {len(ids) / elapsed:>11.1f} "
          f"{percentile(loops, 50) * 1e3:>9.1f} {percentile(loops, 99) * 1e3:>9.1f} "
          f"{percentile(records, 50) * 1e3:>10.1f} {percentile(records, 99) * 1e3:>10.1f}  {check}")
    for line in errors:
        print(f"  {line}")
    if unreadable := sum(r.unreadable for r in results):
        print(f"  ({unreadable} answers graded unreadable, not recorded)")
    print(f"  {recovery(url, learners)}")


def postgres_bank(admin_url: str | None) -> tuple[Any, str] | None:
    """A fresh database on the benchmark server, or None (with the reason printed)."""
    from tests.databases import connect_server

    if admin_url:
        os.environ["QUIZZER_TEST_PG_URL"] = admin_url
    server, reason = connect_server()
    if server is None:
        print(f"postgresql  skipped: {reason}")
        return None
    return server, server.create()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=50, help="simulated learners, one process each")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the class practises, per database")
    parser.add_argument("--postgres", help="a server URL with CREATEDB (default: QUIZZER_TEST_PG_URL)")
    parser.add_argument("--only", choices=("postgresql", "sqlite"), help="measure one database")
    args = parser.parse_args(argv)
    print(f"{args.learners} learners for {args.seconds:g} s each run on {os.cpu_count()} CPU cores; "
          "times in ms")
    print(f"{'database':<11} {'learners':>8} {'seconds':>8} {'attempts':>9} {'attempts/s':>11} "
          f"{'loop p50':>9} {'loop p99':>9} {'record p50':>10} {'record p99':>10}  check")
    if args.only != "sqlite" and (created := postgres_bank(args.postgres)):
        server, url = created
        try:
            measure("postgresql", url, args.learners, args.seconds)
        finally:
            server.drop(url)
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory() as folder:
            measure("sqlite", f"sqlite:///{folder}/bank.sqlite", args.learners, args.seconds)


if __name__ == "__main__":
    main()
