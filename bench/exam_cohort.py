"""The exam-cohort benchmark (issue 38): does the plan raise the exam score of learners whose memory it
does not know, against the policies a student could follow instead?

A cohort of simulated learners (``bench/actr_learner.py``: ACT-R activation with power-law forgetting,
Pavlik & Anderson 2005) practises every day for 14 or 28 days before an exam, 20 or 40 minutes a day,
each under one policy, and is scored on the exam day on a simulated paper drawn like the routed
papers: 20 questions, each on a topic drawn in proportion to its exam weight
(``quizzer.learning.plan.weights``).  The score is the learner's expected mark on that paper (the
mean over its questions of the ground truth's chance of a right typed answer on the exam morning).

Every policy practises through the app's own code: the plan picks with
``quizzer.learning.plan.picker.pick``, the function ``Study.next`` calls (the crammer with the pick
``Study.next(topic=...)`` makes); each question is made by ``make_instance`` from one of its first
:data:`INSTANCE_SEEDS` seeds, answered right or wrong as the ground truth decides (the right answer, or
a wrong one as ``bench/simulated_learners.py`` writes it), graded by the app's grader, and recorded
as ``Study`` records it: an attempt per part folded into the ``LearnerState`` that ``Study`` keeps,
the question's FSRS card stepped with ``after_answer`` (for the policies that read the cards).  What
the benchmark leaves out is the bank (SQLite): a run is millions of answers, and a committed answer
costs milliseconds.  The policies:

* **plan** — the plan, the exam date set, the daily minutes as its budget;
* **what next** — the app's previous policy (due reviews first, the weakest unlocked topic);
* **FSRS due-first** — the most overdue question first (FSRS at 90 % retention), a new question only
  when nothing is due, in the course's order (what Anki does);
* **cramming** — massed practice in the last three days, the same total minutes: each of those days
  goes through the course topic by topic in its order, each topic's questions back to back (the
  app's "practise this topic": the plan's pick within the topic's questions), the day's minutes
  split among the topics by exam weight (each topic's block is its weight's share of the minutes
  left, so every topic is reached; one the day ran out before comes first the next day).  Massed
  practice is repetition without a gap (Cepeda et al. 2006); the crammer is given the exam weights
  and the app's choice of question within a topic, so it is no straw man;
* **random** — a question drawn uniformly.

And one ablation, not a baseline: **plan in the last 3 days** — the plan's own picker (interleaved, by
gain per minute) with all the minutes in the last three days: what the schedule over the days alone
is worth, everything else equal.

A sitting ends when the next question would not fit in the day's minutes (it is not answered); the
minutes count the answers and the reading of their feedback.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.actr_learner import FEEDBACK_WRONG, ActrLearner  # noqa: E402
from bench.simulated_learners import right_response, wrong_response  # noqa: E402
from quizzer.grading.parts import whole_outcome  # noqa: E402
from quizzer.grading.verdict import grade  # noqa: E402
from quizzer.learning.mastery import DEFAULTS, GradedAttempt, guess_probability  # noqa: E402
from quizzer.learning.plan.picker import GainCache, Offer, pick  # noqa: E402
from quizzer.learning.plan.schedule import PlanSettings, moment  # noqa: E402
from quizzer.learning.plan.state import LearnerState  # noqa: E402
from quizzer.learning.plan.weights import ExamWeights, exam_weights  # noqa: E402
from quizzer.learning.policy import next_question  # noqa: E402
from quizzer.learning.review import TYPICAL_SECONDS, ReviewState, after_answer, is_due  # noqa: E402
from quizzer.templates.catalog import Catalog, load_catalog, questions_dir  # noqa: E402
from quizzer.templates.instance import make_instance  # noqa: E402
from quizzer.templates.loader import load_path  # noqa: E402
from quizzer.templates.parts import grade_instance  # noqa: E402
from quizzer.templates.schema import Template  # noqa: E402

BASELINES = ("what next", "FSRS due-first", "cramming", "random")
ABLATIONS = ("plan in the last 3 days",)
POLICIES = ("plan", *BASELINES, *ABLATIONS)
CRAMMED = frozenset({"cramming", "plan in the last 3 days"})  # all the minutes in the last CRAM_DAYS days
READ_CARDS = frozenset({"what next", "FSRS due-first"})  # the policies that read the questions' review cards
SETTINGS = ((14, 20), (14, 40), (28, 20), (28, 40))  # (days before the exam, minutes a day)
EXAM_DATE = date(2026, 6, 15)
SITTING_HOUR = 18
PAPER_QUESTIONS = 20
CRAM_DAYS = 3
RECENT = 5  # as Study: the last questions interleaving avoids
SITTING = timedelta(hours=2)  # as Study: a question right in this sitting is not brought back within it
INSTANCE_SEEDS = 8  # a question's numbers: one of its first seeds, whose answers are made and graded once a process


@cache
def course() -> tuple[dict[str, Template], Catalog, ExamWeights]:
    """The bundled questions as the bank offers them (a multi-part question, not its old parts)."""
    templates = {t.key: t for t in (load_path(p) for p in sorted(questions_dir().rglob("*.yaml")))}
    replaced = {key for t in templates.values() for key in t.part_ids}
    catalog = load_catalog()
    return {k: t for k, t in templates.items() if k not in replaced}, catalog, exam_weights(catalog)


@dataclass
class Practice:
    """One simulated learner's practice under a policy: the app's state and review cards, and the log."""

    state: LearnerState
    cards: dict[str, ReviewState]
    recent: list[str]
    settled: dict[str, datetime]
    rng: random.Random
    cache: GainCache
    day_budget: float = 0.0  # seconds: today's minutes
    day_spent: float = 0.0  # seconds practised today (answers and feedback)
    day_topics: set[str] = field(default_factory=set)  # topics answered today
    block: tuple[str, float] | None = None  # the crammer's topic and when its block ends (day_spent)


Policy = Callable[[Practice, datetime, PlanSettings], str]


def plan_policy(practice: Practice, now: datetime, settings: PlanSettings) -> str:
    templates, catalog, weights = course()
    return pick(practice.state, offer(), catalog.topics, weights, moment(settings, now, UTC), practice.rng,
                recent=practice.recent, cache=practice.cache).key


@cache
def offer() -> Offer:
    return Offer(list(course()[0].values()))


def what_next_policy(practice: Practice, now: datetime, settings: PlanSettings) -> str:
    templates, catalog, _ = course()
    settled = {key for key, at in practice.settled.items() if now - at < SITTING}
    return next_question(list(templates.values()), practice.state.tracker.summary(), practice.cards, catalog.topics,
                         practice.recent[-RECENT:], now, practice.rng, settled=settled).key


@cache
def deck_order() -> list[str]:
    """New questions in the course's order (week, then topic as the catalogue lists them, then key)."""
    templates, catalog, _ = course()
    order = {topic: i for i, topic in enumerate(catalog.topics)}
    return sorted(templates, key=lambda k: (templates[k].week, order.get(templates[k].topics[0], 99), k))


