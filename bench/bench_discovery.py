"""Feedback latency with mistake discovery on (issue 19): `python bench/bench_discovery.py`.

For every bundled template whose expressions call an engine function that has a slip, and for
several seeds, a fresh instance is graded with a wrong answer that no listed misconception
matches, so the grader reruns the template under each applicable slip (the first, uncached call),
then graded again (the answer's slips are kept with the instance). The answer typed is one that
a slip produces when there is one (the discovery then names it), else the right answer doubled.
Figures are printed, never asserted; tests/templates/test_discovery.py holds a ratio check.
Kept apart from bench/run.py (another change is rewriting that file); run it on its own.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from msgspec.structs import replace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SEEDS = range(1, 6)


def _timed_grade(spec, typed):  # type: ignore[no-untyped-def]
    from quizzer.grading.verdict import grade

    started = time.perf_counter()
    verdict = grade(spec, typed)
    return verdict, (time.perf_counter() - started) * 1e3


def main() -> None:
    from quizzer.templates.answer_text import answer_text
    from quizzer.templates.catalog import questions_dir
    from quizzer.templates.discovery import applicable_mutations, discovered_answers
    from quizzer.templates.instance import make_instance
    from quizzer.templates.loader import load_path
    from quizzer.templates.sources import template_files

    templates = []
    for path in template_files([questions_dir()]):
        loaded = load_path(path)
        for template in loaded if isinstance(loaded, list) else [loaded]:
            if applicable_mutations(template) and not template.parts:  # a chain's slips: per part, as one question
                templates.append(template)
    first, cached, plain, rows = [], [], [], []
    for template in templates:
        for seed in SEEDS:
            instance = make_instance(template, seed)
            spec = instance.spec
            slips = discovered_answers(template, instance.values, spec)  # to choose what to type only
            fresh = make_instance(template, seed)
            typed = answer_text(template, slips[0].value, ()) if slips else answer_text(
                template, instance.answer * 2 if template.kind != "shape" else (*instance.answer, 1), ())
            _, listed_only = _timed_grade(replace(spec, discover=None), typed)
            verdict, ms = _timed_grade(fresh.spec, typed)
            _, again = _timed_grade(fresh.spec, typed)
            first.append(ms)
            cached.append(again)
            plain.append(listed_only)
            rows.append((ms, template.key, seed, verdict.misconception))
    first.sort()
    print(f"{len(templates)} templates with applicable slips, {len(first)} instances "
          f"(seeds {SEEDS.start}-{SEEDS.stop - 1})")
    print(f"{'grading one wrong answer':<42}{'median':>9}{'p95':>9}{'max':>9}  (ms)")
    for name, samples in (("listed misconceptions only", sorted(plain)), ("with discovery, first answer", first),
                          ("with discovery, cached", sorted(cached))):
        print(f"{name:<42}{statistics.median(samples):>9.2f}{samples[int(0.95 * (len(samples) - 1))]:>9.2f}"
              f"{samples[-1]:>9.2f}")
    print("slowest first answers:")
    for ms, key, seed, named in sorted(rows, reverse=True)[:5]:
        print(f"  {ms:7.2f} ms  {key} seed {seed}: {named}")


if __name__ == "__main__":
    main()
