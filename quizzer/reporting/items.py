"""Item analysis: does each question measure anything?  Pure functions over the class's attempts.

**Which answers count.**  For facility, discrimination, the groups and the Rasch fit, each learner
counts once per question: their *first* attempt (a later one is helped by the worked solution).
Attempts, wrong answers, mistakes and the median time count every attempt.

- **facility**: the mean first-try score (partial credit counts as its score).
- **discrimination**: the corrected item–rest correlation: Pearson's r between the learners'
  first-try score on this question and their mean first-try score on the *other* questions in
  scope (the question itself left out, so it does not correlate with itself).  Learners answer
  different questions, hence a mean rather than a total.  Needs ``MIN_ITEM_LEARNERS`` learners.
- **groups**: the learners who tried the question, ordered by their rest score, split in thirds
  (lower, middle, upper); the facility in each third.  Each flag carries the three numbers it is
  about (facility, or the share making the mistake, by third) for the report's chart.
- **wrong answers / mistakes**: the most frequent responses (as typed, spaces trimmed; an
  expression as maths, so ``B*h*T^2`` and ``BhT²`` count as one answer, shown ``BhT²``) and named
  misconceptions among the attempts not graded correct, each with its share of those attempts.

**Flags** (each with its reason; only on questions with ``MIN_ITEM_LEARNERS`` learners):
too easy (facility > ``TOO_EASY``), too hard (< ``TOO_HARD``), not discriminating
(discrimination < ``LOW_DISCRIMINATION``, or negative: a likely wrong key; only with
``MIN_DISCRIMINATION_LEARNERS`` learners), and a mistake the
upper third makes more often than the lower third: at least ``MIN_UPPER_MISTAKES`` times, and
more often by a two-proportion z of at least ``MISTAKE_Z`` (so that chance alone rarely flags a
mistake both thirds make about as often): a sign of a wrong key or a misleading prompt.

**Rasch (1PL).**  Fitted (``quizzer.reporting.rasch``) when at least ``MIN_IRT_LEARNERS``
learners have a first try in scope, on first tries scored right (score 1) or not, over the
questions with at least ``MIN_ITEM_LEARNERS`` learners: with fewer, the estimates' standard
errors are wider than the differences a teacher would act on.

**Variants.**  A question asked with different numbers (each version of an exam has its own seed; imported
results may name a ``version``) is compared variant by variant, on first tries right (score 1) or not:
each variant with at least ``MIN_VARIANT_LEARNERS`` learners against the question's other variants
pooled, by a two-sided two-proportion z test (pooled standard error: the chi-square test of a 2 × 2 table
without continuity correction, R's ``prop.test(correct = FALSE)``), the p-values of one question's
variants adjusted by Holm's method when there are more than two (so that 30 versions do not flag one by
chance; two variants are a single comparison); a variant whose adjusted p is below
``VARIANT_ALPHA`` is flagged significantly *easier* or *harder* than its siblings.

**Per paper.**  The questions of each routed paper summed up: how many, their learners and
attempts, mean facility and discrimination, and how many are flagged.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from quizzer.grading.parse import preview
from quizzer.learning.mastery import as_utc
from quizzer.reporting.classdata import ClassAttempt, Question
from quizzer.reporting.rasch import Estimate, RaschFit, fit_rasch

TOO_EASY = 0.95
TOO_HARD = 0.2
LOW_DISCRIMINATION = 0.1
MIN_ITEM_LEARNERS = 5
MIN_UPPER_MISTAKES = 3
# Discrimination flags wait for this many learners: over fewer, a correlation's standard error (about
# 1/sqrt(n - 1)) is wider than the 0.1 that separates a useful question from a useless one by far.
MIN_DISCRIMINATION_LEARNERS = 20
MISTAKE_Z = 2.0  # one-sided, about a 2% chance of flagging a mistake the thirds make alike
MIN_IRT_LEARNERS = 30
MIN_VARIANT_LEARNERS = 10
VARIANT_ALPHA = 0.05
TOP_WRONG = 3
GROUPS = ("lower", "middle", "upper")


@dataclass(frozen=True)
class Share:
    text: str  # a typed response, or a misconception id
    count: int
    share: float  # of the attempts not graded correct


@dataclass(frozen=True)
class Flag:
    kind: str  # too-easy | too-hard | not-discriminating | upper-mistake
    reason: str
    groups: tuple[float, float, float]  # what the flag is about, in the lower, middle and upper third
    measure: str  # what ``groups`` measures, e.g. "facility" or "share making mistake_id"


@dataclass(frozen=True)
class VariantStats:
    """One variant of a question (a version of the exam, or a seed) against the question's other variants."""

    variant: str
    learners: int
    facility: float  # share right at the first try
    others: float  # the same over the question's other variants
    z: float
    p: float  # two-sided, Holm-adjusted over the question's variants
    flag: str  # "easier", "harder" or ""