def fsrs_policy(practice: Practice, now: datetime, settings: PlanSettings) -> str:
    due = [(now - card.due, key) for key, card in practice.cards.items() if is_due(card, now)]
    if due:
        return max(due)[1]
    new = next((key for key in deck_order() if key not in practice.cards), None)
    if new is not None:
        return new
    return min((card.due, key) for key, card in practice.cards.items())[1]  # review ahead


@cache
def topic_offers() -> dict[str, Offer]:
    """Each topic's questions (their primary topic), as ``Study.choose(topic=...)`` offers them."""
    templates, catalog, _ = course()
    return {t: Offer([q for q in templates.values() if q.topics[0] == t])
            for t in catalog.topics if any(q.topics[0] == t for q in templates.values())}


def cram_topic(practice: Practice) -> str:
    """The topic the crammer's day has reached: the course's topics in order (one not reached the day before
    first), each given the share of
    the minutes left today that its exam weight has among the topics left (so a question that runs
    over its block takes from the next ones, not from the last topic of the day)."""
    _, _, weights = course()
    if practice.block is not None and practice.day_spent < practice.block[1]:
        return practice.block[0]
    # The course's order, but a topic the day before did not reach (time ran out) first.
    times = practice.state.topic_times
    left = sorted((t for t in topic_offers() if t not in practice.day_topics),
                  key=lambda t: times[t][-1].timestamp() if times.get(t) else -math.inf)
    if not left:
        assert practice.block is not None, "a day's topics are answered in blocks"
        return practice.block[0]
    share = weights.weights[left[0]] / sum(weights.weights[t] for t in left)
    practice.block = left[0], practice.day_spent + (practice.day_budget - practice.day_spent) * share
    return left[0]


