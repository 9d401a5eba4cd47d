"""A learner practising in a real process: the child the crash and concurrency tests start.

It grades through the same code path as the practice app (``Study.submit``), answers each
question with its expected answer (every other one deliberately wrong, so both verdicts are
recorded), and prints ``recorded <n> <key> <seed>``
only after the attempt is committed.  Run: ``python practice_worker.py COUNT SEED [next|any]``:
``next`` chooses questions as the app does (``Study.next``, which replays the whole history),
``any`` picks a random question (cheap, for many answers).  The bank is the one ``QUIZZER_DB``
names, like every other entry point.
"""

from __future__ import annotations

import random
import sys

from quizzer.bank.learners import ensure_learner
from quizzer.bank.ready import open_ready_bank
from quizzer.learning.study import Study
from quizzer.templates.catalog import load_catalog
from quizzer.templates.instance import Instance, make_instance

# Answers that are readable but wrong whatever the numbers (no answer in the bank is this far off).
WRONG_BY_KIND = {"number": "-1e9", "integer": "-123456789", "shape": "[7, 7, 7]"}


def response(instance: Instance, wrong: bool) -> str:
    """The expected answer (a recall card: "good"), or, for kinds with an always-readable wrong one, that."""
    if instance.kind == "text":
        return "again" if wrong else "good"
    return WRONG_BY_KIND.get(instance.kind, instance.answer_text) if wrong else instance.answer_text


def choose(study: Study, how: str) -> Instance:
    if how == "next":
        return study.next().instance
    template = study.rng.choice(sorted(study.templates.values(), key=lambda t: t.key))
    return make_instance(template, study.rng.randrange(1, 1_000_000))


def main(count: int, seed: int, how: str) -> None:
    engine, session = open_ready_bank()
    learner = ensure_learner(session=session, name=f"learner {seed}")  # each worker is its own learner
    study = Study(session=session, catalog=load_catalog(), learner=learner, rng=random.Random(seed))
    for number in range(1, count + 1):
        instance = choose(study, how)
        if instance.parts:  # a multi-part question: one answer per part, graded together
            verdicts, _ = study.answer_parts(instance, [response(p.question, wrong=number % 2 == 0)
                                                        for p in instance.parts], seconds=1.0)
            print(f"recorded {number} {instance.key} {instance.seed} rows={len(verdicts)}", flush=True)
            continue
        verdict = study.submit(instance, response(instance, wrong=number % 2 == 0), seconds=1.0)
        if verdict.verdict == "invalid":
            raise SystemExit(f"{instance.key} seed {instance.seed}: unreadable {verdict.feedback}")
        print(f"recorded {number} {instance.key} {instance.seed} rows=1", flush=True)
    session.close()
    engine.dispose()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "next")