@dataclass(frozen=True)
class ItemStats:
    key: str
    title: str
    paper: str | None
    attempts: int
    learners: int
    facility: float
    discrimination: float | None
    groups: tuple[float | None, float | None, float | None]  # facility of the lower, middle, upper third
    wrong_answers: tuple[Share, ...]
    mistakes: tuple[Share, ...]
    median_seconds: float | None
    flags: tuple[Flag, ...]
    difficulty: Estimate | None  # Rasch, logits
    variants: tuple[VariantStats, ...] = ()  # with two variants or more of MIN_VARIANT_LEARNERS learners


@dataclass(frozen=True)
class PaperStats:
    paper: str
    items: int
    learners: int
    attempts: int
    facility: float
    discrimination: float | None  # mean over its questions that have one
    flagged: int


@dataclass(frozen=True)
class ItemAnalysis:
    items: list[ItemStats]  # by paper, then key
    papers: list[PaperStats]
    rasch: RaschFit | None
    rasch_rule: str  # why there is (or is not) a Rasch fit, in words


def analyse_items(attempts: Sequence[ClassAttempt], templates: Mapping[str, Question]) -> ItemAnalysis:
    """Item statistics, flags and (with enough learners) the Rasch fit for the questions in ``templates``."""
    mine = [a for a in attempts if a.key in templates]
    first = _first_tries(mine)
    by_question: dict[str, list[ClassAttempt]] = defaultdict(list)  # a part of a chain is an item of its own
    for attempt in mine:
        by_question[attempt.question].append(attempt)
    rasch, rule = _rasch(first)
    totals = {learner: sum(a.score for a in answers.values()) for learner, answers in first.items()}
    items = [_item(question, templates[history[0].key], history, first, totals, rasch)
             for question, history in sorted(by_question.items(),
                                             key=lambda kv: (templates[kv[1][0].key].paper or "~", kv[0]))]
    return ItemAnalysis(items, _papers(items, mine, templates), rasch, rule)


def _first_tries(attempts: Sequence[ClassAttempt]) -> dict[str, dict[str, ClassAttempt]]:
    """Each learner's first attempt on each question (each part of a chain): learner → question → attempt."""
    first: dict[str, dict[str, ClassAttempt]] = defaultdict(dict)
    for attempt in sorted(attempts, key=lambda a: as_utc(a.at)):
        first[attempt.learner].setdefault(attempt.question, attempt)
    return first


def _rasch(first: Mapping[str, Mapping[str, ClassAttempt]]) -> tuple[RaschFit | None, str]:
    rule = (f"Rasch (1PL) fitted when at least {MIN_IRT_LEARNERS} learners have answered, over the questions "
            f"tried by at least {MIN_ITEM_LEARNERS}; first tries, right = full marks")
    if len(first) < MIN_IRT_LEARNERS:
        return None, f"{rule}: {len(first)} learners so far, so not fitted"
    tried = Counter(key for answers in first.values() for key in answers)
    fit = fit_rasch((learner, key, int(a.score >= 1.0)) for learner, answers in first.items()
                    for key, a in answers.items() if tried[key] >= MIN_ITEM_LEARNERS)
    return fit, rule