def cramming_policy(practice: Practice, now: datetime, settings: PlanSettings) -> str:
    _, catalog, weights = course()
    return pick(practice.state, topic_offers()[cram_topic(practice)], catalog.topics, weights,
                moment(settings, now, UTC), practice.rng, recent=practice.recent, cache=practice.cache).key


def random_policy(practice: Practice, now: datetime, settings: PlanSettings) -> str:
    return practice.rng.choice(deck_order())


PICKERS: dict[str, Policy] = {"plan": plan_policy, "what next": what_next_policy, "FSRS due-first": fsrs_policy,
                              "cramming": cramming_policy, "random": random_policy,
                              "plan in the last 3 days": plan_policy}


@dataclass(frozen=True)
class Outcome:
    score: float
    max_day_minutes: float
    untried: int
    answers: int


def exam_moment() -> datetime:
    return datetime.combine(EXAM_DATE, time(9), tzinfo=UTC)


def simulate(policy: str, days: int, minutes: int, learner_seed: int) -> Outcome:
    """One learner (the same for every policy, by its seed) practising ``days`` days under ``policy``."""
    templates, catalog, weights = course()
    topics = list(catalog.topics)
    ease_rng = random.Random(2026)  # the topics' ease: the same course for every learner
    ease = {t: ease_rng.gauss(0, 0.2) for t in topics}
    first = datetime.combine(EXAM_DATE - timedelta(days=days), time(SITTING_HOUR), tzinfo=UTC)
    learner = ActrLearner(topics, ease, learner_seed, first.timestamp())
    practice = Practice(LearnerState(templates), {}, [], {}, random.Random(learner_seed), GainCache())
    settings = PlanSettings(EXAM_DATE, minutes)
    if policy in CRAMMED:
        schedule = [(days - CRAM_DAYS + i, minutes * days / CRAM_DAYS) for i in range(CRAM_DAYS)]
    else:
        schedule = [(i, float(minutes)) for i in range(days)]
    choose, loads = PICKERS[policy], []
    for day, budget in schedule:
        now, spent = first + timedelta(days=day), 0.0
        practice.day_budget, practice.day_topics, practice.block = budget * 60, set(), None
        while True:
            practice.day_spent = spent
            key = choose(practice, now, settings)
            template = templates[key]
            kind = template.answered_kind
            seconds = learner.seconds(TYPICAL_SECONDS[kind])
            if spent + seconds + FEEDBACK_WRONG > budget * 60:
                break
            now += timedelta(seconds=seconds)
            guess = guess_probability(kind, template.option_count)
            right = learner.answer(template.topics[0] if template.topics else None, kind, guess, now.timestamp())
            seed = practice.rng.randrange(INSTANCE_SEEDS)
            record(practice, template, seed, right, seconds, now, cards=policy in READ_CARDS)
            practice.day_topics.update(template.topics[:1])
            spent += seconds + learner.feedback(right)
            now += timedelta(seconds=learner.feedback(right))
        loads.append(spent / 60)
    return Outcome(exam_score(learner, weights, topics, learner_seed), max(loads),
                   sum(1 for t in topics if practice.state.topic_answers[t] == 0), practice.state.answers)


Marks = tuple[tuple[str, float], ...]  # (verdict, score) of each part answered (one for a single question)


@dataclass(frozen=True)
class Graded:
    """An answer as ``Study`` records it: the response, each part's marks, and the whole's (verdict, score)."""

    response: str
    parts: Marks
    whole: tuple[str, float]


@cache
def graded_answer(key: str, seed: int, right: bool) -> Graded:
    """The app's grading of a right or a wrong answer to the instance ``(key, seed)``: the instance made by
    ``make_instance`` (as ``Study.next``), answered as ``bench/simulated_learners.py`` answers (the right
    answer; a wrong one: a named mistake, else the answer with its digits changed; a recall card rated good
    or again), graded by ``grade`` or, part by part, ``grade_instance``, the whole by ``whole_outcome`` (as
    ``Study.answer`` and ``Study.answer_parts``).  Kept per process: the same instance, the same verdict."""
    instance = make_instance(course()[0][key], seed)
    rng = random.Random(seed)
    if not instance.parts:
        response = right_response(instance) if right else wrong_response(instance, rng)
        verdict = grade(instance.spec, response)
        graded = Graded(response, ((verdict.verdict, verdict.score),), (verdict.verdict, verdict.score))
    else:
        responses = [right_response(p.question) if right else wrong_response(p.question, rng) for p in instance.parts]
        verdicts = grade_instance(instance, responses)
        points = {part.label: part.question.points for part in instance.parts}
        graded = Graded(" | ".join(responses), tuple((v.verdict.verdict, v.verdict.score) for v in verdicts),
                        whole_outcome([(v.verdict.score, points[v.label]) for v in verdicts]))
    if (graded.whole[0] == "correct") != right:
        raise AssertionError(f"{key} (seed {seed}): the app graded a {'right' if right else 'wrong'} answer "
                             f"{graded.response!r} {graded.whole[0]}")
    return graded


def record(practice: Practice, template: Template, seed: int, right: bool, seconds: float, at: datetime, *,
           cards: bool) -> None:
    """What ``Study`` records for an answer, graded by the app (:func:`graded_answer`): an attempt per part
    (folded into the state) and, for the policies that read them (``cards``: what next and FSRS due-first;
    the plan never does), the question's review card."""
    graded = graded_answer(template.key, seed, right)
    for verdict, score in graded.parts:
        practice.state.fold(GradedAttempt(template.key, seed, verdict, score, seconds, at))
    practice.recent.append(template.key)
    if not cards:
        return
    verdict, score = graded.whole
    practice.cards[template.key] = after_answer(practice.cards.get(template.key), verdict=verdict, score=score,
                                                seconds=seconds, kind=template.answered_kind,
                                                response=graded.response, at=at)
    if verdict == "correct":
        practice.settled[template.key] = at
    else:
        practice.settled.pop(template.key, None)


def exam_score(learner: ActrLearner, weights: ExamWeights, topics: Sequence[str], seed: int) -> float:
    """The learner's expected mark on a paper of :data:`PAPER_QUESTIONS` topics drawn by exam weight."""
    paper = random.Random(seed ^ 0x5EED).choices(topics, weights=[weights.weights[t] for t in topics],
                                                 k=PAPER_QUESTIONS)
    at = exam_moment().timestamp()
    return statistics.fmean(learner.exam_chance(t, at, DEFAULTS.typed_guess) for t in paper)


def run(policy: str, days: int, minutes: int, learners: int, first: int = 0) -> list[Outcome]:
    """Learners ``first`` … ``first + learners − 1`` under ``policy`` in one setting."""
    return [simulate(policy, days, minutes, seed) for seed in range(first, first + learners)]


@dataclass(frozen=True)
class Row:
    policy: str
    days: int
    minutes: int
    mean: float
    half_width: float  # of the 95 % confidence interval of the mean
    max_day_minutes: float
    untried: float  # mean topics never tried by exam day
    untried_most: int  # the most any learner left untried
    answers: float


def summarise(policy: str, days: int, minutes: int, outcomes: Sequence[Outcome]) -> Row:
    scores = [o.score for o in outcomes]
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores)) if len(scores) > 1 else math.inf
    return Row(policy, days, minutes, statistics.fmean(scores), half, max(o.max_day_minutes for o in outcomes),
               statistics.fmean(o.untried for o in outcomes), max(o.untried for o in outcomes),
               statistics.fmean(o.answers for o in outcomes))


Cell = tuple[str, int, int]  # (policy, days, minutes a day)
CHUNK = 10  # learners a job: saved as each job ends, so a long run can be stopped and resumed


def saved_outcomes(path: Path | None) -> dict[tuple[Cell, int], Outcome]:
    """The outcomes already saved (JSON lines: policy, days, minutes, seed and the outcome's fields)."""
    if path is None or not path.exists():
        return {}
    saved = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        saved[(row["policy"], row["days"], row["minutes"]), row["seed"]] = Outcome(
            row["score"], row["max_day_minutes"], row["untried"], row["answers"])
    return saved