def _rest_scores(key: str, first: Mapping[str, Mapping[str, ClassAttempt]],
                 totals: Mapping[str, float]) -> dict[str, tuple[float, float]]:
    """learner → (first-try score on ``key``, mean first-try score on the other questions)."""
    return {learner: (answers[key].score, (totals[learner] - answers[key].score) / (len(answers) - 1))
            for learner, answers in first.items() if key in answers and len(answers) > 1}


def _correlation(pairs: Sequence[tuple[float, float]]) -> float | None:
    if len(pairs) < MIN_ITEM_LEARNERS:
        return None
    xs, ys = zip(*pairs, strict=True)
    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None  # everybody alike on one side: a correlation means nothing
    return statistics.correlation(xs, ys)


def _thirds(rest: Mapping[str, tuple[float, float]]) -> tuple[list[str], list[str], list[str]]:
    ordered = sorted(rest, key=lambda learner: (rest[learner][1], learner))
    third = len(ordered) // 3
    return ordered[:third], ordered[third:len(ordered) - third], ordered[len(ordered) - third:]


def _shares(counter: Counter[str], total: int) -> tuple[Share, ...]:
    return tuple(Share(text, n, n / total) for text, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
                 [:TOP_WRONG])


def _shown(response: str, template: Question) -> str:
    """A response as the report lists it: an expression as maths (as the student saw it read), else as typed."""
    if template.kind == "expression":
        read = preview("expression", response, variables=template.variables)
        if read.readable:
            return read.text
    return response.strip()


def _item(key: str, template: Question, history: Sequence[ClassAttempt],
          first: Mapping[str, Mapping[str, ClassAttempt]], totals: Mapping[str, float],
          rasch: RaschFit | None) -> ItemStats:
    firsts = [answers[key] for answers in first.values() if key in answers]
    facility = statistics.fmean(a.score for a in firsts)
    rest = _rest_scores(key, first, totals)
    discrimination = _correlation(list(rest.values()))
    thirds = [[first[learner][key] for learner in group] for group in _thirds(rest)]
    lower, middle, upper = (statistics.fmean(a.score for a in group) if group else None for group in thirds)
    wrong = [a for a in history if a.verdict != "correct"]
    times = [a.seconds for a in history if a.seconds is not None]
    enough = len(firsts) >= MIN_ITEM_LEARNERS and all(thirds)
    return ItemStats(
        key=key, title=history[0].title(template), paper=template.paper, attempts=len(history), learners=len(firsts),
        facility=facility, discrimination=discrimination, groups=(lower, middle, upper),
        wrong_answers=_shares(Counter(_shown(a.response, template) for a in wrong if a.response), len(wrong)),
        mistakes=_shares(Counter(a.misconception for a in wrong if a.misconception), len(wrong)),
        median_seconds=statistics.median(times) if times else None,
        flags=_flags(facility, discrimination, thirds) if enough else (),
        difficulty=rasch.difficulties.get(key) if rasch else None, variants=compare_variants(firsts))


def compare_variants(firsts: Sequence[ClassAttempt]) -> tuple[VariantStats, ...]:
    """Each variant with enough learners against the others pooled (two-proportion z, Holm-adjusted)."""
    groups: dict[str, list[int]] = defaultdict(list)
    for attempt in firsts:
        groups[attempt.variant].append(int(attempt.score >= 1.0))
    big = sorted(variant for variant, rights in groups.items() if len(rights) >= MIN_VARIANT_LEARNERS)
    if len(big) < 2:
        return ()
    everyone = [right for rights in groups.values() for right in rights]
    tests = []
    for variant in big:
        mine = groups[variant]
        right, n = sum(mine), len(mine)
        other_right, other_n = sum(everyone) - right, len(everyone) - n
        z = _z_more(right, n, other_right, other_n)
        tests.append((variant, n, right / n, other_right / other_n, z, math.erfc(abs(z) / math.sqrt(2))))
    # Two variants are one comparison (each against the other), not two to adjust for.
    adjusted = _holm([p for *_, p in tests]) if len(tests) > 2 else [p for *_, p in tests]
    return tuple(VariantStats(variant, n, facility, others, z, p,
                              ("easier" if z > 0 else "harder") if p < VARIANT_ALPHA else "")
                 for (variant, n, facility, others, z, _), p in zip(tests, adjusted, strict=True))