def cohort(learners: int, processes: int = 1, policies: Sequence[str] = POLICIES,
           save: Path | None = None) -> list[Row]:
    """Every setting × policy for learners 0 … ``learners − 1``, in jobs of :data:`CHUNK` learners, the first
    learners of every cell before the next ones; with ``save``, outcomes already there are not run again
    and each job's are appended as it ends."""
    done = saved_outcomes(save)
    cells = [(p, d, m) for d, m in SETTINGS for p in policies]
    jobs = [(cell, first, min(CHUNK, learners - first)) for first in range(0, learners, CHUNK) for cell in cells
            if any((cell, seed) not in done for seed in range(first, min(first + CHUNK, learners)))]

    def keep(cell: Cell, first: int, outcomes: list[Outcome]) -> None:
        for seed, outcome in enumerate(outcomes, first):
            done[cell, seed] = outcome
        if save is not None:
            with save.open("a", encoding="utf-8") as file:
                for seed, o in enumerate(outcomes, first):
                    file.write(json.dumps({"policy": cell[0], "days": cell[1], "minutes": cell[2], "seed": seed,
                                           "score": o.score, "max_day_minutes": o.max_day_minutes,
                                           "untried": o.untried, "answers": o.answers}) + "\n")
        print(f"  … {cell[0]}, {cell[1]} days × {cell[2]} min, learners {first}–{first + len(outcomes) - 1}",
              file=sys.stderr, flush=True)

    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            futures = {pool.submit(run, *cell, count, first): (cell, first) for cell, first, count in jobs}
            for future in as_completed(futures):
                keep(*futures[future], future.result())
    else:
        for cell, first, count in jobs:
            keep(cell, first, run(*cell, count, first))
    return [summarise(*cell, [done[cell, seed] for seed in range(learners)]) for cell in cells]


def table(rows: Sequence[Row]) -> str:
    lines = ["| days | min/day | policy | exam score (mean ± 95 % CI) | largest day (min) "
             "| topics untried: mean (most) | answers |",
             "|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.days} | {r.minutes} | {r.policy} | {r.mean:.1%} ± {r.half_width:.1%} | "
                     f"{r.max_day_minutes:.1f} | {r.untried:.2f} ({r.untried_most}) | {r.answers:.0f} |")
    return "\n".join(lines)


def verdicts(rows: Sequence[Row]) -> list[str]:
    """Per setting: does the plan beat every baseline by more than the larger half-width (the issue's
    bar), by how much at least, and the ablation's difference (the schedule over the days alone)."""
    lines = []
    for days, minutes in SETTINGS:
        cell = {r.policy: r for r in rows if (r.days, r.minutes) == (days, minutes)}
        mine = cell["plan"]
        margins = {p: mine.mean - cell[p].mean - max(mine.half_width, cell[p].half_width) for p in BASELINES}
        closest = min(margins, key=margins.__getitem__)
        line = (f"{days} days × {minutes} min: the plan beats every baseline by more than the larger half-width: "
                f"{'yes' if margins[closest] > 0 else 'NO'} (smallest margin {margins[closest]:+.1%}, over {closest})")
        for ablation in ABLATIONS:
            if ablation in cell:
                line += f"; {ablation}: {mine.mean - cell[ablation].mean:+.1%} ± {cell[ablation].half_width:.1%}"
        lines.append(line)
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--markdown", type=Path, help="also write the table and the verdicts to this file")
    parser.add_argument("--save", type=Path, help="JSON lines of outcomes: kept as jobs end, reused when run again")
    parser.add_argument("--no-ablation", action="store_true", help="leave out " + ", ".join(ABLATIONS))
    args = parser.parse_args(argv)
    policies = ("plan", *BASELINES) if args.no_ablation else POLICIES
    rows = cohort(args.learners, args.processes, policies, args.save)
    text = "\n".join([f"{args.learners} simulated learners per policy and setting "
                      "(ACT-R ground truth, bench/actr_learner.py)", "", table(rows), "",
                      *(f"- {line}" for line in verdicts(rows))])
    print(text)
    if args.markdown is not None:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