def _holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the k-th smallest p times (m − k + 1), kept monotone, at most 1."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _flags(facility: float, discrimination: float | None, thirds: list[list[ClassAttempt]]) -> tuple[Flag, ...]:
    """The flags of one question from its facility, discrimination and first tries by third (none empty)."""
    def by_third(value: Callable[[ClassAttempt], float]) -> tuple[float, float, float]:
        lower, middle, upper = (statistics.fmean(map(value, group)) for group in thirds)
        return lower, middle, upper

    scores = by_third(lambda a: a.score)
    flags = []
    if facility > TOO_EASY:
        flags.append(Flag("too-easy", f"facility {facility:.2f} > {TOO_EASY}: almost everybody is right",
                          scores, "mean first-try score"))
    if facility < TOO_HARD:
        flags.append(Flag("too-hard", f"facility {facility:.2f} < {TOO_HARD}: almost everybody is wrong",
                          scores, "mean first-try score"))
    # Over a handful of learners a correlation is noise: six learners flagged a right key "check the key".
    if discrimination is not None and sum(map(len, thirds)) >= MIN_DISCRIMINATION_LEARNERS:
        if discrimination < 0:
            flags.append(Flag("not-discriminating", f"discrimination {discrimination:+.2f} is negative: the weaker "
                                                    "learners do better here; check the key", scores,
                              "mean first-try score"))
        elif discrimination < LOW_DISCRIMINATION:
            flags.append(Flag("not-discriminating", f"discrimination {discrimination:+.2f} < {LOW_DISCRIMINATION}: "
                                                    "the score says little about the learner", scores,
                              "mean first-try score"))
    lower, _, upper = thirds
    made = [Counter(a.misconception for a in group if a.misconception) for group in (lower, upper)]
    for mistake, count in sorted(made[1].items()):
        if count >= MIN_UPPER_MISTAKES and _z_more(count, len(upper), made[0][mistake], len(lower)) >= MISTAKE_Z:
            flags.append(Flag("upper-mistake",
                              f"mistake {mistake} made by {count}/{len(upper)} of the upper third but "
                              f"{made[0][mistake]}/{len(lower)} of the lower: a wrong key or a misleading prompt?",
                              by_third(lambda a, m=mistake: float(a.misconception == m)),  # type: ignore[misc]
                              f"making {mistake} at the first try"))
    return tuple(flags)


def _z_more(k1: int, n1: int, k2: int, n2: int) -> float:
    """The two-proportion z statistic for k1/n1 exceeding k2/n2 (pooled standard error)."""
    pooled = (k1 + k2) / (n1 + n2)
    spread = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)) ** 0.5
    return (k1 / n1 - k2 / n2) / spread if spread else 0.0


def _papers(items: Sequence[ItemStats], attempts: Sequence[ClassAttempt],
            templates: Mapping[str, Question]) -> list[PaperStats]:
    rows = []
    for paper in sorted({item.paper for item in items if item.paper}):
        mine = [item for item in items if item.paper == paper]
        discriminations = [item.discrimination for item in mine if item.discrimination is not None]
        rows.append(PaperStats(
            paper, len(mine), len({a.learner for a in attempts if templates[a.key].paper == paper}),
            sum(item.attempts for item in mine), statistics.fmean(item.facility for item in mine),
            statistics.fmean(discriminations) if discriminations else None, sum(bool(item.flags) for item in mine)))
    return rows
